import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { ENGINE_SETTINGS } from "../../bin/engine-settings.js"
import { ensureBinary, removeTemps, startBinary, tempDb } from "../support/binary.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

/** The environment a running process was started (or last started over) with. */
const environOf = (pid: number): Record<string, string> =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, "latin1")
      .split("\0")
      .filter((e) => e.includes("="))
      .map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)])
  )

const NAME = "BUN_JSC_maximumFTLCandidateBytecodeCost"

describe.if(process.platform === "linux")("compiled binary: serve runs under its engine settings", () => {
  test("serve starts itself over in the same process with the settings, and prints its first-run key once", async () => {
    expect(ENGINE_SETTINGS[NAME]).toBe("2000")
    const started = await startBinary({ db: tempDb("engine"), args: ["--rate-limit", "0"] })
    try {
      const listening = JSON.parse(started.stdoutLines.find((l) => l.includes('"listening"'))!)
      expect(listening.pid).toBe(started.proc.pid)
      // A value in the environment the tests run in is the operator's and wins (the next test).
      expect(environOf(started.proc.pid)[NAME]).toBe(process.env[NAME] ?? "2000")
      expect(started.stdoutLines.filter((l) => l.includes('"first_run"')).length).toBe(1)
      expect((await fetch(`${started.url}/healthz`)).status).toBe(200)
    } finally {
      expect(await started.stop()).toBe(0)
    }
  })

  test("an operator's own value wins", async () => {
    const server = await startBinary({ db: tempDb("engine"), args: ["--rate-limit", "0"], env: { [NAME]: "60000" } })
    try {
      expect(environOf(server.proc.pid)[NAME]).toBe("60000")
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })
})
