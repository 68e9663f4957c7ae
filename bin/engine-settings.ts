/**
 * JavaScriptCore settings `serve` runs under. The engine reads them from the environment once, as
 * it starts, so `serve` starts itself over (in the same process, by execve) with the ones missing.
 *
 * `maximumFTLCandidateBytecodeCost`: functions larger than this stay in the DFG tier instead of
 * being compiled again by the FTL. Under mixed traffic the FTL's compilation of one of the few large
 * functions (2,000 to 7,400 bytecodes, 40 to 90 ms each) made the server's highest peaks: the
 * compiler holds its memory for that time, and these functions are compiled again each time the
 * engine throws their code away. The engine's default is 60,000; the many small functions reach
 * the FTL as before. bench/RESULTS.md has the measurements.
 *
 * An operator's own value of a setting wins: set it in the environment (60000 restores the
 * engine's default).
 */
export const ENGINE_SETTINGS: Readonly<Record<string, string>> = {
  BUN_JSC_maximumFTLCandidateBytecodeCost: "2000"
}

/** The settings the environment does not set yet. */
export const missingEngineSettings = (env: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(Object.entries(ENGINE_SETTINGS).filter(([name]) => env[name] === undefined))

type Execve = (file: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>) => never

/**
 * The command line that starts this program again: a compiled binary's own path and arguments (its
 * `argv[0]` is `bun` and `argv[1]` its embedded entry), or Bun, its flags and the script.
 */
export const relaunchArgs = (p: { readonly execPath: string; readonly execArgv: ReadonlyArray<string>; readonly argv: ReadonlyArray<string> }, compiled: boolean): string[] =>
  compiled ? [p.execPath, ...p.argv.slice(2)] : [p.execPath, ...p.execArgv, ...p.argv.slice(1)]

/** A compiled binary's entry lives in Bun's embedded file system. */
const isCompiled = (): boolean => typeof Bun !== "undefined" && (Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/"))

/**
 * Starts this program over with the missing engine settings, when some are missing and the
 * runtime can (Bun's `process.execve`). Returns only when it does not start over: with the reason
 * when the exec failed (the program then runs on without the settings), else undefined.
 */
export const relaunchWithEngineSettings = (): string | undefined => {
  const missing = missingEngineSettings(process.env)
  if (Object.keys(missing).length === 0) return undefined
  const execve = (process as unknown as { readonly execve?: Execve }).execve
  if (typeof execve !== "function") return undefined
  try {
    execve.call(process, process.execPath, relaunchArgs(process, isCompiled()), { ...process.env, ...missing })
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
  return undefined
}
