/**
 * Load benchmark. On SQLite (the default) it compares three targets side by side, each on its own
 * fresh SQLite file seeded with the same 1,000 encounters through its own API:
 *
 *   encounterd   bun bin/main.ts serve (or dist/encounterd with --binary)
 *   bun-ref      bun bench/reference/bun-server.ts        (synchronous NORMAL)
 *   fastify-ref  node bench/reference/fastify-server.mjs  (synchronous NORMAL)
 *
 * The references keep encounterd's audit log (a row per read or change, the same table and
 * indexes): equal work. `--targets ...,bun-ref-noaudit` adds the Bun reference without it, to show
 * what the audit log costs a server written by hand. `--baseline REV --targets ...,baseline` adds
 * an earlier build of encounterd, built from a git worktree of REV.
 *
 * Two scenarios measure routes only encounterd has (a Scenario's `only`; the table shows "—" for the
 * references and a --baseline build), on claims of their own made in untimed setup
 * (bench/claim-pool.ts): encounters created through the API, each claim moved draft ->
 * submitted_to_payer -> rejected with the status API, which opens a rejection task for it.
 *
 *   task list page (100)  GET /api/tasks?limit=100 over 3,000 open tasks (checked to list 100 before each run)
 *   claim correction      POST /api/claims/{id}/corrections {"action":"resubmit"}, a different rejected
 *                         claim per request from a pool of 4,000 per second of --duration (a claim takes
 *                         one correction: another answers 409); after each run the claims the
 *                         corrections made are moved to rejected in turn, refilling the pool
 *
 * All targets are started up front and stay up; each scenario runs on one target after another
 * under the same load, and `--rounds R` repeats that alternation R times (the table shows each
 * target's best round). On PostgreSQL (--postgres) only encounterd runs, with one or two instances.
 * The load comes from wrk when it is on PATH (a Lua script per run), else from autocannon
 * (bench/load.mjs under Node). The tables go to stdout and bench/results/latest.md.
 *
 *   bun bench/run.ts [--targets encounterd,bun-ref,fastify-ref] [--rounds 1] [--load wrk|autocannon]
 *                    [--threads 2] [--binary] [--duration 10] [--connections 32] [--synchronous FULL|NORMAL]
 *                    [--postgres ADMIN_URL [--instances 1|2] [--pool-size N]] [--scenarios NAME,NAME] [--settle 1000]
 *
 * --settle is the milliseconds without load between a scenario's set-up and its run (0 for none).
 * --scenarios runs only the scenarios whose names contain one of the given words ("poll,status");
 * a word that is a scenario's whole name selects that one alone ("list page (100)");
 * such a partial run prints its tables and leaves bench/results/latest.md as it was.
 *
 * --postgres names a database to connect to for admin work (postgres://postgres@127.0.0.1:5432/postgres):
 * the bench creates `enc_bench_<random>` beside it, runs the server(s) there and drops it at the end.
 * --instances 2 starts a second server on that database once the first is ready; each scenario then
 * runs two loads at once, half the connections each, one per instance.
 */
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { validPayload } from "../test/support/payloads.js"
import { databaseUrl } from "../test/support/postgres.js"
import { checkTaskPage, type ClaimPool, correctionSequence, growPool, refillPool } from "./claim-pool.js"
import { buildCompat } from "./reference/build-compat.js"
import {
  cpuMicros,
  encounterdWriteKey,
  feedPages,
  latestClaims,
  MIX,
  mixedSequence,
  resetClaims,
  type SequencedRequest,
  statusSequence
} from "./scenario-data.js"
import { baselineSource, buildBaselineBinary, completeLines, createEncounters, encounterdCommand, ensureBinary, fmt, machineLine, root, shuffled, stopServer, wrkRequestsFromFile } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    binary: { type: "boolean", default: false },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    synchronous: { type: "string" },
    postgres: { type: "string" },
    instances: { type: "string", default: "1" },
    "pool-size": { type: "string" },
    targets: { type: "string" },
    rounds: { type: "string", default: "1" },
    load: { type: "string" },
    threads: { type: "string" },
    scenarios: { type: "string" },
    seed: { type: "string", default: "1000" },
    settle: { type: "string", default: "1000" },
    baseline: { type: "string" }
  }
})

const TargetNames = ["encounterd", "baseline", "bun-ref", "bun-ref-noaudit", "fastify-ref"] as const
type TargetName = (typeof TargetNames)[number]
const isTargetName = (s: string): s is TargetName => TargetNames.some((t) => t === s)

/** The servers that are encounterd: this checkout, and an earlier build (`--baseline REV`). */
const isEncounterd = (t: TargetName): t is "encounterd" | "baseline" => t === "encounterd" || t === "baseline"
type ReferenceName = Exclude<TargetName, "encounterd" | "baseline">

/** The reference servers' entry points, relative to the repository root. */
const referenceFiles: Record<ReferenceName, string> = {
  "bun-ref": "bench/reference/bun-server.ts",
  "bun-ref-noaudit": "bench/reference/bun-server.ts",
  "fastify-ref": "bench/reference/fastify-server.mjs"
}

