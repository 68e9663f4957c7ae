import { expect, test } from "bun:test"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** The README's embedding examples are code that must run as printed. */
const root = join(import.meta.dir, "..")
const readme = readFileSync(join(root, "README.md"), "utf8")
const example = (name: string): string => {
  const m = new RegExp(`<!-- example: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(readme)
  if (m?.[1] === undefined) throw new Error(`README has no example ${name}`)
  return m[1]
}
const dir = join(root, ".test-tmp", "examples")
mkdirSync(dir, { recursive: true })

const run = async (cmd: ReadonlyArray<string>) => {
  const proc = Bun.spawn([...cmd], { cwd: root, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

test("README Effect example runs under Bun and prints what it says", async () => {
  const code = example("effect")
  const file = join(dir, "effect.ts")
  writeFileSync(file, code)
  const expected = /\/\/ (\{.*\})\s*$/.exec(code.trim())?.[1]
  const r = await run(["bun", file])
  expect(r.stderr).toBe("")
  expect(r.code).toBe(0)
  expect(r.stdout.trim()).toBe(expected ?? "missing expected output")
})

test("README Promise example runs under Node with better-sqlite3", async () => {
  // Node loads the package's compiled JavaScript (dist/lib, written by `npm install`'s prepare step).
  const lib = await run(["bun", "x", "tsc", "-p", "tsconfig.build.json"])
  expect(lib.code).toBe(0)
  const file = join(dir, "promise-node.ts")
  writeFileSync(file, example("promise-node"))
  const build = await Bun.build({ entrypoints: [file], outdir: dir, target: "node", format: "esm", packages: "external" })
  expect(build.success).toBe(true)
  const r = await run(["node", join(dir, "promise-node.js")])
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("rejected with ")
  expect(r.stdout).toContain("is required when responsible_party is INSURANCE_PAY")
  expect(r.stdout).toContain("encounters: 0")
}, 60_000)
