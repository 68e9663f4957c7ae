/**
 * What the binary's peak memory under create or read load is made of, and how much a setting moves it.
 *
 *   bun bench/memory.ts [--scenario creates|reads|lists] [--seed 1000] [--runs 3] [--duration 8] [--connections 32]
 *                       [--env KEY=VALUE ...] [--compare PATH]
 *
 * Builds dist/encounterd if missing. Each run starts the binary on a fresh SQLite file and loads
 * it with wrk (2 threads) while reading /proc/<pid>/status every 50 ms: the peak (VmHWM), and at
 * the highest sample the anonymous and the file-backed resident memory (RssAnon: heaps, JIT code
 * and its data; RssFile: the binary's own mapped code). `creates` (the default) sends unique
 * creates, each thread with its own external-id prefix; `reads` first creates `--seed` encounters
 * through the API (16 at a time; the peak includes this seeding) and then reads them by id in a
 * random order; `lists` seeds the same way and then reads the compat list's first page of 100
 * (`GET /api/encounters/compat-version?limit=100`, the largest answer the bench asks for, about
 * 250 KB) over and over. It reports requests per second and the server's CPU µs per request beside them.
 * With `--env`, runs alternate between the binary as it ships and the binary with those
 * environment variables (engine settings such as `BUN_JSC_useDFGJIT=0`): a way to attribute the
 * peak, not settings to run with. With `--compare`, they alternate with another encounterd binary
 * (another build, to see what a change does to the peak). Prints a Markdown report, appended to bench/results/memory.md.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { validPayload } from "../test/support/payloads.js"
import { cpuMicros } from "./scenario-data.js"
import { binaryPath, createEncounters, ensureBinary, fmt, machineLine, scratch } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    scenario: { type: "string", default: "creates" },
    seed: { type: "string", default: "1000" },
    runs: { type: "string", default: "3" },
    duration: { type: "string", default: "8" },
    connections: { type: "string", default: "32" },
    env: { type: "string", multiple: true, default: [] },
    compare: { type: "string" }
  }
})
const scenario = flags.scenario
if (scenario !== "creates" && scenario !== "reads" && scenario !== "lists") throw new Error("--scenario must be creates, reads or lists")
const seedCount = Number(flags.seed)
if (!Number.isInteger(seedCount) || seedCount < 1) throw new Error("--seed must be a positive integer")
const runs = Number(flags.runs)
const duration = Number(flags.duration)
const connections = Number(flags.connections)
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a positive integer")
if (!Number.isInteger(duration) || duration < 1) throw new Error("--duration must be whole seconds, at least 1")
if (!Number.isInteger(connections) || connections < 2) throw new Error("--connections must be an integer of at least 2")
const extraEnv: Record<string, string> = {}
for (const pair of flags.env) {
  const at = pair.indexOf("=")
  if (at < 1) throw new Error(`--env takes KEY=VALUE, not ${pair}`)
  extraEnv[pair.slice(0, at)] = pair.slice(at + 1)
}
if (flags.compare !== undefined && !existsSync(flags.compare)) throw new Error(`--compare: no file ${flags.compare}`)
/** What a run does, for the report. */
const load =
  scenario === "reads"
    ? `random reads of ${seedCount} encounters created first`
    : scenario === "lists"
      ? `compat list pages of 100 over ${seedCount} encounters created first`
      : "unique creates"
const unit = scenario === "reads" ? "read" : scenario === "lists" ? "page" : "create"
const wrk = Bun.which("wrk")
if (wrk === null) throw new Error("bench/memory.ts needs wrk on PATH")

const MARK = "__EXTERNAL_ID__"
const SAMPLE_MS = 50

/** wrk's script: each thread gets its own prefix in `setup`, and every request a new external id. */
const luaScript = (key: string, run: string): string => {
  const [head, tail] = JSON.stringify(validPayload(MARK)).split(MARK)
  if (head === undefined || tail === undefined) throw new Error("payload template without its external id")
  return [
    'wrk.method = "POST"',
    `wrk.headers["Authorization"] = "Bearer ${key}"`,
    'wrk.headers["Content-Type"] = "application/json"',
    `local head = [==[${head}]==]`,
    `local tail = [==[${tail}]==]`,
    "local threads = 0",
    'function setup(thread) threads = threads + 1; thread:set("prefix", "' + run + '-t" .. threads .. "-") end',
    "local n = 0",
    "function request() n = n + 1; return wrk.format(nil, nil, nil, head .. prefix .. n .. tail) end",
    ""
  ].join("\n")
}

/** wrk's script for `reads`: each request reads one of `ids`, picked at random. */
const readScript = (key: string, ids: ReadonlyArray<string>): string =>
  [
    `wrk.headers["Authorization"] = "Bearer ${key}"`,
    `local ids = {${ids.map((id) => JSON.stringify(id)).join(",")}}`,
    'function request() return wrk.format("GET", "/api/encounters/" .. ids[math.random(#ids)]) end',
    ""
  ].join("\n")

