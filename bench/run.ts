/**
 * Load benchmark: starts encounterd on a fresh database (a temp SQLite file, or a scratch
 * PostgreSQL database), seeds 1,000 encounters, runs five autocannon scenarios one after another
 * (bench/load.mjs under Node) and prints a Markdown table, also written to bench/results/latest.md.
 *
 *   bun bench/run.ts [--binary] [--duration 10] [--connections 32] [--synchronous FULL|NORMAL]
 *                    [--postgres ADMIN_URL [--instances 1|2] [--pool-size N]]
 *
 * --postgres names a database to connect to for admin work (postgres://postgres@127.0.0.1:5432/postgres):
 * the bench creates `enc_bench_<random>` beside it, runs the server(s) there and drops it at the end.
 * --instances 2 starts a second server on that database once the first is ready; each scenario then
 * runs two autocannon loads at once, half the connections each, one per instance.
 */
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { validPayload } from "../test/support/payloads.js"
import { databaseUrl } from "../test/support/postgres.js"

const root = resolve(import.meta.dir, "..")
const { values: flags } = parseArgs({
  options: {
    binary: { type: "boolean", default: false },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    synchronous: { type: "string" },
    postgres: { type: "string" },
    instances: { type: "string", default: "1" },
    "pool-size": { type: "string" }
  }
})
const duration = Number(flags.duration)
const connections = Number(flags.connections)
const instances = Number(flags.instances)
const adminUrl = flags.postgres
const poolSize = flags["pool-size"]
if (!(duration > 0) || !(connections > 0)) throw new Error("--duration and --connections must be positive numbers")
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

const SEED = 1_000
const runId = Math.random().toString(36).slice(2, 8)
const sh = (cmd: string[]): string => new TextDecoder().decode(Bun.spawnSync(cmd, { cwd: root }).stdout).trim()

// ---- database ---------------------------------------------------------------------------------

interface Database {
  /** The server's `--db` value. */
  readonly db: string
  /** For the machine line under the table (SQLite's is completed from the server's `listening` line). */
  readonly describe: string
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
  return {
    db: databaseUrl(url, name),
    describe:
      `PostgreSQL ${version} at ${new URL(url).host} (fresh database, dropped after); ` +
      (instances === 1 ? `1 instance, ${pool}` : `${instances} instances, ${pool} each`),
    drop: async () => {
      await adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      console.error(`dropped database ${name}`)
    }
  }
}

const sqliteDatabase = (dir: string): Database => ({ db: join(dir, "bench.sqlite"), describe: "SQLite", drop: async () => {} })

// ---- server -----------------------------------------------------------------------------------

interface Server {
  readonly proc: Bun.Subprocess
  readonly url: string
  /** The first-run key: printed by the first instance on an empty database only. */
  readonly key: string | undefined
  readonly pid: number
  readonly synchronous: string
  readonly logPath: string
}

const binaryPath = join(root, "dist/encounterd")
if (flags.binary && !existsSync(binaryPath)) {
  console.error("dist/encounterd is missing: bun run build")
  if (Bun.spawnSync([process.execPath, "run", "build"], { cwd: root, stdout: "inherit", stderr: "inherit" }).exitCode !== 0) {
    throw new Error("build failed")
  }
}

const readLines = (path: string): Record<string, unknown>[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)

/**
 * Starts instance `n` (1-based) and waits for its `listening` line. Instance 1 starts on an empty
 * database and must also print the first-run key; any later instance must not.
 */
