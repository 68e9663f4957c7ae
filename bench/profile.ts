/**
 * Where a request's CPU goes: runs `bun --cpu-prof-md bin/main.ts serve` on a fresh SQLite file,
 * seeds encounters, loads one route with wrk, stops the server and prints the profile's top
 * functions by self time (--keep copies the whole
 * Markdown profile to the temp folder). With --syscalls, the server runs without the profiler and
 * `strace -f -c` counts its system calls while wrk runs instead, per request.
 *
 *   bun bench/profile.ts --scenario events|events-follow|list|read|read-random|read-one|compat-list|compat-read|status|create|create-unique|replay|tasks|mixed
 *                        [--duration 10] [--connections 32] [--seed 1000] [--top 40] [--keep] [--syscalls]
 */
import { copyFileSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { validPayload } from "../test/support/payloads.js"
import { type Phase, profileWindow } from "./cpu-profile.js"
import { growPool } from "./claim-pool.js"
import { encounterdWriteKey, latestClaims, mixedSequence } from "./scenario-data.js"
import { createEncounters, encounterdCommand, type FileRequest, scratch, shuffled, wrkRequestsFromFile } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    scenario: { type: "string", default: "events" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    seed: { type: "string", default: "1000" },
    top: { type: "string", default: "40" },
    keep: { type: "boolean", default: false },
    syscalls: { type: "boolean", default: false }
  }
})
const strace = flags.syscalls ? Bun.which("strace") : undefined
if (strace === null) throw new Error("bench/profile.ts --syscalls needs strace on PATH")
/**
 * Where a request's CPU goes, told apart by a frame on the sampled stack (the first match wins).
 * Group commits, the reads' audit entries and the heap pacer run in turns of their own, so their
 * stacks hold none of a request's frames.
 */
