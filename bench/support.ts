/**
 * What the bench scripts share: the encounterd command (source or binary), starting `serve` and
 * reading its start-up lines, stopping it, a temp folder with the processes started in it,
 * creating encounters through the API, percentiles, number formatting, the machine line, and a
 * measurement's report printed and appended to a file under bench/results.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { validPayload } from "../test/support/payloads.js"

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

/** The complete JSON lines written to a file so far (the file may end in a half-written one). */
export const completeLines = (path: string): Record<string, unknown>[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .slice(0, -1)
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)

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
    const lines = completeLines(logPath)
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

/** A temp folder for one measurement and the processes started in it. */
export interface Scratch {
  readonly dir: string
  /** Started and not yet stopped: killed by `cleanup`. */
  readonly running: Set<Bun.Subprocess>
  /** `startServe` with the log in the folder; the server counts as running until `stop`. */
  readonly serve: (cmd: ReadonlyArray<string>, logName: string, firstRun: boolean) => Promise<Running>
  /** `stopServer`, and an error unless the process exited 0. */
  readonly stop: (proc: Bun.Subprocess, what: string) => Promise<void>
  /**
   * Runs a measurement to its Markdown report, prints it and appends it to bench/results/<file>;
   * cleans up (kills what still runs, removes the folder) whatever happens.
   */
  readonly run: (measure: () => Promise<string>, file: string) => Promise<void>
}

/** A fresh temp folder `<prefix>XXXXXX`; Ctrl-C cleans up and exits 130. */
export const scratch = (prefix: string): Scratch => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const running = new Set<Bun.Subprocess>()
  const cleanup = () => {
    for (const p of running) if (p.exitCode === null) p.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
  process.once("SIGINT", () => {
    cleanup()
    process.exit(130)
  })
  return {
    dir,
    running,
    serve: async (cmd, logName, firstRun) => {
      const server = await startServe(cmd, join(dir, logName), firstRun)
      running.add(server.proc)
      return server
    },
    stop: async (proc, what) => {
      const code = await stopServer(proc)
      running.delete(proc)
      if (code !== 0) throw new Error(`${what} did not exit 0 on SIGTERM (${code})`)
    },
    run: async (measure, file) => {
      try {
        const report = await measure()
        console.log(report)
        console.error(`appended to ${appendResult(file, report)}`)
      } finally {
        cleanup()
      }
    }
  }
}

/**
 * Creates one encounter per external id (`payload`, by default `validPayload`) through the API, 16
 * requests at a time; answers the new encounters' ids in the order they were created. Any answer
 * but 202 throws, `what` naming the work in the message.
 */
export const createEncounters = async (
  url: string,
  key: string,
  externalIds: ReadonlyArray<string>,
  what: string,
  payload: (externalId: string) => Record<string, unknown> = validPayload
): Promise<string[]> => {
  const ids: string[] = []
  let next = 0
  const worker = async () => {
    while (next < externalIds.length) {
      const externalId = externalIds[next++] ?? ""
      const res = await fetch(`${url}/api/encounters`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(payload(externalId))
      })
      const text = await res.text()
      const id = res.status === 202 ? (JSON.parse(text) as { encounter_id?: unknown }).encounter_id : undefined
      if (typeof id !== "string") throw new Error(`${what} ${externalId}: ${res.status} ${text}`)
      ids.push(id)
    }
  }
  await Promise.all(Array.from({ length: Math.min(16, externalIds.length) }, worker))
  return ids
}

/** A request a wrk script sends from a file (`wrkRequestsFromFile`). */
export interface FileRequest {
  readonly method: string
  readonly path: string
  readonly body?: string | undefined
}

/**
 * Writes `requests` to `file`, one a line (METHOD TAB PATH TAB BODY; JSON text has no raw tab),
 * and answers the Lua that has each wrk thread read them once (`init`) and cycle through them
 * (`request`). Any number of requests: a Lua function holds at most 65,536 constants, so a table
 * of them written into the script does not load past that, and wrk then sends `GET /` instead.
 * With `lanes` (the wrk threads), thread t takes the lines t, t + lanes, ...; without, every
 * thread takes them all. The script's other lines (headers) are the caller's.
 */
export const wrkRequestsFromFile = (file: string, requests: ReadonlyArray<FileRequest>, lanes?: number): string[] => {
  writeFileSync(file, requests.map((r) => `${r.method}\t${r.path}\t${r.body ?? ""}\n`).join(""))
  return [
    `local file = ${JSON.stringify(file)}`,
    "local threads = 0",
    "function setup(thread)",
    "  threads = threads + 1",
    '  thread:set("tid", threads)',
    "end",
    "local mine = {}",
    "local at = 0",
    "function init(args)",
    "  local i = 0",
    "  for line in io.lines(file) do",
    `    if ${lanes === undefined ? "true" : `i % ${lanes} == tid - 1`} then`,
    '      local method, path, body = line:match("^([^\\t]*)\\t([^\\t]*)\\t(.*)$")',
    '      if body == "" then body = nil end',
    "      table.insert(mine, wrk.format(method, path, nil, body))",
    "    end",
    "    i = i + 1",
    "  end",
    "end",
    "function request()",
    "  at = at % #mine + 1",
    "  return mine[at]",
    "end"
  ]
}

/** A copy in a random order (Fisher-Yates). */
export const shuffled = <A>(items: ReadonlyArray<A>): Array<A> => {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    const a = out[i]!
    out[i] = out[j]!
    out[j] = a
  }
  return out
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

/**
 * The baseline's sources: a detached git worktree of `--baseline REV` in the temp folder, sharing
 * this checkout's node_modules (removed again by the cleanup). It runs from source under this bun.
 */
export const baselineSource = (dir: string, rev: string): { readonly root: string; readonly remove: () => void } => {
  const src = join(dir, "baseline-src")
  const add = Bun.spawnSync(["git", "worktree", "add", "--detach", src, rev], { cwd: root })
  if (add.exitCode !== 0) throw new Error(`git worktree add ${rev}: ${new TextDecoder().decode(add.stderr)}`)
  symlinkSync(join(root, "node_modules"), join(src, "node_modules"))
  return {
    root: src,
    remove: () => void Bun.spawnSync(["git", "worktree", "remove", "--force", src], { cwd: root })
  }
}

/** Compiles a baseline worktree's binary with its own `npm run build` (its package.json's); answers its path. */
export const buildBaselineBinary = (baselineRoot: string): string => {
  const build = Bun.spawnSync([process.execPath, "run", "build"], { cwd: baselineRoot, stdout: "inherit", stderr: "inherit" })
  const binary = join(baselineRoot, "dist/encounterd")
  if (build.exitCode !== 0 || !existsSync(binary)) throw new Error(`the baseline's build failed (${baselineRoot})`)
  return binary
}

/** `encounterd <args>` of a target: this checkout's (source or binary), or the baseline's source. */
