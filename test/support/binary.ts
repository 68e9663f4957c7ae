/**
 * Helpers for the compiled-binary suites (test/binary): build `encounterd` once per test process,
 * run its commands, start and stop its server, and talk to it over HTTP.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type { Subprocess } from "bun"
import { buildArgs } from "../../scripts/build-args.js"

const root = resolve(import.meta.dir, "../..")
let built: string | undefined

/**
 * Compiles bin/main.ts into `.test-tmp/encounterd-test` (not dist/, which belongs to developers),
 * once per test process. Built under a private name, then renamed, so parallel test processes
 * never run a half-written file.
 */
export const ensureBinary = (): string => {
  if (built !== undefined) return built
  const dir = join(root, ".test-tmp")
  mkdirSync(dir, { recursive: true })
  const final = join(dir, "encounterd-test")
  const partial = join(dir, `encounterd-test.${process.pid}.partial`)
  // The flags of `npm run build`: the suites test the binary that ships.
  const result = Bun.spawnSync([process.execPath, ...buildArgs({ outfile: partial })], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe"
  })
  if (result.exitCode !== 0) {
    throw new Error(`bun build --compile failed (${result.exitCode}):\n${result.stdout.toString()}\n${result.stderr.toString()}`)
  }
  renameSync(partial, final)
  built = final
  return final
}

const temps: Array<string> = []

/** A fresh directory under the OS temp dir, removed by `removeTemps`. */
export const tempDir = (label = "bin"): string => {
  const dir = mkdtempSync(join(tmpdir(), `encounterd-${label}-`))
  temps.push(dir)
  return dir
}

/** A database path in a fresh temp directory. */
export const tempDb = (label = "bin"): string => join(tempDir(label), "encounterd.sqlite")

export const removeTemps = () => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** Env for children: no ENCOUNTERD_* settings leak in from the developer's shell. */
const childEnv = (extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("ENCOUNTERD_")) env[k] = v
  return { ...env, ...extra }
}

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  /** stdout parsed as JSON when it is JSON. */
  readonly json?: any
}

/** Runs one CLI command; `db` adds `--db FILE`. */
export const runCli = async (
  args: ReadonlyArray<string>,
  options: { readonly db?: string; readonly env?: Record<string, string> } = {}
): Promise<CliResult> => {
  const argv = [ensureBinary(), ...args, ...(options.db !== undefined ? ["--db", options.db] : [])]
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: childEnv(options.env) })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  let json: unknown
  try {
    json = stdout.trim() === "" ? undefined : JSON.parse(stdout)
  } catch {
    json = undefined
  }
  return { code, stdout, stderr, ...(json !== undefined ? { json } : {}) }
}

export interface FirstRunKey {
  readonly first_run: true
  readonly workspace: string
  readonly id: string
  readonly key: string
  readonly workspace_id: string
  readonly scopes: ReadonlyArray<string>
}

export interface RunningBinary {
  readonly url: string
  /** The first-run key, when this start created the database's first workspace. */
  readonly key?: string
  readonly firstRun?: FirstRunKey
  readonly proc: Subprocess<"ignore", "pipe", "pipe">
  /** Every stdout line so far (first-run line, JSON log lines). */
  readonly stdoutLines: Array<string>
  readonly stderr: () => string
  /** Sends the signal and resolves with the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number>
}

/** Keeps reading a stream line by line (a child blocks if its pipe is not drained). */
const pump = async (stream: ReadableStream<Uint8Array>, onLine: (line: string) => void, onText?: (text: string) => void) => {
  const decoder = new TextDecoder()
  let buffered = ""
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    const text = decoder.decode(value, { stream: true })
    onText?.(text)
    buffered += text
    let nl = buffered.indexOf("\n")
    while (nl >= 0) {
      onLine(buffered.slice(0, nl))
      buffered = buffered.slice(nl + 1)
      nl = buffered.indexOf("\n")
    }
  }
  if (buffered !== "") onLine(buffered)
}

const parseLine = (line: string): Record<string, unknown> | undefined => {
  try {
    const v: unknown = JSON.parse(line)
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** Starts `encounterd serve --port 0 --db FILE` and waits (10 s at most) for its "listening" log line. */
export const startBinary = async (options: {
  readonly db: string
  readonly port?: number
  readonly env?: Record<string, string>
  readonly args?: ReadonlyArray<string>
}): Promise<RunningBinary> => {
  const argv = [ensureBinary(), "serve", "--port", String(options.port ?? 0), "--db", options.db, ...(options.args ?? [])]
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: childEnv(options.env) })
  const stdoutLines: Array<string> = []
  let stderrText = ""
  let firstRun: FirstRunKey | undefined
  const listening = new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 10 s; stderr:\n${stderrText}`)), 10_000)
    void pump(proc.stdout, (line) => {
      stdoutLines.push(line)
      const obj = parseLine(line)
      if (obj?.first_run === true) firstRun = obj as unknown as FirstRunKey
      if (obj?.msg === "listening" && typeof obj.url === "string") {
        clearTimeout(timer)
        resolveUrl(obj.url)
      }
    })
    void pump(proc.stderr, () => undefined, (text) => {
      stderrText += text
    })
    void proc.exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`encounterd serve exited with ${code} before listening; stderr:\n${stderrText}`))
    })
  })
  let url: string
  try {
    url = await listening
  } catch (e) {
    proc.kill("SIGKILL")
    throw e
  }
  return {
    url,
    ...(firstRun !== undefined ? { key: firstRun.key, firstRun } : {}),
    proc,
    stdoutLines,
    stderr: () => stderrText,
    stop: (signal = "SIGTERM") => {
      proc.kill(signal)
      return proc.exited
    }
  }
}

/** A fetch with the API key; answers with status and parsed JSON (or null). */
export const api = async (
  base: string,
  key: string,
  path: string,
  init: { readonly method?: string; readonly body?: unknown } = {}
): Promise<{ readonly status: number; readonly body: any }> => {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body !== undefined ? "POST" : "GET"),
    headers: { authorization: `Bearer ${key}`, ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {})
  })
  const text = await response.text()
  let body: unknown = null
  try {
    body = text === "" ? null : JSON.parse(text)
  } catch {
    body = text
  }
  return { status: response.status, body }
}

export interface WireEvent {
  readonly id: string
  readonly event_type: string
  readonly payload: { readonly encounter_id: string; readonly external_id: string; readonly claim_id: string; readonly status: string }
}

/** Every event of the key's workspace (oldest first), paging with limit=100; optionally one type. */
export const allEvents = async (base: string, key: string, eventType?: string): Promise<Array<WireEvent>> => {
  const out: Array<WireEvent> = []
  let token: string | null = null
  for (let page = 0; page < 10_000; page++) {
    const q = new URLSearchParams({ limit: "100" })
    if (eventType !== undefined) q.set("event_types", eventType)
    if (token !== null) q.set("page_token", token)
    const r = await api(base, key, `/api/encounters/compat-version/events?${q}`)
    if (r.status !== 200) throw new Error(`events page answered ${r.status}: ${JSON.stringify(r.body)}`)
    out.push(...(r.body.items as Array<WireEvent>))
    token = r.body.next_page_token
    if (token === null) return out
  }
  throw new Error("events did not end")
}

export const CREATED = "ExternalApi.Encounter.Created"
