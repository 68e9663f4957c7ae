/**
 * What reads' audit entries cost the server: each read appends an entry, and entries are gathered
 * and committed together (server/audit.ts). Reads one encounter over and over (`--ids 1`) or
 * `--ids N` of them in turn, and reports the server's CPU per read beside the commits it made and
 * the time they took (`encounterd_db_commit_duration_seconds` from /metrics): the commit's share
 * is measured, not inferred. Beside them, wrk's p99, the heap pacer's collections during the run
 * (full ones with their mean pause: what sets the tail) and the server's peak RSS. With
 * `--baseline REV` the same runs alternate with a git worktree of REV, run by run, so both see the
 * same machine.
 *
 *   bun bench/audit-reads.ts [--ids 1,1000] [--baseline REV] [--rounds 2] [--duration 10] [--seed 1000]
 *
 * Each run: a fresh server from source on a fresh SQLite file, `--seed` encounters created, 3 s of
 * warm-up, then `--duration` seconds of wrk (2 threads, 32 connections). Appends a Markdown report
 * to bench/results/audit-reads.md.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { baselineSource, createEncounters, fmt, machineLine, root, scratch } from "./support.js"
import { cpuMicros } from "./scenario-data.js"

const { values: flags } = parseArgs({
  options: {
    ids: { type: "string", default: "1,1000" },
    baseline: { type: "string" },
    rounds: { type: "string", default: "2" },
    duration: { type: "string", default: "10" },
    seed: { type: "string", default: "1000" }
  }
})
const wrk = Bun.which("wrk")
if (wrk === null) throw new Error("bench/audit-reads.ts needs wrk on PATH")
const idCounts = flags.ids.split(",").map(Number)
const seed = Number(flags.seed)
if (idCounts.some((n) => !Number.isInteger(n) || n < 1 || n > seed)) throw new Error(`--ids: whole numbers from 1 to --seed (${seed})`)
const duration = Number(flags.duration)
const rounds = Number(flags.rounds)
const work = scratch("encounterd-audit-reads-")

/** A wrk latency ("850.00us", "12.34ms", "1.20s") in milliseconds. */
const wrkMs = (text: string | undefined): number => {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text ?? "")
  if (m === null) return Number.NaN
  const n = Number(m[1])
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n
}

const METRICS = [
  "db_commit_duration_seconds_sum",
  "db_commit_duration_seconds_count",
  "heap_paced_young_collections_total",
  "heap_paced_collections_total",
  "heap_paced_pause_seconds_total"
] as const
type Counters = Record<(typeof METRICS)[number], number>

interface Run {
  readonly tree: string
  readonly ids: number
  readonly perSecond: number
  readonly cpuPerRead: number
  readonly commits: number
  readonly commitPerRead: number
  readonly readsPerCommit: number
  readonly young: number
  /** Full collections the heap pacer made during the run, and their pause in all (seconds). */
  readonly full: number
  readonly fullPause: number
  readonly p99Ms: number
  /** The server's VmHWM after the run, seeding included (MiB). */
  readonly peakMiB: number
}

