import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, test } from "bun:test"
import { removeTemps, tempDb } from "../support/binary.js"

/** `npx encounterd` in a clone: package.json's bin is bin/encounterd.mjs, run by Node, which runs bin/main.ts on the local Bun. */
const root = resolve(import.meta.dir, "../..")
afterAll(removeTemps)

/** Node itself, not Bun: the shim must run under Node 20 and later. */
const node = Bun.which("node")

const env = (): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("ENCOUNTERD_")) out[k] = v
  return out
}

const run = (argv: ReadonlyArray<string>) => {
  const r = Bun.spawnSync([...argv], { cwd: root, env: env(), stdout: "pipe", stderr: "pipe" })
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() }
}

describe("the CLI from a clone", () => {
  test("package.json names bin/encounterd.mjs as the encounterd command", () => {
    const pkg: unknown = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
    expect(pkg).toMatchObject({ bin: { encounterd: "bin/encounterd.mjs" } })
    expect(readFileSync(join(root, "bin", "encounterd.mjs"), "utf8")).toStartWith("#!/usr/bin/env node\n")
  })

  test.skipIf(node === null)("node bin/encounterd.mjs runs the CLI: help, a command, and its exit codes", () => {
    const help = run([node!, "bin/encounterd.mjs", "--help"])
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining("Usage: encounterd COMMAND")])
    const db = tempDb("shim")
    const made = run([node!, "bin/encounterd.mjs", "workspaces", "create", "--slug", "clinic", "--name", "Clinic", "--db", db])
    expect(made.code).toBe(0)
    expect(JSON.parse(made.stdout)).toMatchObject({ slug: "clinic" })
    expect(run([node!, "bin/encounterd.mjs", "keys", "list", "--workspce", "clinic", "--db", db]).code).toBe(2)
    expect(run([node!, "bin/encounterd.mjs", "keys", "list", "--workspace", "clinic", "--db", `${db}.typo`]).code).toBe(1)
  })

  test.skipIf(node === null)("serve through the shim stops on SIGTERM, exiting 0", async () => {
    const db = tempDb("shim-serve")
    const proc = Bun.spawn([node!, "bin/encounterd.mjs", "serve", "--port", "0", "--db", db], { cwd: root, env: env(), stdout: "pipe", stderr: "pipe" })
    const reader = proc.stdout.getReader()
    let text = ""
    const until = Date.now() + 20_000
    while (!text.includes('"listening"') && Date.now() < until) {
      const { done, value } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
    }
    expect(text).toContain('"listening"')
    proc.kill("SIGTERM")
    expect(await proc.exited).toBe(0)
  }, 30_000)

  test("npx encounterd --help", () => {
    // npx finds the bin of the package it runs in (npm links it into its cache once).
    const r = run(["npx", "--offline", "encounterd", "--help"])
    expect([r.code, r.stdout]).toEqual([0, expect.stringContaining("Usage: encounterd COMMAND")])
  }, 120_000)
})