const startServer = async (dir: string, database: Database, n: number): Promise<Server> => {
  const logPath = join(dir, `server-${n}.log`)
  const errPath = join(dir, `server-${n}.err`)
  const args = ["serve", "--port", "0", "--db", database.db, "--rate-limit", "0"]
  if (flags.synchronous !== undefined) args.push("--synchronous", flags.synchronous)
  if (poolSize !== undefined) args.push("--pool-size", poolSize)
  const cmd = flags.binary ? [binaryPath, ...args] : [process.execPath, join(root, "bin/main.ts"), ...args]
  // stdout (one log line per request) goes to a file, so the server never blocks on a full pipe.
  const proc = Bun.spawn(cmd, { cwd: root, stdout: openSync(logPath, "w"), stderr: openSync(errPath, "w") })
  const expectKey = n === 1
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`server ${n} exited ${proc.exitCode}: ${readFileSync(errPath, "utf8")}`)
    // Only complete lines: the file may hold a half-written one.
    const lines = readFileSync(logPath, "utf8").split("\n").slice(0, -1).filter((l) => l.startsWith("{"))
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    const first = parsed.find((l) => l.first_run === true)
    const listening = parsed.find((l) => l.msg === "listening")
    if (listening !== undefined && (first !== undefined || !expectKey)) {
      if (first !== undefined && !expectKey) {
        proc.kill("SIGKILL")
        throw new Error(`server ${n} printed a first-run key on a database already set up`)
      }
      return {
        proc,
        url: String(listening.url),
        key: first === undefined ? undefined : String(first.key),
        pid: Number(listening.pid ?? proc.pid),
        synchronous: String(listening.synchronous ?? "FULL"),
        logPath
      }
    }
    await Bun.sleep(50)
  }
  proc.kill("SIGKILL")
  throw new Error(`server ${n} did not print ${expectKey ? "its key and " : ""}\`listening\` within 30 s`)
}

/** Peak resident set so far (VmHWM, a high-water mark over the whole process life), in MiB. */
const peakRssMiB = (pid: number): number => {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return m?.[1] !== undefined ? Number(m[1]) / 1024 : Number.NaN
}

// ---- seeding ----------------------------------------------------------------------------------