const duration = Number(flags.duration)
const connections = Number(flags.connections)
const instances = Number(flags.instances)
const rounds = Number(flags.rounds)
const adminUrl = flags.postgres
const poolSize = flags["pool-size"]
if (!(duration > 0) || !(connections > 0)) throw new Error("--duration and --connections must be positive numbers")
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer")
if (instances !== 1 && instances !== 2) throw new Error("--instances must be 1 or 2")
if (connections < instances) throw new Error("--connections must be at least --instances")
if (adminUrl === undefined) {
  if (instances !== 1) throw new Error("--instances 2 needs --postgres (the instances share one PostgreSQL database)")
  if (poolSize !== undefined) throw new Error("--pool-size is a PostgreSQL setting: it needs --postgres")
} else {
  if (!/^postgres(ql)?:\/\//i.test(adminUrl)) throw new Error("--postgres must be a postgres:// URL")
  if (flags.synchronous !== undefined) throw new Error("--synchronous is a SQLite setting: drop it with --postgres")
  if (poolSize !== undefined && !(Number.isInteger(Number(poolSize)) && Number(poolSize) > 0)) {
    throw new Error("--pool-size must be a positive integer")
  }
}

/** The targets to run, in table order (the order of TargetNames, whatever the flag's order). */
const targetNames: readonly TargetName[] = (() => {
  if (flags.targets === undefined) {
    if (adminUrl !== undefined) return ["encounterd"]
    return TargetNames.filter((t) => (t !== "baseline" || flags.baseline !== undefined) && t !== "bun-ref-noaudit")
  }
  const asked = flags.targets.split(",").map((s) => s.trim()).filter((s) => s !== "")
  const unknown = asked.filter((s) => !isTargetName(s))
  if (unknown.length > 0) throw new Error(`unknown target ${unknown.join(", ")}; known: ${TargetNames.join(", ")}`)
  const chosen = TargetNames.filter((t) => asked.includes(t))
  if (chosen.includes("baseline") && flags.baseline === undefined) throw new Error("target baseline needs --baseline REV")
  if (chosen.length === 0) throw new Error("--targets names no target")
  if (adminUrl !== undefined && (chosen.length !== 1 || chosen[0] !== "encounterd")) {
    throw new Error("--postgres runs encounterd only: drop --targets or pass --targets encounterd")
  }
  return chosen
})()
if (flags.baseline !== undefined && !targetNames.includes("baseline")) throw new Error("--baseline REV: --targets must name baseline")
/** A target's name in the tables: the baseline shows its revision. */
const shown = (t: TargetName): string => (t === "baseline" ? `encounterd@${flags.baseline ?? "?"}` : t)
for (const t of targetNames) {
  if (isEncounterd(t)) continue
  const file = referenceFiles[t]
  if (!existsSync(join(root, file))) {
    throw new Error(`target ${t} needs ${file}, which does not exist: pass --targets with the targets that can run (e.g. --targets encounterd)`)
  }
}

type LoadTool = "wrk" | "autocannon"
const wrkPath = Bun.which("wrk")
const loadTool: LoadTool = (() => {
  if (flags.load === undefined) return wrkPath !== null ? "wrk" : "autocannon"
  if (flags.load !== "wrk" && flags.load !== "autocannon") throw new Error("--load must be wrk or autocannon")
  if (flags.load === "wrk" && wrkPath === null) throw new Error("--load wrk: wrk is not on PATH")
  return flags.load
})()
if (loadTool === "wrk" && !Number.isInteger(duration)) throw new Error("--duration must be whole seconds with wrk")
if (flags.threads !== undefined && loadTool !== "wrk") throw new Error("--threads is a wrk setting: it needs --load wrk")
const threads = Number(flags.threads ?? "2")
if (!Number.isInteger(threads) || threads < 1) throw new Error("--threads must be a positive integer")
/**
 * Milliseconds without load between a scenario's set-up and its run (the 0.5 s pause after a run
 * is before the next set-up): the run's peak is then its own, not what the set-up left (the task
 * list's pool of 3,000 rejected claims, made through the API just before it, left the process
 * 25 to 35 MiB over what it held a second later).
 */
const settleMs = Number(flags.settle)
if (!Number.isInteger(settleMs) || settleMs < 0) throw new Error("--settle must be whole milliseconds, 0 or more")

const SEED = Number(flags.seed)
if (!Number.isInteger(SEED) || SEED < 100) throw new Error("--seed must be an integer of at least 100")
/** Claims the status change scenarios cycle through: all seeded ones up to 4,000, a multiple of the wrk threads. */
const CLAIMS = Math.min(SEED, 4_000) - (Math.min(SEED, 4_000) % threads)
/** wrk's and autocannon's per-request timeout, in seconds (autocannon's default). */
const TIMEOUT_S = 10
const runId = Math.random().toString(36).slice(2, 8)
const sh = (cmd: string[]): string => {
  const r = Bun.spawnSync(cmd, { cwd: root })
  return new TextDecoder().decode(r.stdout.length > 0 ? r.stdout : r.stderr).trim()
}

/** Connections per instance: all of them for one, halves for two (the first takes an odd one). */
const connectionShares = (): readonly number[] =>
  instances === 1 ? [connections] : [Math.ceil(connections / 2), Math.floor(connections / 2)]
if (loadTool === "wrk" && connectionShares().some((c) => c < threads)) {
  throw new Error(`wrk needs at least as many connections as threads (${threads}) per load`)
}

// ---- database ---------------------------------------------------------------------------------

interface Database {
  /** For the machine line under the table (SQLite's is completed from the servers' `listening` lines). */
  readonly describe: string
  /** The `--db` value of a target. */
  readonly dbFor: (target: TargetName) => string
  readonly drop: () => Promise<void>
}

/** Runs one statement on the admin database over a single connection, answering its rows. */
const adminQuery = (url: string, statement: string): Promise<ReadonlyArray<Record<string, unknown>>> =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.scoped
    )
  )

/** A fresh PostgreSQL database beside the admin one; `drop` forces off any connection left behind. */
const createPgDatabase = async (url: string): Promise<Database> => {
  const name = `enc_bench_${randomBytes(6).toString("hex")}`
  const version = String((await adminQuery(url, "SHOW server_version"))[0]?.server_version ?? "unknown version")
  await adminQuery(url, `CREATE DATABASE ${name}`)
  console.error(`created database ${name}`)
  const pool = `pool size ${poolSize ?? "10 (default)"}`
  const db = databaseUrl(url, name)
  return {
    dbFor: () => db,
    describe:
      `PostgreSQL ${version} at ${new URL(url).host} (fresh database, dropped after); ` +
      (instances === 1 ? `1 instance, ${pool}` : `${instances} instances, ${pool} each`),
    drop: async () => {
      await adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      console.error(`dropped database ${name}`)
    }
  }
}

/** One fresh SQLite file per target in the temp folder. */
const sqliteDatabase = (dir: string): Database => ({
  dbFor: (target) => join(dir, `${target}.sqlite`),
  describe: "SQLite",
  drop: async () => {}
})

// ---- servers ----------------------------------------------------------------------------------

interface Server {
  readonly target: TargetName
  /** "encounterd", "encounterd instance 2", "bun-ref", ... */
  readonly label: string
  readonly proc: Bun.Subprocess
  readonly url: string
  /** encounterd: the first-run key (first instance on an empty database only); references: their key. */
  readonly key: string | undefined
  readonly pid: number
  readonly synchronous: string
  readonly logPath: string
  readonly errPath: string
}

if (flags.binary && targetNames.includes("encounterd")) ensureBinary()
// The references take encounterd's compat builder from a bundle of the checkout's sources.
if (targetNames.some((t) => !isEncounterd(t))) await buildCompat()

/** With --binary, the baseline runs as its own compiled binary too (built in its worktree, `baselineBinary`). */
const commandOf = (target: "encounterd" | "baseline", args: ReadonlyArray<string>, baselineRoot: string | undefined): string[] =>
  target === "encounterd"
    ? encounterdCommand(flags.binary, args)
    : flags.binary
      ? [join(baselineRoot ?? "", "dist/encounterd"), ...args]
      : [process.execPath, join(baselineRoot ?? "", "bin/main.ts"), ...args]

const readLines = (path: string): Record<string, unknown>[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)

interface Ready {
  readonly url: string
  readonly key: string | undefined
  readonly pid: number | undefined
  readonly synchronous: string
}

/**
 * Spawns a server with stdout (one log line per request, for encounterd) going to a file, so it
 * never blocks on a full pipe, and polls that file until `ready` recognizes its start-up lines.
 */
