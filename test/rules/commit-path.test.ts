import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

/**
 * What the compiler cannot see of the commit path: storage takes only a `CommittedWrite`, and
 * these checks keep the ways around it closed. The product's sources (lib/, server/, bin/) are
 * read as text.
 */
const root = join(import.meta.dir, "..", "..")
const walk = (dir: string): Array<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : []
  )
const sources = ["lib", "server", "bin"].flatMap(walk)
const text = new Map(sources.map((f) => [f, readFileSync(join(root, f), "utf8")]))
/** The files (relative to the root) whose text matches. */
const filesMatching = (pattern: RegExp) => [...text].filter(([, t]) => pattern.test(t)).map(([f]) => relative(root, join(root, f)))

describe("the commit path", () => {
  test("only lib/rules/commit.ts makes a CommittedWrite", () => {
    expect(filesMatching(/as CommittedWrite\b/)).toEqual(["lib/rules/commit.ts"])
  })

  test("no rule or route calls storage's write itself", () => {
    // `storage.write(`, `(yield* Storage).write(`, `s.write(` on a Storage: every form names the port's write.
    const callers = filesMatching(/(?:[Ss]torage\)?|\bs)\s*\.\s*write\s*[<(]/)
    expect(callers.filter((f) => !f.startsWith("lib/adapters/") && f !== "lib/rules/commit.ts")).toEqual([])
  })

  test("outbox rows are made in lib/rules/webhook-outbox.ts only, and added by the commit path", () => {
    expect(filesMatching(/insert\(\s*"webhook_deliveries"/)).toEqual(["lib/rules/webhook-outbox.ts"])
    expect(filesMatching(/\bdeliveriesFor\b/).sort()).toEqual(["lib/rules/commit.ts", "lib/rules/webhook-outbox.ts"])
    expect(filesMatching(/\bnotifyDeliveries\b/).filter((f) => f !== "lib/webhooks/signal.ts").sort()).toEqual([
      "lib/rules/commit.ts",
      "lib/rules/webhook-deliveries.ts"
    ])
  })

  test("a claim's columns and their copy on the encounter's row are written in lib/rules/claim-writes.ts only", () => {
    expect(filesMatching(/update\(\s*"(claims|encounters)"/)).toEqual(["lib/rules/claim-writes.ts"])
    expect(filesMatching(/\blatestClaimCopy\(/).sort()).toEqual(["lib/domain/encounter.ts", "lib/rules/claim-writes.ts"])
  })

  test("the checks above read the sources they guard", () => {
    expect(sources.length).toBeGreaterThan(50)
    expect(text.get("lib/rules/commit.ts")).toContain("storage.write(sealed(")
  })
})
