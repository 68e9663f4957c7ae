/**
 * A create's (or a claim status change's) cost through the whole request pipeline in one process,
 * without sockets or a load generator: steadier than the load bench on a small shared machine, for
 * comparing changes to one path (and what each index written by a create costs).
 *
 *   bun bench/pipeline.ts [--scenario create|status|read] [--creates 8000] [--rounds 4] [--concurrency 32]
 *                         [--synchronous NORMAL|FULL] [--storage sqlite|memory] [--drop-index NAME ...]
 *
 * Opens a fresh SQLite file through the same layers as `encounterd serve` (migrations included),
 * creates a workspace and a key, builds the server's request handler (`makeFetch`) and calls it
 * with `Request` objects: `--creates` unique creates per round, `--concurrency` at a time, each
 * answered 202. With `--scenario status` it first creates `--creates` encounters, then each round
 * moves every one of their claims to the other status of the load bench's cycle (`STATUS_CYCLE`:
 * each request a real change, a claim recurring only after all the others), each answered 200.
 * With `--scenario read` it first creates `--creates` encounters, then each round reads every one
 * of them once (`GET /api/encounters/{id}`) in a new random order, each answered 200.
 * `--storage memory` runs it on the memory adapter: what the HTTP layer, the runtime and the rules
 * cost without a database. It reports, per round, the process's CPU µs and the wall µs per create; the first
 * two rounds warm the JIT and are marked. `--drop-index` drops an index after migrating, to
 * measure what it costs (the reads that use it get slower: for measuring only). The request log
 * goes to stdout; run with `> /dev/null`. Appends a Markdown report to bench/results/pipeline.md.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { databaseLayer } from "../bin/database.js"
import { memoryLayer } from "../lib/layers.js"
import { createApiKey, createWorkspace } from "../lib/rules/workspaces.js"
import { webhookSettingsLayer } from "../lib/webhooks/settings.js"
import { withDefaults } from "../server/config.js"
import { makeFetch } from "../server/http.js"
import { makeServerMetrics } from "../server/server-metrics.js"
import { validPayload } from "../test/support/payloads.js"
import { STATUS_CYCLE } from "./scenario-data.js"
import { appendResult, fmt, machineLine, shuffled } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    creates: { type: "string", default: "8000" },
    rounds: { type: "string", default: "4" },
    concurrency: { type: "string", default: "32" },
    scenario: { type: "string", default: "create" },
    synchronous: { type: "string", default: "NORMAL" },
    storage: { type: "string", default: "sqlite" },
    "drop-index": { type: "string", multiple: true, default: [] }
  }
})
const creates = Number(flags.creates)
const rounds = Number(flags.rounds)
const concurrency = Number(flags.concurrency)
const synchronous = flags.synchronous.toUpperCase()
const scenario = flags.scenario
if (scenario !== "create" && scenario !== "status" && scenario !== "read") throw new Error("--scenario must be create, status or read")
const storage = flags.storage
if (storage !== "sqlite" && storage !== "memory") throw new Error("--storage must be sqlite or memory")
if (!Number.isInteger(creates) || creates < 1) throw new Error("--creates must be a positive integer")
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer")
if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("--concurrency must be a positive integer")
if (synchronous !== "NORMAL" && synchronous !== "FULL") throw new Error("--synchronous must be NORMAL or FULL")
const dropped = flags["drop-index"]
for (const name of dropped) if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`--drop-index: not an index name: ${name}`)

/** The first rounds run while the JIT is still compiling the path. */
const WARM_UP_ROUNDS = 2

const dir = mkdtempSync(join(tmpdir(), "encounterd-pipeline-"))
const file = join(dir, "pipeline.sqlite")
const metrics = makeServerMetrics()
const sqliteRuntime =
  storage === "sqlite"
    ? ManagedRuntime.make(
        Layer.provideMerge(Layer.orDie(webhookSettingsLayer({ db: file })), databaseLayer({ db: file, synchronous }).pipe(Layer.provide(metrics.layer)))
      )
    : undefined
const runtime = sqliteRuntime ?? ManagedRuntime.make(memoryLayer)