const seed = async (server: Server, key: string): Promise<string[]> => {
  const ids: string[] = []
  let next = 0
  const worker = async () => {
    while (next < SEED) {
      const n = next++
      const res = await fetch(`${server.url}/api/encounters`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(validPayload(`seed-${runId}-${n}`))
      })
      const body = (await res.json()) as { encounter_id?: string }
      if (res.status !== 202 || body.encounter_id === undefined) throw new Error(`seed ${n}: ${res.status} ${JSON.stringify(body)}`)
      ids.push(body.encounter_id)
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
  return ids
}

// ---- scenarios --------------------------------------------------------------------------------

interface LoadConfig {
  readonly path: string
  readonly method?: "GET" | "POST"
  readonly body?: string
  readonly uniqueBody?: { readonly template: Record<string, unknown>; readonly prefix: string }
}

interface LoadResult {
  readonly requests: { readonly mean: number; readonly total: number }
  readonly latency: { readonly p50: number; readonly p99: number }
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly statusCodeStats: Record<string, { readonly count: number }>
}

/** autocannon processes still running, for the cleanup after Ctrl-C. */
const loads = new Set<Bun.Subprocess>()

/** One autocannon process against one instance, with `conns` connections. */
const runLoad = async (server: Server, key: string, scenario: LoadConfig, conns: number): Promise<LoadResult> => {
  const config = {
    url: `${server.url}${scenario.path}`,
    connections: conns,
    duration,
    method: scenario.method ?? "GET",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(scenario.body !== undefined ? { body: scenario.body } : {}),
    ...(scenario.uniqueBody !== undefined ? { uniqueBody: scenario.uniqueBody } : {})
  }
  const proc = Bun.spawn(["node", join(root, "bench/load.mjs")], { cwd: root, stdin: "pipe", stdout: "pipe", stderr: "inherit" })
  loads.add(proc)
  try {
    proc.stdin.write(JSON.stringify(config))
    await proc.stdin.end()
    const out = await new Response(proc.stdout).text()
    if ((await proc.exited) !== 0) throw new Error(`load.mjs failed for ${scenario.path}`)
    return JSON.parse(out) as LoadResult
  } finally {
    loads.delete(proc)
  }
}

/** The loads of one scenario, one per instance, run at the same time and read as one. */
interface Combined {
  /** Sum of the loads' mean req/s. */
  readonly reqPerSec: number
  readonly perInstance: readonly number[]
  readonly total: number
  /** The worse (higher) of the loads' percentiles. */
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly statusCodes: Readonly<Record<string, number>>
}

const combine = (results: readonly LoadResult[]): Combined => {
  const sum = (f: (r: LoadResult) => number) => results.reduce((acc, r) => acc + f(r), 0)
  const statusCodes: Record<string, number> = {}
  for (const r of results) {
    for (const [code, { count }] of Object.entries(r.statusCodeStats)) statusCodes[code] = (statusCodes[code] ?? 0) + count
  }
  return {
    reqPerSec: sum((r) => r.requests.mean),
    perInstance: results.map((r) => r.requests.mean),
    total: sum((r) => r.requests.total),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes
  }
}

/** Connections per instance: all of them for one, halves for two (the first takes an odd one). */
const connectionShares = (): readonly number[] =>
  instances === 1 ? [connections] : [Math.ceil(connections / 2), Math.floor(connections / 2)]

/**
 * A scenario as sent to instance `i`: unique creates get a prefix per instance, so the two loads
 * never send the same `external_id` (which would turn creates into replays).
 */
const forInstance = (scenario: LoadConfig, i: number): LoadConfig =>
  scenario.uniqueBody === undefined || instances === 1
    ? scenario
    : { ...scenario, uniqueBody: { ...scenario.uniqueBody, prefix: `${scenario.uniqueBody.prefix}-i${i + 1}` } }

interface Row {
  readonly name: string
  readonly result: Combined
  /** The highest peak RSS among the instances. */
  readonly rss: number
}

const fmt = (n: number, digits = 1) => n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const table = (rows: readonly Row[]): string =>
  [
    instances === 1
      ? "| scenario | req/s | p50 ms | p99 ms | non-2xx | errors / timeouts | peak RSS MiB |"
      : "| scenario | req/s (sum of 2) | p50 ms (worse of 2) | p99 ms (worse of 2) | non-2xx | errors / timeouts | peak RSS MiB (max of 2) |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      ({ name, result: r, rss }) =>
        `| ${name} | ${fmt(r.reqPerSec, 0)} | ${fmt(r.p50, 0)} | ${fmt(r.p99, 0)} | ${r.non2xx} | ${r.errors} / ${r.timeouts} | ${fmt(rss)} |`
    )
  ].join("\n")

/** Counts of 5xx answers and error-level lines in the server's request log. */
const serverLogSummary = (logPath: string): string => {
  const lines = readLines(logPath)
  const fivexx = lines.filter((l) => typeof l.status === "number" && l.status >= 500).length
  const errors = lines.filter((l) => l.level === "error").length
  return `server log: ${lines.length} lines, ${fivexx} with status >= 500, ${errors} at level error`
}

