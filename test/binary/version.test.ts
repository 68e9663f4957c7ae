import { execFileSync } from "node:child_process"
import { resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import pkg from "../../package.json" with { type: "json" }
import { ensureBinary, removeTemps, runCli, startBinary, tempDb } from "../support/binary.js"
import { parsePrometheus, sampleValue } from "../support/prometheus.js"

const root = resolve(import.meta.dir, "../..")
const head = (): string => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root }).toString().trim()
  } catch {
    return "unknown"
  }
}

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

const LINE = /^encounterd (\S+) \(commit (\S+), built (\S+)\)\n$/

describe("version, commit and build date", () => {
  test("the binary's --version names the version, the commit it was built from and when", async () => {
    const before = Date.now()
    const r = await runCli(["--version"])
    expect(r.code).toBe(0)
    const m = LINE.exec(r.stdout)
    if (m === null) throw new Error(`unexpected --version output: ${JSON.stringify(r.stdout)}`)
    expect(m[1]).toBe(pkg.version)
    expect(m[2]).toBe(head())
    const built = Date.parse(m[3]!)
    expect(m[3]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    // Built by this test process (ensureBinary), so within the last hour.
    expect(before - built).toBeLessThan(3_600_000)
  })

  test("/readyz and /metrics of the running binary carry the same three", async () => {
    const line = LINE.exec((await runCli(["--version"])).stdout)!
    const server = await startBinary({ db: tempDb("version") })
    try {
      const ready = await (await fetch(`${server.url}/readyz`)).json()
      expect(ready).toEqual({ status: "ready", version: { version: line[1], commit: line[2], built: line[3] } })
      const metrics = parsePrometheus(await (await fetch(`${server.url}/metrics`)).text())
      expect(sampleValue(metrics, "encounterd_build_info", { version: line[1]!, commit: line[2]!, built: line[3]! })).toBe(1)
    } finally {
      await server.stop()
    }
  })

  test("from source, the commit comes from git and the build date is unknown", () => {
    const out = execFileSync(process.execPath, ["bin/main.ts", "--version"], { cwd: root }).toString()
    expect(out).toBe(`encounterd ${pkg.version} (commit ${head()}, built unknown)\n`)
  })
})