const spawnServer = async (
  target: TargetName,
  label: string,
  cmd: string[],
  dir: string,
  ready: (lines: Record<string, unknown>[]) => Ready | undefined
): Promise<Server> => {
  const file = label.replace(/\s+/g, "-")
  const logPath = join(dir, `${file}.log`)
  const errPath = join(dir, `${file}.err`)
  const proc = Bun.spawn(cmd, { cwd: root, stdout: openSync(logPath, "w"), stderr: openSync(errPath, "w") })
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${label} exited ${proc.exitCode}: ${readFileSync(errPath, "utf8")}`)
    let found: Ready | undefined
    try {
      found = ready(completeLines(logPath))
    } catch (e) {
      proc.kill("SIGKILL")
      throw e
    }
    if (found !== undefined) {
      return {
        target,
        label,
        proc,
        url: found.url,
        key: found.key,
        pid: found.pid ?? proc.pid,
        synchronous: found.synchronous,
        logPath,
        errPath
      }
    }
    await Bun.sleep(50)
  }
  proc.kill("SIGKILL")
  throw new Error(`${label} did not print its start-up lines within 30 s: ${readFileSync(errPath, "utf8")}`)
}

/**
 * Starts encounterd instance `n` (1-based) and waits for its `listening` line. Instance 1 starts on
 * an empty database and must also print the first-run key; any later instance must not.
 */
const startEncounterd = (
  dir: string,
  database: Database,
  n: number,
  target: "encounterd" | "baseline" = "encounterd",
  baselineRoot?: string
): Promise<Server> => {
  const args = ["serve", "--port", "0", "--db", database.dbFor(target), "--rate-limit", "0"]
  if (flags.synchronous !== undefined) args.push("--synchronous", flags.synchronous)
  if (poolSize !== undefined) args.push("--pool-size", poolSize)
  const cmd = commandOf(target, args, baselineRoot)
  const label = n === 1 ? shown(target) : `${shown(target)} instance ${n}`
  const expectKey = n === 1
  return spawnServer(target, label, cmd, dir, (lines) => {
    const first = lines.find((l) => l.first_run === true)
    const listening = lines.find((l) => l.msg === "listening")
    if (listening === undefined || (first === undefined && expectKey)) return undefined
    if (first !== undefined && !expectKey) throw new Error(`${label} printed a first-run key on a database already set up`)
    return {
      url: String(listening.url),
      key: first === undefined ? undefined : String(first.key),
      pid: typeof listening.pid === "number" ? listening.pid : undefined,
      synchronous: String(listening.synchronous ?? "FULL")
    }
  })
}

/** Starts a reference server: it prints one `listening` line with its URL, key, pid and synchronous setting. */
const startReference = (dir: string, database: Database, target: ReferenceName): Promise<Server> => {
  const entry = join(root, referenceFiles[target])
  const runtime = target === "fastify-ref" ? "node" : process.execPath
  // The references keep encounterd's audit log (equal work); bun-ref-noaudit shows what it costs them.
  const cmd = [runtime, entry, "--port", "0", "--db", database.dbFor(target), "--synchronous", "NORMAL", "--audit", target === "bun-ref-noaudit" ? "off" : "on"]
  return spawnServer(target, target, cmd, dir, (lines) => {
    const listening = lines.find((l) => l.msg === "listening")
    if (listening === undefined) return undefined
    if (typeof listening.url !== "string" || typeof listening.key !== "string") {
      throw new Error(`${target}: its listening line has no url or key: ${JSON.stringify(listening)}`)
    }
    return {
      url: listening.url,
      key: listening.key,
      pid: typeof listening.pid === "number" ? listening.pid : undefined,
      synchronous: String(listening.synchronous ?? "unknown")
    }
  })
}

/** A field of `/proc/<pid>/status` given in kB (`VmHWM`, `VmRSS`), in MiB. */
const statusMiB = (pid: number, field: "VmHWM" | "VmRSS"): number => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return m?.[1] !== undefined ? Number(m[1]) / 1024 : Number.NaN
}

/** Peak resident set (VmHWM, the high-water mark since start or since `resetPeakRss`), in MiB. */
const peakRssMiB = (pid: number): number => statusMiB(pid, "VmHWM")

/** Sets the process's VmHWM back to its resident set now (Linux: 5 written to /proc/<pid>/clear_refs), so the next read is one run's peak. */
const resetPeakRss = (pid: number): void => writeFileSync(`/proc/${pid}/clear_refs`, "5")

/** Resident set now (VmRSS), in MiB. */
const rssMiB = (pid: number): number => statusMiB(pid, "VmRSS")

// ---- seeding ----------------------------------------------------------------------------------

const seed = (server: Server, key: string): Promise<string[]> =>
  createEncounters(server.url, key, Array.from({ length: SEED }, (_, n) => `seed-${runId}-${n}`), `${server.label}: seed`)

// ---- load -------------------------------------------------------------------------------------

interface LoadConfig {
  readonly path: string
  readonly method?: "GET" | "POST"
  readonly body?: string
  readonly uniqueBody?: { readonly template: Record<string, unknown>; readonly prefix: string }
  /** Requests taken in turn instead of `path` and `body` (wrk: thread t of n takes entries t, t + n, ...). */
  readonly sequence?: ReadonlyArray<SequencedRequest>
  /** Another key than the target's (a `claims:write` one). */
  readonly key?: string
  /**
   * Each request of `sequence` may be sent once (a correction: a second one is refused): two
   * instances' loads take disjoint shares of it (entries i, i + 2, ...) instead of the whole.
   */
  readonly once?: boolean
}

/** One load process's figures, whichever tool made them. */
interface LoadResult {
  readonly reqPerSec: number
  readonly total: number
  /** Milliseconds. */
  readonly p50: number
  readonly p99: number
  readonly p999: number
  /** autocannon: every answer outside 2xx; wrk: 4xx and 5xx (its `errors.status`). */
  readonly non2xx: number
  /** Socket errors (connect, read, write). */
  readonly errors: number
  readonly timeouts: number
  /** Answers per status code (autocannon only: wrk does not count them without a per-response hook). */
  readonly statusCodes: Readonly<Record<string, number>> | undefined
}

/** Load processes still running, for the cleanup after Ctrl-C. */
const loads = new Set<Bun.Subprocess>()

const spawnLoad = async (cmd: string[], input: string | undefined, what: string): Promise<string> => {
  const proc = Bun.spawn(cmd, { cwd: root, stdin: input === undefined ? "ignore" : "pipe", stdout: "pipe", stderr: "inherit" })
  loads.add(proc)
  try {
    if (input !== undefined && proc.stdin !== undefined) {
      proc.stdin.write(input)
      await proc.stdin.end()
    }
    const out = await new Response(proc.stdout).text()
    const code = await proc.exited
    if (code !== 0) throw new Error(`${what} exited ${code}: ${out}`)
    return out
  } finally {
    loads.delete(proc)
  }
}

interface AutocannonResult {
  readonly requests: { readonly mean: number; readonly total: number }
  readonly latency: { readonly p50: number; readonly p99: number; readonly p99_9: number }
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly statusCodeStats: Record<string, { readonly count: number }>
}

const runAutocannon = async (url: string, key: string, scenario: LoadConfig, conns: number): Promise<LoadResult> => {
  const config = {
    url: `${url}${scenario.path}`,
    connections: conns,
    duration,
    method: scenario.method ?? "GET",
    headers: { authorization: `Bearer ${scenario.key ?? key}`, "content-type": "application/json" },
    ...(scenario.body !== undefined ? { body: scenario.body } : {}),
    ...(scenario.uniqueBody !== undefined ? { uniqueBody: scenario.uniqueBody } : {}),
    ...(scenario.sequence !== undefined ? { sequence: scenario.sequence } : {})
  }
  const out = await spawnLoad(["node", join(root, "bench/load.mjs")], JSON.stringify(config), `load.mjs for ${scenario.path}`)
  const r = JSON.parse(out) as AutocannonResult
  return {
    reqPerSec: r.requests.mean,
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    p999: r.latency.p99_9,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, { count }]) => [code, count]))
  }
}

/** A Lua string literal holding `s` as is: a long bracket whose level does not occur in `s`. */
const luaLong = (s: string): string => {
  let eq = ""
  while (s.includes(`]${eq}]`)) eq += "="
  return `[${eq}[${s}]${eq}]`
}
const luaQuoted = (s: string): string => JSON.stringify(s)

const EXTERNAL_ID_MARK = "\u0000external_id\u0000"

/**
 * The wrk script of one run: method, headers and a fixed body set once (wrk then reuses one built
 * request), or, for unique creates, a `request` function that concatenates the body around a
 * per-thread `external_id` (prefix, thread number, counter). `done` prints one JSON line.
 */
const wrkScript = (key: string, scenario: LoadConfig, sequenceFile: string): string => {
  const lines = [
    `wrk.method = ${luaQuoted(scenario.method ?? "GET")}`,
    `wrk.headers["Authorization"] = ${luaQuoted(`Bearer ${scenario.key ?? key}`)}`,
    `wrk.headers["Content-Type"] = "application/json"`
  ]
  if (scenario.body !== undefined) lines.push(`wrk.body = ${luaLong(scenario.body)}`)
  if (scenario.sequence !== undefined) {
    // Each thread reads its share of the sequence from a file once (entries tid, tid + n, ...) and cycles through it.
    const requests = scenario.sequence.map((r) => ({ method: r.method ?? scenario.method ?? "GET", path: r.path, body: r.body }))
    lines.push(...wrkRequestsFromFile(sequenceFile, requests, threads))
  }
  if (scenario.uniqueBody !== undefined) {
    const json = JSON.stringify({ ...scenario.uniqueBody.template, external_id: EXTERNAL_ID_MARK })
    const [head, tail] = json.split(JSON.stringify(EXTERNAL_ID_MARK))
    if (head === undefined || tail === undefined) throw new Error("unique body template without its external_id")
    lines.push(
      `local head = ${luaLong(`${head}"`)}`,
      `local tail = ${luaLong(`"${tail}`)}`,
      `local prefix = ${luaQuoted(scenario.uniqueBody.prefix)}`,
      "local threads = 0",
      "function setup(thread)",
      "  threads = threads + 1",
      '  thread:set("tid", threads)',
      "end",
      "local tag = prefix",
      "local counter = 0",
      "function init(args)",
      '  tag = prefix .. "-t" .. tostring(tid) .. "-"',
      "end",
      "function request()",
      "  counter = counter + 1",
      "  return wrk.format(nil, nil, nil, head .. tag .. counter .. tail)",
      "end"
    )
  }
  lines.push(
    "function done(summary, latency, requests)",
    "  local e = summary.errors",
    "  local seconds = summary.duration / 1e6",
    "  io.write(string.format(",
    `    '{"requests":%d,"duration_s":%.6f,"req_per_sec":%.3f,"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d},"non2xx":%d,"p50_ms":%.3f,"p99_ms":%.3f,"p999_ms":%.3f}\\n',`,
    "    summary.requests, seconds, summary.requests / seconds, e.connect, e.read, e.write, e.timeout, e.status, e.status,",
    "    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000))",
    "end"
  )
  return `${lines.join("\n")}\n`
}

interface WrkSummary {
  readonly requests: number
  readonly duration_s: number
  readonly req_per_sec: number
  readonly errors: { readonly connect: number; readonly read: number; readonly write: number; readonly timeout: number; readonly status: number }
  readonly non2xx: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly p999_ms: number
}

let scriptCount = 0
const runWrk = async (dir: string, url: string, key: string, scenario: LoadConfig, conns: number): Promise<LoadResult> => {
  const script = join(dir, `wrk-${++scriptCount}.lua`)
  writeFileSync(script, wrkScript(key, scenario, join(dir, `wrk-${scriptCount}.seq`)))
  const cmd = [wrkPath ?? "wrk", `-t${threads}`, `-c${conns}`, `-d${duration}s`, "--timeout", `${TIMEOUT_S}s`, "--latency", "-s", script, `${url}${scenario.path}`]
  const out = await spawnLoad(cmd, undefined, `wrk for ${scenario.path}`)
  const line = out.split("\n").filter((l) => l.startsWith("{")).at(-1)
  if (line === undefined) throw new Error(`wrk printed no summary line for ${scenario.path}:\n${out}`)
  const s = JSON.parse(line) as WrkSummary
  return {
    reqPerSec: s.req_per_sec,
    total: s.requests,
    p50: s.p50_ms,
    p99: s.p99_ms,
    p999: s.p999_ms,
    non2xx: s.non2xx,
    errors: s.errors.connect + s.errors.read + s.errors.write,
    timeouts: s.errors.timeout,
    statusCodes: undefined
  }
}

/**
 * The loads of one run, one per instance, run at the same time and read as one: req/s, counts and
 * status codes summed, the worse (higher) of the loads' percentiles.
 */
interface Combined extends LoadResult {
  /** Each load's req/s. */
  readonly perInstance: readonly number[]
  /** The server process(es)' CPU time (user + system, from /proc/<pid>/stat) over the run, in µs per request answered. */
  readonly cpuPerRequest?: number
}

const combine = (results: readonly LoadResult[]): Combined => {
  const sum = (f: (r: LoadResult) => number) => results.reduce((acc, r) => acc + f(r), 0)
  let statusCodes: Record<string, number> | undefined
  for (const r of results) {
    if (r.statusCodes === undefined) continue
    statusCodes ??= {}
    for (const [code, count] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count
  }
  return {
    reqPerSec: sum((r) => r.reqPerSec),
    perInstance: results.map((r) => r.reqPerSec),
    total: sum((r) => r.total),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    p999: Math.max(...results.map((r) => r.p999)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes
  }
}

// ---- scenarios --------------------------------------------------------------------------------

interface Target {
  readonly name: TargetName
  /** One server, or two encounterd instances on one PostgreSQL database. */
  readonly servers: readonly Server[]
  readonly key: string
  /** Seeded encounter ids. */
  readonly ids: readonly string[]
  /** A key with the `claims:write` scope (the references' only key has it). */
  readonly writeKey: string
  /** The latest claims of the seeded encounters, as many as a multiple of the wrk threads. */
  readonly claims: readonly string[]
}

interface Scenario {
  readonly name: string
  readonly unique: boolean
  readonly config: (target: Target, round: number) => LoadConfig | Promise<LoadConfig>
  /** Runs after each run on a target (not timed), with the run's figures. */
  readonly after?: (target: Target, result: Combined) => Promise<void>
  /**
   * The targets that have the scenario's routes, when not all do (routes newer than the references
   * and an older --baseline build): it runs on these alone, and the table shows "—" for the others.
   */
  readonly only?: ReadonlyArray<TargetName>
}

const runsOn = (s: Scenario, t: TargetName): boolean => s.only === undefined || s.only.includes(t)

/** Pages of the event feed the follow scenario cycles through. */
const FEED_PAGES = 50

const allScenarios: readonly Scenario[] = [
  {
    name: "create (unique)",
    unique: true,
    // A prefix per round: a later round on the same database must not replay an earlier one.
    config: (_t, round) => ({
      path: "/api/encounters",
      method: "POST",
      uniqueBody: { template: validPayload("x"), prefix: `load-${runId}-r${round + 1}` }
    })
  },
  {
    name: "create (replay)",
    unique: false,
    config: () => ({ path: "/api/encounters", method: "POST", body: JSON.stringify(validPayload(`seed-${runId}-0`)) })
  },
  { name: "list page (100)", unique: false, config: () => ({ path: "/api/encounters?limit=100" }) },
  { name: "one read", unique: false, config: (t) => ({ path: `/api/encounters/${t.ids[0] ?? ""}` }) },
  {
    name: "one read (random ids)",
    unique: false,
    // Every seeded encounter in a shuffled order: what a cache of recent reads meets outside a hot id.
    config: (t) => ({ path: `/api/encounters/${t.ids[0] ?? ""}`, sequence: shuffled(t.ids).map((id) => ({ path: `/api/encounters/${id}` })) })
  },
  { name: "compat list page (100)", unique: false, config: () => ({ path: "/api/encounters/compat-version?limit=100" }) },
  { name: "compat one read", unique: false, config: (t) => ({ path: `/api/encounters/compat-version/${t.ids[0] ?? ""}` }) },
  {
    name: "claim status change",
    unique: false,
    // Every request moves a claim to the other status of the cycle (and writes its event); afterwards all go back to draft.
    config: (t) => ({ path: "/api/claims", method: "POST", key: t.writeKey, sequence: statusSequence(t.claims) }),
    after: async (t) => {
      for (const server of t.servers) await resetClaims(server.url, t.writeKey, t.claims)
    }
  },
  { name: "event poll (100)", unique: false, config: () => ({ path: "/api/encounters/compat-version/events?limit=100" }) },
  {
    name: "event poll (follow)",
    unique: false,
    // The first FEED_PAGES pages, each by the previous page's next_page_token, read in turn.
    config: async (t) => {
      const first = t.servers[0]
      if (first === undefined) throw new Error(`${t.name}: no server`)
      const sequence = await feedPages(first.url, t.key, FEED_PAGES)
      return { path: "/api/encounters/compat-version/events?limit=100", sequence }
    }
  },
  {
    name: `mixed (${MIX.read} % reads, ${MIX.list} % lists, ${MIX.create} % creates, ${MIX.move} % moves, ${MIX.poll} % polls)`,
    unique: false,
    // One cycled sequence of MIXED_LENGTH requests over random seeded encounters; creates carry
    // external ids of their own per round (a second pass of the cycle replays them: answered 200).
    config: (t, round) => {
      const template = validPayload("x")
      const body = (n: number) => JSON.stringify({ ...template, external_id: `mixed-${runId}-r${round + 1}-${n}` })
      return { path: "/api/encounters", key: t.writeKey, sequence: mixedSequence(t.ids, t.claims, body, MIXED_LENGTH) }
    },
    after: async (t) => {
      for (const server of t.servers) await resetClaims(server.url, t.writeKey, t.claims.slice(0, Math.ceil((MIXED_LENGTH * MIX.move) / 200)))
    }
  },
  // The last two run last: the encounters made for their pool (encounterd only) would otherwise
  // give encounterd a larger table than the references' in the scenarios after them.
  {
    name: "task list page (100)",
    unique: false,
    only: ["encounterd"],
    // The work queue's first page over TASK_POOL open tasks, made as users get them (claims
    // rejected through the status API, untimed); checked to list a full page before every run.
    config: async (t) => {
      await poolOf(t, TASK_POOL)
      await checkTaskPage(firstServer(t).url, t.key, TASK_PAGE, 100)
      return { path: TASK_PAGE }
    }
  },
  {
    name: "claim correction",
    unique: false,
    only: ["encounterd"],
    // A resubmit of a different rejected claim per request (a claim takes one correction: a second
    // answers 409); afterwards the claims the run made are rejected in turn (untimed).
    config: async (t) => {
      const pool = await poolOf(t, CORRECTION_POOL)
      return { path: "/api/claims", method: "POST", key: t.writeKey, sequence: correctionSequence(pool), once: true }
    },
    after: async (t, result) => {
      const pool = await poolOf(t, CORRECTION_POOL)
      const started = performance.now()
      const corrected = await refillPool(firstServer(t).url, t.key, t.writeKey, pool, POOL_PREFIX)
      console.error(
        `${t.name}: ${corrected} of the pool's ${pool.claims.length} claims corrected (${result.total} requests answered); ` +
          `their new claims rejected again in ${fmt((performance.now() - started) / 1000)} s`
      )
      if (result.total >= pool.claims.length || result.non2xx > 0) {
        console.error(`${t.name}: the correction pool may have run out (${result.non2xx} answers outside 2xx): raise CORRECTIONS_PER_S`)
      }
      // A faster machine than the pool was sized for: later rounds get half as much again as this one asked for.
      await poolOf(t, inLanes(Math.max(corrected, result.total) * 1.5))
    }
  }
]

