/**
 * Where a request's CPU goes: runs `bun --cpu-prof-md bin/main.ts serve` on a fresh SQLite file,
 * seeds encounters, loads one route with wrk, stops the server and prints the profile's top
 * functions by self time (--keep copies the whole
 * Markdown profile to the temp folder).
 *
 *   bun bench/profile.ts --scenario events|events-follow|list|read|read-random|read-one|compat-list|compat-read|status|create|create-unique|replay
 *                        [--duration 10] [--connections 32] [--seed 1000] [--top 40] [--keep]
 */
import { copyFileSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { validPayload } from "../test/support/payloads.js"
import { type Phase, profileWindow } from "./cpu-profile.js"
import { encounterdWriteKey, latestClaims } from "./scenario-data.js"
import { createEncounters, encounterdCommand, scratch, shuffled } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    scenario: { type: "string", default: "events" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    seed: { type: "string", default: "1000" },
    top: { type: "string", default: "40" },
    keep: { type: "boolean", default: false }
  }
})
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

const luaFor = (requests: ReadonlyArray<{ method: string; path: string; body?: string }>, key: string): string => {
  const items = requests.map((r) => `{${JSON.stringify(r.method)}, ${JSON.stringify(r.path)}, ${r.body === undefined ? "nil" : JSON.stringify(r.body)}}`)
  return [
    `local items = {${items.join(",\n")}}`,
    "local i = 0",
    `wrk.headers["authorization"] = "Bearer ${key}"`,
    `wrk.headers["content-type"] = "application/json"`,
    "request = function()",
    "  i = i % #items + 1",
    "  local it = items[i]",
    "  return wrk.format(it[1], it[2], nil, it[3])",
    "end"
  ].join("\n")
}

await work.run(async () => {
  const db = join(work.dir, "profile.sqlite")
  const profDir = join(work.dir, "prof")
  const server = await work.serve(
    ["bun", "--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${profDir}`, "bin/main.ts", "serve", "--port", "0", "--db", db, "--rate-limit", "0"],
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
      default: throw new Error(`unknown scenario ${flags.scenario}`)
    }
  })()
  const lua = requests[0]?.method === "LUA" ? requests[0].path : luaFor(requests, key)
  const script = join(work.dir, "load.lua")
  await Bun.write(script, lua)
  const from = Date.now()
  const run = Bun.spawnSync([wrk, "-t2", `-c${flags.connections}`, `-d${flags.duration}s`, "-s", script, server.url], { stdout: "pipe" })
  const to = Date.now()
  const out = run.stdout.toString()
  await work.stop(server.proc, "server")
  const cpuprofile = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"))
  if (cpuprofile === undefined) throw new Error("no .cpuprofile written")
  const window = profileWindow(join(profDir, cpuprofile), from, to, process.cwd(), PHASES)
  const served = Number(/(\d+) requests in/.exec(out)?.[1] ?? "0")
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
