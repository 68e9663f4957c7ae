import { expect, test } from "bun:test"
import { mkdirSync, mkdtempSync } from "node:fs"
import { join } from "node:path"

/**
 * The library under Node: the contract suite bundled for Node (better-sqlite3 stays external, as an
 * embedder would load it) and run with `node --test`. Every test must pass; none may be skipped.
 */
test("the storage contract passes under Node with better-sqlite3", async () => {
  // Inside the repository, so that Node resolves the packages from its node_modules.
  const root = join(import.meta.dir, "../..")
  mkdirSync(join(root, ".test-tmp"), { recursive: true })
  const out = mkdtempSync(join(root, ".test-tmp", "node-"))
  const build = await Bun.build({
    entrypoints: [join(import.meta.dir, "../node/contract.node.ts")],
    outdir: out,
    target: "node",
    format: "esm",
    packages: "external"
  })
  expect(build.success).toBe(true)
  const proc = Bun.spawn(["node", "--test", "--test-reporter=spec", join(out, "contract.node.js")], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe"
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  const count = (label: string) => Number(new RegExp(`ℹ ${label} (\\d+)`).exec(stdout)?.[1] ?? -1)
  if (code !== 0) console.error(stdout.slice(-4000), stderr.slice(-2000))
  expect(code).toBe(0)
  expect(count("pass")).toBeGreaterThanOrEqual(24)
  expect(count("fail")).toBe(0)
  expect(count("skipped")).toBe(0)
}, 180_000)