/** The mixed scenario's cycle: long enough that a 5 s run at a few thousand req/s rarely comes round again. */
const MIXED_LENGTH = 20_000

// ---- the work queue and corrections (encounterd only) ------------------------------------------

const TASK_PAGE = "/api/tasks?limit=100"
/** Open tasks under the task list: a few thousand, so its page is a small part of the queue. */
const TASK_POOL = 3_000
/**
 * Corrections per second the pool is sized for: a claim corrected twice answers 409, so the pool
 * holds this many claims per second of a run, a multiple of the wrk threads and instances (equal
 * shares that run out together). A correction is a write: 1.1 to 2.3k/s on a 2-core machine, where
 * one run corrected 79 % of a pool of 3,000 per second; faster machines need the headroom.
 */
const CORRECTIONS_PER_S = 4_000
/** `n` rounded up to a multiple of the lanes the load takes a sequence in (wrk threads of each instance). */
const inLanes = (n: number): number => {
  const lanes = threads * instances
  return Math.ceil(n / lanes) * lanes
}
const CORRECTION_POOL = inLanes(duration * CORRECTIONS_PER_S)

const firstServer = (t: Target): Server => {
  const first = t.servers[0]
  if (first === undefined) throw new Error(`${t.name}: no server`)
  return first
}