const PHASES: ReadonlyArray<Phase> = [
  ["heap pacer: paced collections", /^(tick|edenGC|fullGC|gc) |server\/heap-pacer\.ts/],
  ["garbage collection by the engine", /^\(garbage collector\)/],
  ["group commit (SQLite transaction, audit entries included)", /^flush lib\/adapters\/sqlite\/write-queue\.ts/],
  ["reads' audit entries, gathered", /^write server\/audit\.ts|appendAuditEntries/],
  ["request log line", / server\/log\.ts/],
  ["metrics", / server\/(server-)?metrics\.ts/],
  ["authentication", /^authenticate(Key)? lib\/rules\/workspaces\.ts/],
  ["storage reads and their decoding", /lib\/adapters\/(sql|sqlite)\//],
  ["the route's handler and rules", / server\/routes\/| lib\/rules\//],
  ["request pipeline (routing, Effect runtime, answer)", / server\/http\.ts/]
]
const wrk = Bun.which("wrk")
if (wrk === null) throw new Error("bench/profile.ts needs wrk on PATH")
const work = scratch("encounterd-profile-")

/** A wrk script cycling through `requests`, every thread through all of them, read from a file beside it. */
const luaFor = (requests: ReadonlyArray<FileRequest>, key: string): string =>
  [
    `wrk.headers["authorization"] = "Bearer ${key}"`,
    `wrk.headers["content-type"] = "application/json"`,
    ...wrkRequestsFromFile(join(work.dir, "requests.tsv"), requests)
  ].join("\n")

/** strace's summary (`-c`) as a table of the calls made per request, most frequent first. */
const syscallReport = (wrkOut: string, summary: string, served: number): string => {
  const rows: Array<{ name: string; calls: number; errors: number; seconds: number }> = []
  for (const line of summary.split("\n")) {
    // % time, seconds, usecs/call, calls, [errors,] syscall
    const m = /^\s*[\d.]+\s+([\d.]+)\s+\d+\s+(\d+)\s+(\d+\s+)?([a-z_0-9]+)\s*$/.exec(line)
    if (m !== null && m[4] !== "total") rows.push({ name: m[4] ?? "", seconds: Number(m[1]), calls: Number(m[2]), errors: Number(m[3] ?? 0) })
  }
  rows.sort((a, b) => b.calls - a.calls)
  const per = (n: number) => (served > 0 ? (n / served).toFixed(2) : "?")
  const all = rows.reduce((sum, r) => sum + r.calls, 0)
  return [
    `## ${flags.scenario}: system calls`,
    "```",
    wrkOut.trim(),
    "```",
    `The load window: ${all} system calls by every thread of the server over ${served} requests (${per(all)} a request; strace slows the server, so compare counts, not speed).`,
    "",
    "| system call | calls | a request | errors | seconds in the call |",
    "|---|---:|---:|---:|---:|",
    ...rows.slice(0, Number(flags.top)).map((r) => `| ${r.name} | ${r.calls} | ${per(r.calls)} | ${r.errors} | ${r.seconds.toFixed(3)} |`)
  ].join("\n")
}

await work.run(async () => {
  const db = join(work.dir, "profile.sqlite")
  const profDir = join(work.dir, "prof")
  const profiler = strace === undefined ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${profDir}`] : []
  const server = await work.serve(
    ["bun", ...profiler, "bin/main.ts", "serve", "--port", "0", "--db", db, "--rate-limit", "0"],
    "server.log",
    true
  )
  const key = server.key ?? ""
  const ids = Array.from({ length: Number(flags.seed) }, (_, i) => `prof-${i}`)
  const encounters = await createEncounters(server.url, key, ids, "seed")
  const requests: Array<{ method: string; path: string; body?: string }> = await (async () => {
    switch (flags.scenario) {
      case "events": return [{ method: "GET", path: "/api/encounters/compat-version/events?limit=100" }]
      case "events-follow": {
        const out: Array<{ method: string; path: string }> = []
        let path = "/api/encounters/compat-version/events?limit=100"
        for (let i = 0; i < 10; i++) {
          out.push({ method: "GET", path })
          const page = (await (await fetch(server.url + path, { headers: { authorization: `Bearer ${key}` } })).json()) as { next_page_token?: string }
          if (page.next_page_token === undefined) break
          path = `/api/encounters/compat-version/events?limit=100&page_token=${page.next_page_token}`
        }
        return out
      }
      case "list": return [{ method: "GET", path: "/encounters?limit=100" }]
      case "read-one": return encounters.slice(0, 1).map((id) => ({ method: "GET", path: `/encounters/${id}` }))
      case "read": return encounters.slice(0, 200).map((id) => ({ method: "GET", path: `/encounters/${id}` }))
      // Every seeded encounter in a shuffled order, as the load bench's random reads.
      case "read-random": return shuffled(encounters).map((id) => ({ method: "GET", path: `/encounters/${id}` }))
      case "compat-list": return [{ method: "GET", path: "/api/encounters/compat-version?limit=100" }]
      case "compat-read": return encounters.slice(0, 200).map((id) => ({ method: "GET", path: `/api/encounters/compat-version/${id}` }))
      case "replay": return ids.slice(0, 200).map((id) => ({ method: "POST", path: "/api/encounters", body: JSON.stringify(validPayload(id)) }))
      case "create": return Array.from({ length: 5000 }, (_, i) => ({ method: "POST", path: "/api/encounters", body: JSON.stringify(validPayload(`prof-new-${i}`)) }))
      case "create-unique": {
        // Every request a new external_id (per wrk thread and counter), so every one is a create.
        const [head, tail] = JSON.stringify(validPayload("EXTERNAL-ID-MARK")).split("EXTERNAL-ID-MARK")
        const lua = [
          `local head = ${JSON.stringify(head)}`,
          `local tail = ${JSON.stringify(tail)}`,
          "local threads = 0",
          'function setup(thread) threads = threads + 1; thread:set("tid", threads) end',
          'local tag = "u"',
          "local counter = 0",
          'function init(args) tag = "u-t" .. tostring(tid) .. "-" end',
          `wrk.method = "POST"`,
          `wrk.path = "/api/encounters"`,
          `wrk.headers["authorization"] = "Bearer ${key}"`,
          `wrk.headers["content-type"] = "application/json"`,
          "function request() counter = counter + 1; return wrk.format(nil, nil, nil, head .. tag .. counter .. tail) end"
        ].join("\n")
        return [{ method: "LUA", path: lua }]
      }
      case "status": {
        const writer = encounterdWriteKey(encounterdCommand(false, []), db)
        const claims = await latestClaims(server.url, key, 200)
        const statuses = ["missing_information", "draft"]
        const lua = luaFor(claims.flatMap((c) => statuses.map((s) => ({ method: "POST", path: `/api/claims/${c}/status`, body: JSON.stringify({ status: s }) }))), writer)
        return [{ method: "LUA", path: lua }]
      }
      // The load bench's mixed workload, one cycled sequence (random reads, list and feed pages,
      // creates, claim moves), with a key that may move claims.
      case "mixed": {
        const writer = encounterdWriteKey(encounterdCommand(false, []), db)
        const claims = await latestClaims(server.url, key, 200)
        const sequence = mixedSequence(encounters, claims, (n) => JSON.stringify(validPayload(`prof-mixed-${n}`)), 20_000)
        const lua = luaFor(sequence.map((r) => ({ method: r.method ?? "GET", path: r.path, ...(r.body === undefined ? {} : { body: r.body }) })), writer)
        return [{ method: "LUA", path: lua }]
      }
      // The work queue's first page over 3,000 open rejection tasks, as the load bench's task list.
      case "tasks": {
        const writer = encounterdWriteKey(encounterdCommand(false, []), db)
        const pool = { encounters: [], claims: [] }
        await growPool(server.url, key, writer, pool, 3000, "prof-task")
        return [{ method: "GET", path: "/api/tasks?limit=100" }]
      }
      default: throw new Error(`unknown scenario ${flags.scenario}`)
    }
  })()
  const lua = requests[0]?.method === "LUA" ? requests[0].path : luaFor(requests, key)
  const script = join(work.dir, "load.lua")
  await Bun.write(script, lua)
  const counts = join(work.dir, "syscalls.txt")
  // Attached to every thread of the server for the load only (seeding is not counted).
  const tracer = strace === undefined ? undefined : Bun.spawn([strace, "-f", "-c", "-o", counts, "-p", String(server.proc.pid)], { stderr: "ignore" })
  if (tracer !== undefined) await Bun.sleep(500)
  const from = Date.now()
  const run = Bun.spawnSync([wrk, "-t2", `-c${flags.connections}`, `-d${flags.duration}s`, "-s", script, server.url], { stdout: "pipe", stderr: "pipe" })
  const to = Date.now()
  const out = run.stdout.toString()
  // A script that does not load leaves wrk sending its default request (GET /), saying so on stderr only.
  const complaint = run.stderr.toString().trim()
  if (run.exitCode !== 0 || complaint !== "") throw new Error(`wrk: exit ${run.exitCode}: ${complaint}`)
  if (tracer !== undefined) {
    tracer.kill("SIGINT")
    await tracer.exited
  }
  await work.stop(server.proc, "server")
  const served = Number(/(\d+) requests in/.exec(out)?.[1] ?? "0")
  if (tracer !== undefined) return syscallReport(out, readFileSync(counts, "utf8"), served)
  const cpuprofile = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"))
  if (cpuprofile === undefined) throw new Error("no .cpuprofile written")
  const window = profileWindow(join(profDir, cpuprofile), from, to, process.cwd(), PHASES)
  const perRequest = (ms: number) => (served > 0 ? ((ms * 1000) / served).toFixed(1) : "?")
  const file = readdirSync(profDir).find((f) => f.endsWith(".md"))
  if (file === undefined) throw new Error("no profile written")
  const md = readFileSync(join(profDir, file), "utf8")
  if (flags.keep) {
    const kept = join(tmpdir(), `encounterd-profile-${flags.scenario}.md`)
    copyFileSync(join(profDir, file), kept)
    console.error(`the whole profile: ${kept}`)
  }
  const lines = md.split("\n")
  const start = lines.findIndex((l) => /self/i.test(l) && l.startsWith("#"))
  const phaseRows = [
    `The load window: ${window.sampledMs.toFixed(0)} ms of server CPU sampled over ${served} requests (${perRequest(window.sampledMs)} µs a request).`,
    "",
    "| phase | µs a request | share | its functions by self time (ms) |",
    "|---|---:|---:|---|",
    ...window.phases.map(
      (ph) =>
        `| ${ph.label} | ${perRequest(ph.ms)} | ${((100 * ph.ms) / window.sampledMs).toFixed(1)} % | ${ph.self.slice(0, 4).map(([f, ms]) => `\`${f}\` ${ms.toFixed(0)}`).join(", ")} |`
    ),
    ""
  ]
  return [`## ${flags.scenario}`, "```", out.trim(), "```", ...phaseRows, ...lines.slice(Math.max(0, start), Math.max(0, start) + Number(flags.top) + 4)].join("\n")
}, "profile.md")