/** SIGTERM, then the exit code (or "timeout" after 15 s). */
const stop = async (server: Server): Promise<number | "timeout"> => {
  server.proc.kill("SIGTERM")
  return Promise.race([server.proc.exited, Bun.sleep(15_000).then(() => "timeout" as const)])
}

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "encounterd-bench-"))
  const database = adminUrl === undefined ? sqliteDatabase(dir) : await createPgDatabase(adminUrl)
  const servers: Server[] = []
  let cleaned: Promise<void> | undefined
  // Kills what is still running, drops the database and removes the temp folder; once, also on Ctrl-C.
  const cleanup = () =>
    (cleaned ??= (async () => {
      for (const load of loads) load.kill("SIGKILL")
      for (const s of servers) if (s.proc.exitCode === null) s.proc.kill("SIGKILL")
      await Promise.all(servers.map((s) => s.proc.exited))
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    })())
  const interrupted = () => void cleanup().finally(() => process.exit(130))
  process.once("SIGINT", interrupted)
  process.once("SIGTERM", interrupted)

  try {
    servers.push(await startServer(dir, database, 1))
    const key = servers[0]?.key
    if (key === undefined) throw new Error("the first instance printed no key")
    for (let n = 2; n <= instances; n++) servers.push(await startServer(dir, database, n))
    const [first] = servers
    if (first === undefined) throw new Error("no server")

    const ids = await seed(first, key)
    console.error(`seeded ${ids.length} encounters on ${servers.map((s) => `${s.url} (pid ${s.pid})`).join(" and ")}`)
    const scenarios: ReadonlyArray<LoadConfig & { readonly name: string }> = [
      { name: "create (unique)", path: "/api/encounters", method: "POST", uniqueBody: { template: validPayload("x"), prefix: `load-${runId}` } },
      { name: "create (replay)", path: "/api/encounters", method: "POST", body: JSON.stringify(validPayload(`seed-${runId}-0`)) },
      { name: "list page (100)", path: "/api/encounters?limit=100" },
      { name: "one read", path: `/api/encounters/${ids[0] ?? ""}` },
      { name: "event poll (100)", path: "/api/encounters/compat-version/events?limit=100" }
    ]
    const shares = connectionShares()
    const rows: Row[] = []
    // The kernel's VmHWM may read a little lower than a transient peak read earlier: keep the highest seen.
    const peaks = servers.map(() => 0)
    for (const s of scenarios) {
      console.error(`running ${s.name} for ${duration} s with ${shares.join(" + ")} connections...`)
      const results = await Promise.all(servers.map((server, i) => runLoad(server, key, forInstance(s, i), shares[i] ?? 0)))
      for (const [i, server] of servers.entries()) peaks[i] = Math.max(peaks[i] ?? 0, peakRssMiB(server.pid))
      rows.push({ name: s.name, result: combine(results), rss: Math.max(...peaks) })
    }

    const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown CPU"
    const db = adminUrl === undefined ? `SQLite synchronous=${first.synchronous}` : database.describe
    const load =
      instances === 1
        ? `${connections} connections`
        : `${connections} connections as two autocannon processes of ${shares.join(" + ")}, one per instance, run together`
    const machine =
      `Machine: ${cpu}, ${cpus().length} cores; bun ${sh([process.execPath, "--version"])}; node ${sh(["node", "--version"])} (autocannon); ` +
      `${db}; server from ${flags.binary ? "binary (dist/encounterd)" : "source (bun bin/main.ts)"}; ` +
      `${load}, ${duration} s per scenario, ${SEED} seeded encounters.`
    const notes = [
      "Peak RSS is VmHWM from /proc/<pid>/status after the scenario (the highest read so far): the process's peak so far, never lower than the row above.",
      ...(instances === 1
        ? []
        : [
            "Two instances: req/s is the sum of the two loads' means; p50 and p99 are the worse of the two loads'; " +
              "non-2xx, errors and timeouts are summed; peak RSS is the higher of the two instances'."
          ])
    ]
    const codes = rows.map(({ name, result: r }) => {
      const statuses = Object.entries(r.statusCodes).map(([c, count]) => `${c}×${count}`).join(", ")
      const split = instances === 1 ? "" : ` (req/s per instance: ${r.perInstance.map((x) => fmt(x, 0)).join(" + ")})`
      return `- ${name}: ${r.total} requests; status ${statuses}${split}`
    })
    const markdown = [table(rows), "", machine, "", ...notes, "", ...codes].join("\n")

    const exits = await Promise.all(servers.map(stop))
    const shutdown = servers.map((server, i) => {
      const code = exits[i]
      const name = instances === 1 ? "server" : `instance ${i + 1}`
      const exit = code === 0 ? `SIGTERM: ${name} exited 0` : `SIGTERM: ${name} exit ${code} (expected 0)`
      return `${exit}; ${serverLogSummary(server.logPath)}`
    })
    const report = `${markdown}\n\n${shutdown.join("\n")}\n`
    console.log(report)
    mkdirSync(join(root, "bench/results"), { recursive: true })
    writeFileSync(join(root, "bench/results/latest.md"), report)
    if (exits.some((code) => code !== 0)) process.exitCode = 1
  } finally {
    await cleanup()
  }
}

await main()
