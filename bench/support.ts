/**
 * What the depth and startup measurements share: the encounterd command (source or binary),
 * starting `serve` and reading its start-up lines, stopping it, percentiles, the machine line and
 * appending a result to a file under bench/results.
 */
import { appendFileSync, existsSync, mkdirSync, openSync, readFileSync } from "node:fs"
import { cpus } from "node:os"
import { join, resolve } from "node:path"

export const root = resolve(import.meta.dir, "..")
export const binaryPath = join(root, "dist/encounterd")

/** Builds dist/encounterd when it is missing. */
export const ensureBinary = (): void => {
  if (existsSync(binaryPath)) return
  console.error("dist/encounterd is missing: bun run build")
  if (Bun.spawnSync([process.execPath, "run", "build"], { cwd: root, stdout: "inherit", stderr: "inherit" }).exitCode !== 0) {
    throw new Error("build failed")
  }
}

/** `encounterd <args>`: the compiled binary, or bin/main.ts under the running bun. */
export const encounterdCommand = (binary: boolean, args: ReadonlyArray<string>): string[] =>
  binary ? [binaryPath, ...args] : [process.execPath, join(root, "bin/main.ts"), ...args]

export interface Running {
  readonly proc: Bun.Subprocess
  readonly url: string
  /** From the first-run line, on an empty database only. */
  readonly key: string | undefined
  readonly workspaceId: string | undefined
  readonly pid: number
  readonly errPath: string
}

/**
 * Starts `serve` with stdout (one log line per request) going to a file and waits for the
 * `listening` line, and on an empty database for the first-run line too.
 */
export const startServe = async (cmd: ReadonlyArray<string>, logPath: string, firstRun: boolean): Promise<Running> => {
  const errPath = `${logPath}.err`
  const proc = Bun.spawn([...cmd], { cwd: root, stdout: openSync(logPath, "w"), stderr: openSync(errPath, "w") })
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${readFileSync(errPath, "utf8")}`)
    const lines = readFileSync(logPath, "utf8")
      .split("\n")
      .slice(0, -1)
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const first = lines.find((l) => l.first_run === true)
    const listening = lines.find((l) => l.msg === "listening")
    if (first !== undefined && !firstRun) {
      proc.kill("SIGKILL")
      throw new Error("the server printed a first-run key on a database already set up")
    }
    if (listening !== undefined && (first !== undefined || !firstRun)) {
      return {
        proc,
        url: String(listening.url),
        key: first === undefined ? undefined : String(first.key),
        workspaceId: first === undefined ? undefined : String(first.workspace_id),
        pid: typeof listening.pid === "number" ? listening.pid : proc.pid,
        errPath
      }
    }
    await Bun.sleep(20)
  }
  proc.kill("SIGKILL")
  throw new Error(`the server did not print \`listening\` within 30 s: ${readFileSync(errPath, "utf8")}`)
}

/** SIGTERM, then the exit code (or "timeout" after 15 s, and the process is killed). */
export const stopServer = async (proc: Bun.Subprocess): Promise<number | "timeout"> => {
  proc.kill("SIGTERM")
  const code = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => "timeout" as const)])
  if (code === "timeout") proc.kill("SIGKILL")
  return code
}

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN

export const fmt = (n: number, digits = 1): string =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const version = (cmd: ReadonlyArray<string>): string => new TextDecoder().decode(Bun.spawnSync([...cmd]).stdout).trim()

/** CPU model, cores, bun and node versions. */
export const machineLine = (): string => {
  const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown CPU"
  return `${cpu}, ${cpus().length} cores; bun ${version([process.execPath, "--version"])}; node ${version(["node", "--version"])}`
}

/** Appends a report to bench/results/<file>, after a blank line when the file has content. */
export const appendResult = (file: string, report: string): string => {
  const dir = join(root, "bench/results")
  mkdirSync(dir, { recursive: true })
  const path = join(dir, file)
  const before = existsSync(path) ? readFileSync(path, "utf8") : ""
  appendFileSync(path, `${before.length > 0 && !before.endsWith("\n\n") ? "\n" : ""}${report.endsWith("\n") ? report : `${report}\n`}`)
  return path
}
