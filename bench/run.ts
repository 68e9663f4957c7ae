/**
 * Load benchmark: starts encounterd on a fresh temp database, seeds 1,000 encounters, runs five
 * autocannon scenarios one after another (bench/load.mjs under Node) and prints a Markdown table,
 * also written to bench/results/latest.md.
 *
 *   bun bench/run.ts [--binary] [--duration 10] [--connections 32] [--synchronous FULL|NORMAL]
 */
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { validPayload } from "../test/support/payloads.js"

const root = resolve(import.meta.dir, "..")
const { values: flags } = parseArgs({
  options: {
    binary: { type: "boolean", default: false },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    synchronous: { type: "string" }
  }
})
const duration = Number(flags.duration)
const connections = Number(flags.connections)
if (!(duration > 0) || !(connections > 0)) throw new Error("--duration and --connections must be positive numbers")

const SEED = 1_000
const runId = Math.random().toString(36).slice(2, 8)
const sh = (cmd: string[]): string => new TextDecoder().decode(Bun.spawnSync(cmd, { cwd: root }).stdout).trim()

// ---- server -----------------------------------------------------------------------------------

interface Server {
  readonly proc: Bun.Subprocess
  readonly url: string
  readonly key: string
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

const startServer = async (dir: string): Promise<Server> => {
  const logPath = join(dir, "server.log")
  const errPath = join(dir, "server.err")
  const args = ["serve", "--port", "0", "--db", join(dir, "bench.sqlite"), "--rate-limit", "0"]
  if (flags.synchronous !== undefined) args.push("--synchronous", flags.synchronous)
  const cmd = flags.binary ? [binaryPath, ...args] : [process.execPath, join(root, "bin/main.ts"), ...args]
  // stdout (one log line per request) goes to a file, so the server never blocks on a full pipe.
  const proc = Bun.spawn(cmd, { cwd: root, stdout: openSync(logPath, "w"), stderr: openSync(errPath, "w") })
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${readFileSync(errPath, "utf8")}`)
    // Only complete lines: the file may hold a half-written one.
    const lines = readFileSync(logPath, "utf8").split("\n").slice(0, -1).filter((l) => l.startsWith("{"))
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    const first = parsed.find((l) => l.first_run === true)
    const listening = parsed.find((l) => l.msg === "listening")
    if (first !== undefined && listening !== undefined) {
      return {
        proc,
        url: String(listening.url),
        key: String(first.key),
        pid: Number(listening.pid ?? proc.pid),
        synchronous: String(listening.synchronous ?? "FULL"),
        logPath
      }
    }
    await Bun.sleep(50)
  }
  proc.kill("SIGKILL")
  throw new Error("server did not print its key and `listening` within 30 s")
}

/** Peak resident set so far (VmHWM, a high-water mark over the whole process life), in MiB. */
const peakRssMiB = (pid: number): number => {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return m?.[1] !== undefined ? Number(m[1]) / 1024 : Number.NaN
}

// ---- seeding ----------------------------------------------------------------------------------

const seed = async (server: Server): Promise<string[]> => {
  const ids: string[] = []
  let next = 0
  const worker = async () => {
    while (next < SEED) {
      const n = next++
      const res = await fetch(`${server.url}/api/encounters`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
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

const runLoad = async (server: Server, scenario: LoadConfig): Promise<LoadResult> => {
  const config = {
    url: `${server.url}${scenario.path}`,
    connections,
    duration,
    method: scenario.method ?? "GET",
    headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
    ...(scenario.body !== undefined ? { body: scenario.body } : {}),
    ...(scenario.uniqueBody !== undefined ? { uniqueBody: scenario.uniqueBody } : {})
  }
  const proc = Bun.spawn(["node", join(root, "bench/load.mjs")], { cwd: root, stdin: "pipe", stdout: "pipe", stderr: "inherit" })
  proc.stdin.write(JSON.stringify(config))
  await proc.stdin.end()
  const out = await new Response(proc.stdout).text()
  if ((await proc.exited) !== 0) throw new Error(`load.mjs failed for ${scenario.path}`)
  return JSON.parse(out) as LoadResult
}

interface Row {
  readonly name: string
  readonly result: LoadResult
  readonly rss: number
}

const fmt = (n: number, digits = 1) => n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const table = (rows: readonly Row[]): string =>
  [
    "| scenario | req/s | p50 ms | p99 ms | non-2xx | errors / timeouts | peak RSS MiB |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      ({ name, result: r, rss }) =>
        `| ${name} | ${fmt(r.requests.mean, 0)} | ${fmt(r.latency.p50, 0)} | ${fmt(r.latency.p99, 0)} | ${r.non2xx} | ${r.errors} / ${r.timeouts} | ${fmt(rss)} |`
    )
  ].join("\n")

/** Counts of 5xx answers and error-level lines in the server's request log. */
const serverLogSummary = (logPath: string): string => {
  const lines = readLines(logPath)
  const fivexx = lines.filter((l) => typeof l.status === "number" && l.status >= 500).length
  const errors = lines.filter((l) => l.level === "error").length
  return `server log: ${lines.length} lines, ${fivexx} with status >= 500, ${errors} at level error`
}

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "encounterd-bench-"))
  const server = await startServer(dir)
  try {
    const ids = await seed(server)
    console.error(`seeded ${ids.length} encounters on ${server.url} (pid ${server.pid})`)
    const scenarios: ReadonlyArray<LoadConfig & { readonly name: string }> = [
      { name: "create (unique)", path: "/api/encounters", method: "POST", uniqueBody: { template: validPayload("x"), prefix: `load-${runId}` } },
      { name: "create (replay)", path: "/api/encounters", method: "POST", body: JSON.stringify(validPayload(`seed-${runId}-0`)) },
      { name: "list page (100)", path: "/api/encounters?limit=100" },
      { name: "one read", path: `/api/encounters/${ids[0] ?? ""}` },
      { name: "event poll (100)", path: "/api/encounters/compat-version/events?limit=100" }
    ]
    const rows: Row[] = []
    for (const s of scenarios) {
      console.error(`running ${s.name} for ${duration} s with ${connections} connections...`)
      const result = await runLoad(server, s)
      rows.push({ name: s.name, result, rss: peakRssMiB(server.pid) })
    }

    const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown CPU"
    const machine =
      `Machine: ${cpu}, ${cpus().length} cores; bun ${sh([process.execPath, "--version"])}; node ${sh(["node", "--version"])} (autocannon); ` +
      `SQLite synchronous=${server.synchronous}; server from ${flags.binary ? "binary (dist/encounterd)" : "source (bun bin/main.ts)"}; ` +
      `${connections} connections, ${duration} s per scenario, ${SEED} seeded encounters.`
    const codes = rows.map(({ name, result: r }) =>
      `- ${name}: ${r.requests.total} requests; status ${Object.entries(r.statusCodeStats).map(([c, v]) => `${c}×${v.count}`).join(", ")}`
    )
    const rssNote = "Peak RSS is VmHWM from /proc/<pid>/status after the scenario: the process's peak so far, never lower than the row above."
    const markdown = [table(rows), "", machine, "", rssNote, "", ...codes].join("\n")

    server.proc.kill("SIGTERM")
    const code = await Promise.race([server.proc.exited, Bun.sleep(15_000).then(() => "timeout" as const)])
    const shutdown = code === 0 ? "SIGTERM: server exited 0" : `SIGTERM: server exit ${code} (expected 0)`
    const report = `${markdown}\n\n${shutdown}; ${serverLogSummary(server.logPath)}\n`
    console.log(report)
    mkdirSync(join(root, "bench/results"), { recursive: true })
    writeFileSync(join(root, "bench/results/latest.md"), report)
    if (code !== 0) process.exitCode = 1
  } finally {
    if (server.proc.exitCode === null) server.proc.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