/** The external ids of the pool's encounters start with it (and no others' do: the pool is read back by it). */
const POOL_PREFIX = `pool-${runId}-`

/** Each target's pool of rejected claims (bench/claim-pool.ts), shared by the two scenarios. */
const pools = new Map<TargetName, ClaimPool>()

/** The target's pool, grown to at least `size` claims on its first server (instances share one database). */
const poolOf = async (t: Target, size: number): Promise<ClaimPool> => {
  const pool = pools.get(t.name) ?? { encounters: [], claims: [] }
  pools.set(t.name, pool)
  const had = pool.claims.length
  if (had < size) {
    const started = performance.now()
    await growPool(firstServer(t).url, t.key, t.writeKey, pool, size, POOL_PREFIX)
    console.error(
      `${t.name}: ${size - had} encounters made for the claim pool, their claims moved to rejected, in ${fmt((performance.now() - started) / 1000)} s (untimed)`
    )
  }
  return pool
}

const scenarioWords = flags.scenarios?.split(",").map((w) => w.trim()).filter((w) => w !== "")
const scenarios: readonly Scenario[] =
  scenarioWords === undefined
    ? allScenarios
    : allScenarios.filter((s) => scenarioWords.some((w) => (allScenarios.some((x) => x.name === w) ? s.name === w : s.name.includes(w))))
if (scenarios.length === 0) throw new Error(`--scenarios matches none of: ${allScenarios.map((s) => s.name).join(", ")}`)

/**
 * A scenario as sent to instance `i`: unique creates get a prefix per instance, so two loads
 * never send the same `external_id` (which would turn creates into replays), and a sequence of
 * requests that may be sent once is split between the instances.
 */
const forInstance = (scenario: LoadConfig, i: number, of: number): LoadConfig => {
  if (of === 1) return scenario
  if (scenario.once === true && scenario.sequence !== undefined) {
    return { ...scenario, sequence: scenario.sequence.filter((_, j) => j % of === i) }
  }
  return scenario.uniqueBody === undefined
    ? scenario
    : { ...scenario, uniqueBody: { ...scenario.uniqueBody, prefix: `${scenario.uniqueBody.prefix}-i${i + 1}` } }
}

/** One run of a scenario on one target: a load per instance, all at once. */
const runOnce = async (dir: string, target: Target, config: LoadConfig): Promise<Combined> => {
  const shares = connectionShares()
  const of = target.servers.length
  const cpuBefore = target.servers.reduce((acc, s) => acc + cpuMicros(s.pid), 0)
  const results = await Promise.all(
    target.servers.map((server, i) => {
      const c = forInstance(config, i, of)
      const conns = of === 1 ? connections : (shares[i] ?? 0)
      return loadTool === "wrk" ? runWrk(dir, server.url, target.key, c, conns) : runAutocannon(server.url, target.key, c, conns)
    })
  )
  const cpu = target.servers.reduce((acc, s) => acc + cpuMicros(s.pid), 0) - cpuBefore
  const combined = combine(results)
  return { ...combined, cpuPerRequest: combined.total > 0 ? cpu / combined.total : Number.NaN }
}