/** wrk's script for `lists`: the compat list's first page of 100, again and again. */
const listScript = (key: string): string =>
  [`wrk.headers["Authorization"] = "Bearer ${key}"`, 'function request() return wrk.format("GET", "/api/encounters/compat-version?limit=100") end', ""].join("\n")

interface Status {
  readonly rss: number
  readonly hwm: number
  readonly anon: number
  readonly file: number
}

/** MiB figures of /proc/<pid>/status. */
const status = (pid: number): Status => {
  const text = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN) / 1024
  return { rss: kb("VmRSS"), hwm: kb("VmHWM"), anon: kb("RssAnon"), file: kb("RssFile") }
}

interface Result {
  readonly label: string
  readonly peak: number
  readonly anonAtPeak: number
  readonly fileAtPeak: number
  readonly atStart: number
  readonly perSecond: number
  readonly cpuUs: number
}

const work = scratch("encounterd-memory-")

const measure = async (label: string, binary: string, env: Record<string, string>, n: number): Promise<Result> => {
  const db = join(work.dir, `run-${n}.sqlite`)
  const cmd = [binary, "serve", "--db", db, "--port", "0", "--rate-limit", "0"]
  const server = await work.serve(["env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...cmd], `run-${n}.log`, true)
  if (server.key === undefined) throw new Error("no first-run key")
  // The pid the server logs (`env` execs the binary, so it is also the spawned process's).
  const pid = server.pid
  const atStart = status(pid).rss
  const script = join(work.dir, `run-${n}.lua`)
  let target = `${server.url}/api/encounters`
  // Sampled from here: the seeding of the read scenario counts toward the peak, as in bench/run.ts.
  let highest: Status = status(pid)
  const sampler = setInterval(() => {
    const s = status(pid)
    if (s.rss > highest.rss) highest = s
  }, SAMPLE_MS)
  if (scenario === "reads" || scenario === "lists") {
    const ids = await createEncounters(server.url, server.key, Array.from({ length: seedCount }, (_, i) => `m${n}-seed-${i}`), `${label}: seed`)
    writeFileSync(script, scenario === "reads" ? readScript(server.key, ids) : listScript(server.key))
    target = server.url
  } else {
    writeFileSync(script, luaScript(server.key, `m${n}`))
  }
  const cpu0 = cpuMicros(pid)
  const load = Bun.spawn([wrk, "-t2", `-c${connections}`, `-d${duration}s`, "-s", script, target], { stdout: "pipe", stderr: "inherit" })
  const out = await new Response(load.stdout).text()
  clearInterval(sampler)
  if ((await load.exited) !== 0) throw new Error(`wrk failed:\n${out}`)
  const cpu = cpuMicros(pid) - cpu0
  const final = status(pid)
  await work.stop(server.proc, label)
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN)
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
  if (non2xx > 0) throw new Error(`${label}: ${non2xx} answers were not 2xx`)
  return {
    label,
    peak: final.hwm,
    anonAtPeak: highest.anon,
    fileAtPeak: highest.file,
    atStart,
    perSecond: requests / duration,
    cpuUs: cpu / requests
  }
}

await work.run(async () => {
  ensureBinary()
  const variants: Array<{ label: string; binary: string; env: Record<string, string> }> = [{ label: "as built", binary: binaryPath, env: {} }]
  if (Object.keys(extraEnv).length > 0) {
    variants.push({ label: Object.entries(extraEnv).map(([k, v]) => `${k}=${v}`).join(" "), binary: binaryPath, env: extraEnv })
  }
  if (flags.compare !== undefined) variants.push({ label: flags.compare, binary: resolve(flags.compare), env: {} })
  const results: Array<Result> = []
  let n = 0
  for (let r = 1; r <= runs; r++) {
    for (const v of variants) {
      console.error(`run ${r}/${runs}: ${v.label}, ${duration} s of ${load} over ${connections} connections...`)
      results.push(await measure(v.label, v.binary, v.env, ++n))
    }
  }
  const rows = results.map(
    (r) =>
      `| ${r.label} | ${fmt(r.peak)} | ${fmt(r.anonAtPeak)} | ${fmt(r.fileAtPeak)} | ${fmt(r.atStart)} | ${fmt(r.perSecond, 0)} | ${fmt(r.cpuUs, 0)} |`
  )
  return [
    `## Memory under ${scenario === "reads" ? "read" : scenario === "lists" ? "list" : "create"} load, ${new Date().toISOString()}`,
    "",
    `${machineLine()}; dist/encounterd on a fresh SQLite file per run; wrk, 2 threads, ${connections} connections, ${duration} s of ${load} per run.`,
    "",
    `| binary | peak RSS MiB (VmHWM) | RssAnon at the highest sample | RssFile at the highest sample | RSS at start | ${unit}s/s | CPU µs per ${unit} |`,
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows,
    ""
  ].join("\n")
}, "memory.md")