/** Sends `requests` to `handle`, `concurrency` at a time, each expected to be answered `status`. */
const drive = async (
  handle: (req: Request) => Response | Promise<Response>,
  requests: ReadonlyArray<() => Request>,
  status: number
): Promise<Array<Response>> => {
  const answers: Array<Response> = []
  let next = 0
  const worker = async () => {
    while (next < requests.length) {
      const make = requests[next++]
      if (make === undefined) break
      const res = await handle(make())
      if (res.status !== status) throw new Error(`a request was answered ${res.status}: ${await res.text()}`)
      answers.push(res)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return answers
}

const measure = async (): Promise<string> => {
  await runtime.runPromise(createWorkspace("pipeline", "Pipeline"))
  const key = (await runtime.runPromise(createApiKey("pipeline", ["claims:write"]))).key
  if (sqliteRuntime === undefined && dropped.length > 0) throw new Error("--drop-index needs --storage sqlite")
  for (const name of dropped) {
    await sqliteRuntime?.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP INDEX ${name}`)))
  }
  const handle = makeFetch(runtime, withDefaults({ rateLimit: 0 }), metrics)
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
  let counter = 0
  const createRequests = (): Array<() => Request> =>
    Array.from({ length: creates }, () => {
      const body = JSON.stringify(validPayload(`pipeline-${++counter}`))
      return () => new Request("http://127.0.0.1/api/encounters", { method: "POST", headers, body })
    })
  // The status scenario's claims: those of `creates` encounters, made before the first round.
  const claims: Array<string> = []
  // The read scenario's encounters (made before the first round), read in a new random order each round.
  const encounters: Array<string> = []
  if (scenario === "status" || scenario === "read") {
    const created = await drive(handle, createRequests(), 202)
    const reads: Array<() => Request> = []
    for (const res of created) {
      const body: unknown = await res.json()
      const id = typeof body === "object" && body !== null && "encounter_id" in body ? body.encounter_id : undefined
      if (typeof id !== "string") throw new Error("a create's answer has no encounter_id")
      encounters.push(id)
      reads.push(() => new Request(`http://127.0.0.1/api/encounters/${id}`, { headers }))
    }
    for (const res of await drive(handle, reads, 200)) {
      const body: unknown = await res.json()
      const latest = typeof body === "object" && body !== null && "latest_claim" in body ? body.latest_claim : undefined
      const claim = typeof latest === "object" && latest !== null && "id" in latest ? latest.id : undefined
      if (typeof claim !== "string") throw new Error("an encounter read has no latest_claim.id")
      claims.push(claim)
    }
  }
  const statusRequests = (round: number): Array<() => Request> => {
    const body = JSON.stringify({ status: STATUS_CYCLE[(round - 1) % STATUS_CYCLE.length] })
    return claims.map((id) => () => new Request(`http://127.0.0.1/api/claims/${id}/status`, { method: "POST", headers, body }))
  }
  const readRequests = (): Array<() => Request> => {
    return shuffled(encounters).map((id) => () => new Request(`http://127.0.0.1/api/encounters/${id}`, { headers }))
  }
  const count = scenario === "status" ? claims.length : creates
  const rows: Array<string> = []
  for (let round = 1; round <= rounds; round++) {
    const requests = scenario === "status" ? statusRequests(round) : scenario === "read" ? readRequests() : createRequests()
    const cpu0 = process.cpuUsage()
    const started = performance.now()
    for (const res of await drive(handle, requests, scenario === "create" ? 202 : 200)) await res.arrayBuffer()
    const wall = (performance.now() - started) * 1000
    const cpu = process.cpuUsage(cpu0)
    const line = `| ${round}${round <= WARM_UP_ROUNDS ? " (warm-up)" : ""} | ${fmt((cpu.user + cpu.system) / count)} | ${fmt(wall / count)} |`
    process.stderr.write(`${line}\n`)
    rows.push(line)
  }
  const what = scenario === "status" ? "claim status change" : scenario === "read" ? "read" : "create"
  const load =
    scenario === "status"
      ? `${count} claim status changes a round (each claim of ${creates} encounters once)`
      : scenario === "read"
        ? `${creates} encounter reads a round (each of ${creates} encounters once, in a new random order)`
        : `${creates} unique creates a round`
  const title = scenario === "status" ? "Claim status changes" : scenario === "read" ? "Encounter reads (random ids)" : "Creates"
  return [
    `## ${title} through the request pipeline, ${new Date().toISOString()}`,
    "",
    `${machineLine()}; one process, no sockets; ${load}, ${concurrency} at a time; ${storage === "memory" ? "memory storage (the pipeline without a database)" : `SQLite file at synchronous ${synchronous}`}${dropped.length > 0 ? `; indexes dropped: ${dropped.join(", ")}` : ""}.`,
    "",
    `| round | CPU µs per ${what} | wall µs per ${what} |`,
    "|---|---:|---:|",
    ...rows,
    ""
  ].join("\n")
}

try {
  const report = await measure()
  process.stderr.write(`${report}\nappended to ${appendResult("pipeline.md", report)}\n`)
} finally {
  await runtime.dispose()
  rmSync(dir, { recursive: true, force: true })
}