/** After a run: every server of the target still runs and answers an authenticated read. */
const checkAlive = async (target: Target, after: string): Promise<void> => {
  for (const server of target.servers) {
    if (server.proc.exitCode !== null) throw new Error(`${server.label} exited ${server.proc.exitCode} during ${after}`)
    const res = await fetch(`${server.url}/api/encounters?limit=1`, { headers: { authorization: `Bearer ${target.key}` } })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${server.label} answered ${res.status} to a list read after ${after}`)
  }
}

interface Cell {
  /** Every round's run, in round order. */
  readonly runs: Combined[]
  /** The target's highest instance VmHWM read after its run, per round. */
  readonly rss: number[]
  /** Its instances' resident set (VmRSS, the highest) when the peak was set back, per round: where the run started from. */
  readonly startRss: number[]
}

const best = (cell: Cell): Combined => {
  const [first, ...rest] = cell.runs
  if (first === undefined) throw new Error("a cell without runs")
  return rest.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a), first)
}

/** Each round's server CPU per request, for the rounds that have one. */
const roundsCpu = (cell: Cell): number[] => cell.runs.map((r) => r.cpuPerRequest ?? Number.NaN).filter((x) => !Number.isNaN(x))

/** The lowest server CPU per request over the rounds (CPU time per request is what load from other processes inflates least). */
const cpuOf = (cell: Cell | undefined): number => (cell === undefined ? Number.NaN : Math.min(...roundsCpu(cell)))

/**
 * The same server's CPU per request in its highest round over its lowest: a server does the same
 * work each round, so a wide spread is the machine's speed moving under it (other tenants of a VM)
 * or a first round still compiling, and a ratio taken from such a row says less about the servers.
 */
const cpuSpread = (cell: Cell): number => {
  const cpu = roundsCpu(cell).filter((x) => x > 0)
  return cpu.length < 2 ? Number.NaN : Math.max(...cpu) / Math.min(...cpu)
}

/** A spread above this flags the row in the report's notes. */
const UNSTEADY_SPREAD = 1.25

/** The note naming the rows whose rounds ran at unsteady speeds, or none. */
const unsteadyNote = (cells: ReadonlyMap<string, ReadonlyMap<TargetName, Cell>>): string | undefined => {
  const rows = [...cells].flatMap(([name, row]) => {
    const wide = [...row]
      .map(([t, cell]) => ({ t, spread: cpuSpread(cell) }))
      .filter(({ spread }) => spread > UNSTEADY_SPREAD)
      .map(({ t, spread }) => `${shown(t)} ${fmt(spread, 2)}`)
    return wide.length === 0 ? [] : [`${name} (${wide.join(", ")})`]
  })
  return rows.length === 0
    ? undefined
    : `Unsteady rounds: the same server's CPU µs/req in its highest round over its lowest exceeded ${UNSTEADY_SPREAD} in ${rows.join("; ")}. ` +
        "A server does the same work each round, so the machine's speed moved (or a first round was still compiling): ratios on these rows are weaker evidence than the others."
}

// ---- report -----------------------------------------------------------------------------------

/** The PostgreSQL table: encounterd alone, one or two instances, as before the side-by-side mode. */
const singleTable = (rows: ReadonlyArray<{ name: string; result: Combined; rss: number }>): string =>
  [
    instances === 1
      ? "| scenario | req/s | server CPU µs/req | p50 ms | p99 ms | non-2xx | errors / timeouts | peak RSS MiB |"
      : "| scenario | req/s (sum of 2) | server CPU µs/req (both) | p50 ms (worse of 2) | p99 ms (worse of 2) | non-2xx | errors / timeouts | peak RSS MiB (max of 2) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      ({ name, result: r, rss }) =>
        `| ${name} | ${fmt(r.reqPerSec, 0)} | ${fmt(r.cpuPerRequest ?? Number.NaN, 0)} | ${fmt(r.p50, 0)} | ${fmt(r.p99, 0)} | ${r.non2xx} | ${r.errors} / ${r.timeouts} | ${fmt(rss)} |`
    )
  ].join("\n")

/** A table cell of a target the scenario does not run on (its route is newer than that server). */
const NOT_RUN = "—"
const shownOr = (n: number | undefined, digits: number): string => (n === undefined ? NOT_RUN : fmt(n, digits))

/** The side-by-side table: best req/s of each target, encounterd's latency, encounterd ÷ fastify-ref. */
const sideBySideTable = (cells: ReadonlyMap<string, ReadonlyMap<TargetName, Cell>>): string => {
  const withEnc = targetNames.includes("encounterd")
  const withRatio = withEnc && targetNames.includes("fastify-ref")
  const withBunRatio = withEnc && targetNames.includes("bun-ref")
  const withBaseRatio = withEnc && targetNames.includes("baseline")
  const of = rounds === 1 ? "" : ` (best of ${rounds})`
  const cpuOfRounds = rounds === 1 ? "" : ` (lowest of ${rounds})`
  const header = [
    "scenario",
    ...targetNames.map((t) => `${shown(t)} req/s${of}`),
    ...targetNames.map((t) => `${shown(t)} CPU µs/req${cpuOfRounds}`),
    ...targetNames.map((t) => `${shown(t)} p99 ms`),
    ...(withEnc ? ["encounterd p50 ms", "encounterd p99.9 ms"] : []),
    ...(withBaseRatio ? [`encounterd ÷ ${shown("baseline")}`] : []),
    ...(withBunRatio ? ["encounterd ÷ bun-ref"] : []),
    ...(withRatio ? ["encounterd ÷ fastify-ref"] : []),
    "non-2xx / errors / timeouts (all runs)"
  ]
  const lines = [`| ${header.join(" | ")} |`, `|---|${header.slice(1).map(() => "---:").join("|")}|`]
  for (const s of scenarios) {
    const row = cells.get(s.name)
    if (row === undefined) continue
    const bestOf = (t: TargetName) => {
      const cell = row.get(t)
      return cell === undefined ? undefined : best(cell)
    }
    const enc = bestOf("encounterd")
    const fastify = bestOf("fastify-ref")
    const bunRef = bestOf("bun-ref")
    const base = bestOf("baseline")
    const all = [...row.values()].flatMap((c) => c.runs)
    const sum = (f: (r: Combined) => number) => all.reduce((acc, r) => acc + f(r), 0)
    const ratio = (a: Combined | undefined, b: Combined | undefined) => (a === undefined || b === undefined ? NOT_RUN : fmt(a.reqPerSec / b.reqPerSec, 2))
    // Every column keeps its place: a target the scenario did not run on shows NOT_RUN.
    const values = [
      s.name,
      ...targetNames.map((t) => shownOr(bestOf(t)?.reqPerSec, 0)),
      ...targetNames.map((t) => shownOr(row.has(t) ? cpuOf(row.get(t)) : undefined, 0)),
      ...targetNames.map((t) => shownOr(bestOf(t)?.p99, 1)),
      ...(withEnc ? [shownOr(enc?.p50, 1), shownOr(enc?.p999, 1)] : []),
      ...(withBaseRatio ? [ratio(enc, base)] : []),
      ...(withBunRatio ? [ratio(enc, bunRef)] : []),
      ...(withRatio ? [ratio(enc, fastify)] : []),
      `${sum((r) => r.non2xx)} / ${sum((r) => r.errors)} / ${sum((r) => r.timeouts)}`
    ]
    lines.push(`| ${values.join(" | ")} |`)
  }
  return lines.join("\n")
}

/**
 * Peak RSS by scenario: each target's highest peak over its rounds of the scenario, what starting
 * and seeding peaked at, and the highest of them all.
 */
