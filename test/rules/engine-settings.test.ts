import { describe, expect, test } from "bun:test"
import { ENGINE_SETTINGS, missingEngineSettings, relaunchArgs, relaunchWithEngineSettings } from "../../bin/engine-settings.js"

describe("engine settings", () => {
  test("only the settings the environment lacks are added; an operator's value is kept", () => {
    expect(missingEngineSettings({})).toEqual({ ...ENGINE_SETTINGS })
    expect(missingEngineSettings({ BUN_JSC_maximumFTLCandidateBytecodeCost: "60000" })).toEqual({})
    expect(missingEngineSettings({ PATH: "/usr/bin" })).toEqual({ BUN_JSC_maximumFTLCandidateBytecodeCost: "2000" })
  })

  test("the command line that starts the program again", () => {
    // A compiled binary: argv[0] is "bun", argv[1] the embedded entry, then the user's arguments.
    expect(relaunchArgs({ execPath: "/opt/encounterd", execArgv: [], argv: ["bun", "/$bunfs/root/encounterd", "serve", "--port", "0"] }, true)).toEqual([
      "/opt/encounterd",
      "serve",
      "--port",
      "0"
    ])
    // From source: Bun, its own flags, the script and its arguments.
    expect(relaunchArgs({ execPath: "/usr/bin/bun", execArgv: ["--smol"], argv: ["/usr/bin/bun", "/app/bin/main.ts", "serve"] }, false)).toEqual([
      "/usr/bin/bun",
      "--smol",
      "/app/bin/main.ts",
      "serve"
    ])
  })

  test("the exec gets this program's command line and the environment with the settings; a failed exec is reported, not thrown", () => {
    const NAME = "BUN_JSC_maximumFTLCandidateBytecodeCost"
    const saved = process.env[NAME]
    const original = Object.getOwnPropertyDescriptor(process, "execve")
    const calls: Array<{ file: string; args: ReadonlyArray<string>; env: Readonly<Record<string, string | undefined>> }> = []
    let fail = false
    Object.defineProperty(process, "execve", {
      configurable: true,
      writable: true,
      value: (file: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>) => {
        calls.push({ file, args, env })
        if (fail) throw new Error("EACCES: permission denied, execve")
      }
    })
    try {
      delete process.env[NAME]
      expect(relaunchWithEngineSettings()).toBeUndefined()
      expect(calls).toHaveLength(1)
      expect(calls[0]!.file).toBe(process.execPath)
      expect(calls[0]!.args[0]).toBe(process.execPath)
      expect(calls[0]!.args).toContain(process.argv[1]!)
      expect(calls[0]!.env[NAME]).toBe("2000")
      expect(calls[0]!.env.PATH).toBe(process.env.PATH)
      fail = true
      expect(relaunchWithEngineSettings()).toBe("EACCES: permission denied, execve")
      // Set by the operator: nothing to start over for.
      process.env[NAME] = "60000"
      expect(relaunchWithEngineSettings()).toBeUndefined()
      expect(calls).toHaveLength(2)
    } finally {
      if (saved === undefined) delete process.env[NAME]
      else process.env[NAME] = saved
      if (original !== undefined) Object.defineProperty(process, "execve", original)
      else Reflect.deleteProperty(process, "execve")
    }
  })
})