const measureRun = async (tree: string, label: string, ids: number, run: number): Promise<Run> => {
  const db = join(work.dir, `run-${run}.sqlite`)
  const server = await work.serve([process.execPath, join(tree, "bin/main.ts"), "serve", "--port", "0", "--db", db, "--rate-limit", "0"], `server-${run}.log`, true)
  const key = server.key ?? ""
  const encounters = await createEncounters(server.url, key, Array.from({ length: seed }, (_, i) => `audit-${i}`), "seed")
  const items = encounters.slice(0, ids).map((id) => `"/encounters/${id}"`)
  const script = join(work.dir, `reads-${run}.lua`)
  await Bun.write(
    script,
    [`local items = {${items.join(",")}}`, "local i = 0", `wrk.headers["authorization"] = "Bearer ${key}"`, "request = function()", "  i = i % #items + 1", "  return wrk.format(\"GET\", items[i])", "end"].join("\n")
  )
  const counters = async (): Promise<Counters> => {
    const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${key}` } })).text()
    const value = (name: string) => Number(new RegExp(`^encounterd_${name} (\\S+)$`, "m").exec(text)?.[1] ?? "NaN")
    return Object.fromEntries(METRICS.map((name) => [name, value(name)])) as Counters
  }
  Bun.spawnSync([wrk, "-t2", "-c32", "-d3s", "-s", script, server.url])
  const before = await counters()
  const cpuBefore = cpuMicros(server.proc.pid)
  const out = Bun.spawnSync([wrk, "-t2", "-c32", "--latency", `-d${duration}s`, "-s", script, server.url], { stdout: "pipe" }).stdout.toString()
  const cpuAfter = cpuMicros(server.proc.pid)
  const after = await counters()
  const peakKb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${server.proc.pid}/status`, "utf8"))?.[1] ?? "NaN")
  await work.stop(server.proc, label)
  const reads = Number(/(\d+) requests in/.exec(out)?.[1] ?? "0")
  if (reads === 0) throw new Error(`${label}: wrk answered nothing:\n${out}`)
  const commits = after.db_commit_duration_seconds_count - before.db_commit_duration_seconds_count
  return {
    tree: label,
    ids,
    perSecond: reads / duration,
    cpuPerRead: (cpuAfter - cpuBefore) / reads,
    commits,
    commitPerRead: ((after.db_commit_duration_seconds_sum - before.db_commit_duration_seconds_sum) * 1e6) / reads,
    readsPerCommit: reads / Math.max(1, commits),
    young: after.heap_paced_young_collections_total - before.heap_paced_young_collections_total,
    full: after.heap_paced_collections_total - before.heap_paced_collections_total,
    fullPause: after.heap_paced_pause_seconds_total - before.heap_paced_pause_seconds_total,
    p99Ms: wrkMs(/^\s+99%\s+(\S+)$/m.exec(out)?.[1]),
    peakMiB: peakKb / 1024
  }
}

await work.run(async () => {
  const baseline = flags.baseline === undefined ? undefined : baselineSource(work.dir, flags.baseline)
  try {
    const trees: ReadonlyArray<readonly [string, string]> = [["this checkout", root], ...(baseline === undefined ? [] : [[`encounterd@${flags.baseline}`, baseline.root] as const])]
    const runs: Array<Run> = []
    let n = 0
    for (let round = 0; round < rounds; round++) {
      for (const ids of idCounts) {
        // Each round starts one tree further along, so neither always runs first.
        for (let t = 0; t < trees.length; t++) {
          const [label, tree] = trees[(t + round) % trees.length] ?? trees[0]!
          console.error(`round ${round + 1}: ${label}, ${ids} encounter(s) ...`)
          runs.push(await measureRun(tree, label, ids, n++))
        }
      }
    }
    return [
      `## Reads and their audit entries, ${new Date().toISOString()}`,
      "",
      `${machineLine()}; each run a fresh server from source and SQLite file, ${seed} encounters, wrk 2 threads and 32 connections for ${duration} s after 3 s of warm-up; ${rounds} round(s).`,
      "",
      "| build | encounters read | req/s | server CPU µs a read | p99 ms | commits | reads a commit | commit µs a read | paced young collections | paced full collections (ms each) | peak RSS MiB |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...runs.map(
        (r) =>
          `| ${r.tree} | ${r.ids} | ${fmt(r.perSecond, 0)} | ${fmt(r.cpuPerRead, 0)} | ${fmt(r.p99Ms)} | ${r.commits} | ${fmt(r.readsPerCommit)} | ${fmt(r.commitPerRead)} | ${r.young} | ${r.full} (${r.full === 0 ? "—" : fmt((r.fullPause * 1000) / r.full)}) | ${fmt(r.peakMiB)} |`
      ),
      "",
      "commit µs a read: the time the server's SQLite commits took over the run (encounterd_db_commit_duration_seconds), divided by the reads answered.",
      "p99: wrk's. Paced collections: the heap pacer's during the run (encounterd_heap_paced_*), full ones with their mean pause. Peak RSS: the server's VmHWM after the run, seeding included.",
      ""
    ].join("\n")
  } finally {
    baseline?.remove()
  }
}, "audit-reads.md")