const rssTable = (cells: ReadonlyMap<string, ReadonlyMap<TargetName, Cell>>, seeding: ReadonlyMap<TargetName, number>): string => {
  const peakOf = (name: string, t: TargetName): number | undefined => {
    const cell = cells.get(name)?.get(t)
    return cell === undefined || cell.rss.length === 0 ? undefined : Math.max(...cell.rss)
  }
  // The highest round's peak, and in brackets the resident set that round started from.
  const shownPeak = (name: string, t: TargetName): string => {
    const cell = cells.get(name)?.get(t)
    if (cell === undefined || cell.rss.length === 0) return NOT_RUN
    const round = cell.rss.indexOf(Math.max(...cell.rss))
    return `${fmt(cell.rss[round] ?? Number.NaN)} (${fmt(cell.startRss[round] ?? Number.NaN)})`
  }
  const overall = (t: TargetName): number =>
    Math.max(seeding.get(t) ?? Number.NaN, ...scenarios.map((s) => peakOf(s.name, t) ?? 0))
  return [
    `| peak RSS MiB | ${targetNames.map(shown).join(" | ")} |`,
    `|---|${targetNames.map(() => "---:").join("|")}|`,
    `| start and seeding | ${targetNames.map((t) => fmt(seeding.get(t) ?? Number.NaN)).join(" | ")} |`,
    ...scenarios.map((s) => `| ${s.name} | ${targetNames.map((t) => shownPeak(s.name, t)).join(" | ")} |`),
    `| overall | ${targetNames.map((t) => fmt(overall(t))).join(" | ")} |`
  ].join("\n")
}

/** One status line per scenario: each target's rounds, requests, latency and answers. */
const statusLine = (name: string, row: ReadonlyMap<TargetName, Cell>): string => {
  const parts = targetNames.flatMap((t) => {
    const cell = row.get(t)
    if (cell === undefined) return []
    const b = best(cell)
    const roundsText =
      cell.runs.length === 1
        ? ""
        : ` (rounds: ${cell.runs.map((r) => `${fmt(r.reqPerSec, 0)} at ${fmt(r.cpuPerRequest ?? Number.NaN, 0)} µs`).join(", ")})`
    const requests = cell.runs.reduce((acc, r) => acc + r.total, 0)
    const codes = new Map<string, number>()
    for (const r of cell.runs) for (const [c, n] of Object.entries(r.statusCodes ?? {})) codes.set(c, (codes.get(c) ?? 0) + n)
    const statuses = codes.size === 0 ? "" : `; status ${[...codes].map(([c, n]) => `${c}×${n}`).join(", ")}`
    const split = b.perInstance.length === 1 ? "" : `; req/s per instance ${b.perInstance.map((x) => fmt(x, 0)).join(" + ")}`
    return [
      `${shown(t)} ${fmt(b.reqPerSec, 0)} req/s${roundsText}, p50 ${fmt(b.p50, 1)} / p99 ${fmt(b.p99, 1)} / p99.9 ${fmt(b.p999, 1)} ms, ${requests} requests${statuses}${split}`
    ]
  })
  return `- ${name}: ${parts.length === 0 ? "not run (no target has its routes)" : parts.join("; ")}`
}

