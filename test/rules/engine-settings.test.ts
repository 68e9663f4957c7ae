import { describe, expect, test } from "bun:test"
import { ENGINE_SETTINGS, missingEngineSettings, relaunchArgs } from "../../bin/engine-settings.js"

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
})