/** Counts of 5xx answers, error-level lines and answers by method and status in encounterd's request log. */
const serverLogSummary = (logPath: string): string => {
  const lines = readLines(logPath)
  const fivexx = lines.filter((l) => typeof l.status === "number" && l.status >= 500).length
  const errors = lines.filter((l) => l.level === "error").length
  const statuses = new Map<string, number>()
  for (const l of lines) {
    if (l.msg !== "request") continue
    const k = `${String(l.method)} ${String(l.status)}`
    statuses.set(k, (statuses.get(k) ?? 0) + 1)
  }
  const tally = [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}×${n}`).join(", ")
  return `server log: ${lines.length} lines, ${fivexx} with status >= 500, ${errors} at level error; requests ${tally}`
}

const describeLoad = (): string => {
  const shares = connectionShares()
  const conns =
    instances === 1
      ? `${connections} connections`
      : `${connections} connections as two load processes of ${shares.join(" + ")}, one per instance, run together`
  if (loadTool === "wrk") {
    const version = /wrk\s+(\S+)/.exec(sh([wrkPath ?? "wrk", "-v"]))?.[1] ?? "unknown version"
    return `load: wrk ${version}, ${threads} threads per process, ${conns}, ${TIMEOUT_S} s timeout`
  }
  return `load: autocannon under node ${sh(["node", "--version"])}, ${conns}, ${TIMEOUT_S} s timeout`
}

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "encounterd-bench-"))
  const database = adminUrl === undefined ? sqliteDatabase(dir) : await createPgDatabase(adminUrl)
  const servers: Server[] = []
  const baseline = flags.baseline !== undefined && targetNames.includes("baseline") ? baselineSource(dir, flags.baseline) : undefined
  if (baseline !== undefined && flags.binary) buildBaselineBinary(baseline.root)
  let cleaned: Promise<void> | undefined
  // Kills what is still running, drops the database and removes the temp folder; once, also on Ctrl-C.
  const cleanup = () =>
    (cleaned ??= (async () => {
      for (const load of loads) load.kill("SIGKILL")
      for (const s of servers) if (s.proc.exitCode === null) s.proc.kill("SIGKILL")
      await Promise.all(servers.map((s) => s.proc.exited))
      await database.drop()
      baseline?.remove()
      rmSync(dir, { recursive: true, force: true })
    })())
  const interrupted = () => void cleanup().finally(() => process.exit(130))
  process.once("SIGINT", interrupted)
  process.once("SIGTERM", interrupted)

  try {
    // All targets start up front and stay up: the idle ones wait while another is loaded.
    const started: Array<{ name: TargetName; servers: Server[]; key: string }> = []
    for (const name of targetNames) {
      if (name === "encounterd") {
        const first = await startEncounterd(dir, database, 1)
        servers.push(first)
        if (first.key === undefined) throw new Error("encounterd printed no first-run key")
        const group = [first]
        for (let n = 2; n <= instances; n++) {
          const next = await startEncounterd(dir, database, n)
          servers.push(next)
          group.push(next)
        }
        started.push({ name, servers: group, key: first.key })
      } else if (name === "baseline") {
        const server = await startEncounterd(dir, database, 1, "baseline", baseline?.root)
        servers.push(server)
        if (server.key === undefined) throw new Error(`${server.label} printed no first-run key`)
        started.push({ name, servers: [server], key: server.key })
      } else {
        const server = await startReference(dir, database, name)
        servers.push(server)
        started.push({ name, servers: [server], key: server.key ?? "" })
      }
    }
    const targets: Target[] = []
    for (const t of started) {
      const [first] = t.servers
      if (first === undefined) throw new Error(`${t.name}: no server`)
      const ids = await seed(first, t.key)
      console.error(`${t.name}: seeded ${ids.length} encounters on ${t.servers.map((s) => `${s.url} (pid ${s.pid})`).join(" and ")}`)
      const writeKey = isEncounterd(t.name)
        ? encounterdWriteKey(commandOf(t.name, [], baseline?.root), database.dbFor(t.name))
        : t.key
      // A multiple of the wrk threads, so each thread keeps to its own claims (scenario-data.ts).
      const claims = await latestClaims(first.url, t.key, CLAIMS)
      targets.push({ ...t, ids, writeKey, claims })
    }

    // Each run's own peak: VmHWM is set back to the resident set before the run and read after it.
    // What starting and seeding peaked at is read before the first run.
    const readPeak = (target: Target): number => Math.max(...target.servers.map((s) => peakRssMiB(s.pid)))
    const resetPeak = (target: Target): void => target.servers.forEach((s) => resetPeakRss(s.pid))
    const seeding = new Map<TargetName, number>(targets.map((t) => [t.name, readPeak(t)]))
    const cells = new Map<string, Map<TargetName, Cell>>()
    for (const s of scenarios) {
      // Only the targets that have the scenario's routes get a cell; the others show "—".
      const mine = targets.filter((t) => runsOn(s, t.name))
      const row = new Map<TargetName, Cell>(mine.map((t) => [t.name, { runs: [], rss: [], startRss: [] }]))
      cells.set(s.name, row)
      if (mine.length === 0) console.error(`${s.name}: skipped, it runs on ${s.only?.join(", ") ?? "?"} only`)
      for (let round = 0; round < rounds; round++) {
        // Each round starts one target further along, so no target always runs first.
        const order = mine.map((_, i) => mine[(i + round) % mine.length]).filter((t) => t !== undefined)
        for (const target of order) {
          const shares = target.servers.length === 1 ? [connections] : connectionShares()
          console.error(
            `${s.name}: ${target.name}${rounds === 1 ? "" : `, round ${round + 1}/${rounds}`}, ${duration} s with ${shares.join(" + ")} connections (${loadTool})...`
          )
          const config = await s.config(target, round)
          await Bun.sleep(settleMs)
          resetPeak(target)
          const startRss = Math.max(...target.servers.map((s) => rssMiB(s.pid)))
          const result = await runOnce(dir, target, config)
          const peak = readPeak(target)
          await s.after?.(target, result)
          const cell = row.get(target.name)
          cell?.runs.push(result)
          if (s.unique) await checkAlive(target, s.name)
          else for (const server of target.servers) if (server.proc.exitCode !== null) throw new Error(`${server.label} exited during ${s.name}`)
          cell?.rss.push(peak)
          cell?.startRss.push(startRss)
          if (result.non2xx > 0) console.error(`${target.name}: ${result.non2xx} answers outside 2xx in ${s.name}`)
          await Bun.sleep(500)
        }
      }
    }

    const encounterd = targets.find((t) => t.name === "encounterd")
    const sync = targets.map((t) => `${t.name} ${t.servers[0]?.synchronous ?? "?"}`).join(", ")
    const db = adminUrl === undefined ? `SQLite, one fresh file per target, synchronous: ${sync}` : database.describe
    const from =
      (encounterd === undefined ? "" : `encounterd from ${flags.binary ? "binary (dist/encounterd)" : "source (bun bin/main.ts)"}; `) +
      (baseline === undefined ? "" : `${flags.baseline} from ${flags.binary ? "its own binary (built in its worktree)" : "source"}; `)
    const machine =
      `Machine: ${machineLine()}; ${db}; ${from}${describeLoad()}; ` +
      `${duration} s per run, ${rounds} round${rounds === 1 ? "" : "s"}; ${SEED} seeded encounters per target.`

    let tables: string
    const notes: string[] = []
    if (adminUrl !== undefined) {
      const rows = scenarios.flatMap((s) => {
        const cell = cells.get(s.name)?.get("encounterd")
        return cell === undefined ? [] : [{ name: s.name, result: best(cell), rss: Math.max(...cell.rss) }]
      })
      tables = singleTable(rows)
      notes.push(
        "Peak RSS is the scenario's own: VmHWM from /proc/<pid>/status, set back to the resident set (5 written to /proc/<pid>/clear_refs) before each run and read after it; the highest of the rounds."
      )
      if (instances === 2) {
        notes.push(
          "Two instances: req/s is the sum of the two loads'; p50 and p99 are the worse of the two loads'; " +
            "non-2xx, errors and timeouts are summed; peak RSS is the higher of the two instances'."
        )
      }
    } else {
      tables = `${sideBySideTable(cells)}\n\n${rssTable(cells, seeding)}`
      notes.push(
        rounds === 1
          ? "req/s: one run per target and scenario, the targets one after another under the same load."
          : `req/s: the best of ${rounds} rounds per target (each round runs the targets one after another, starting one target further along each time); p50/p99 are from that best run.`
      )
      const unsteady = rounds > 1 ? unsteadyNote(cells) : undefined
      if (unsteady !== undefined) notes.push(unsteady)
      notes.push(
        "CPU µs/req: the server process's CPU time (utime + stime from /proc/<pid>/stat) over the run, divided by the requests answered; " +
          "the lowest of the rounds, since load from other processes inflates it least."
      )
      if (targetNames.includes("encounterd") && targetNames.includes("bun-ref")) {
        notes.push("encounterd ÷ bun-ref: encounterd's req/s over bun-ref's (best rounds); the target is ≥ 0.90.")
      }
      if (targetNames.includes("encounterd") && targetNames.includes("fastify-ref")) {
        notes.push("encounterd ÷ fastify-ref: encounterd's req/s over fastify-ref's; ≥ 1.00 means at or above Fastify.")
      }
      const notRun = scenarios.filter((s) => targetNames.some((t) => !runsOn(s, t)))
      if (notRun.length > 0) {
        notes.push(
          `${NOT_RUN}: not run on that target; ${notRun.map((s) => `${s.name} runs on ${s.only?.map(shown).join(", ") ?? "?"} only`).join(", ")} ` +
            "(routes the reference servers and an older --baseline build do not have)."
        )
      }
      notes.push(
        "Peak RSS by scenario is each run's own: VmHWM from /proc/<pid>/status, set back to the resident set (5 written to /proc/<pid>/clear_refs) " +
          `before the run (${settleMs} ms after the scenario's set-up, --settle) and read after it, the highest of the rounds, with in brackets the resident set (VmRSS) that round started from; start and seeding is VmHWM before the first run; overall is the highest of the column.`
      )
    }
    notes.push(
      loadTool === "wrk"
        ? "wrk: req/s is requests ÷ run time; non-2xx counts the 4xx and 5xx answers (wrk's errors.status); latencies are wrk's percentiles."
        : "autocannon: req/s is the mean of per-second request counts; non-2xx counts every answer outside 2xx."
    )
    const statusLines = scenarios.flatMap((s) => {
      const row = cells.get(s.name)
      return row === undefined ? [] : [statusLine(s.name, row)]
    })
    const markdown = [tables, "", machine, "", ...notes, "", ...statusLines].join("\n")

    const exits = await Promise.all(servers.map((s) => stopServer(s.proc)))
    const shutdown = servers.map((server, i) => {
      const code = exits[i]
      const exit = code === 0 ? `SIGTERM: ${server.label} exited 0` : `SIGTERM: ${server.label} exit ${code} (expected 0)`
      return isEncounterd(server.target) ? `${exit}; ${serverLogSummary(server.logPath)}` : exit
    })
    const report = `${markdown}\n\n${shutdown.join("\n")}\n`
    console.log(report)
    mkdirSync(join(root, "bench/results"), { recursive: true })
    if (scenarios.length === allScenarios.length) writeFileSync(join(root, "bench/results/latest.md"), report)

    const failures = [
      ...[...cells].flatMap(([name, row]) =>
        [...row].flatMap(([t, cell]) => {
          const n = cell.runs.reduce((acc, r) => acc + r.non2xx, 0)
          return n > 0 ? [`${t} answered ${n} requests outside 2xx in ${name}`] : []
        })
      ),
      ...servers.flatMap((s, i) => (exits[i] === 0 ? [] : [`${s.label} did not exit 0 on SIGTERM (${exits[i]})`]))
    ]
    for (const f of failures) console.error(`FAILED: ${f}`)
    if (failures.length > 0) process.exitCode = 1
  } finally {
    await cleanup()
  }
}

await main()
