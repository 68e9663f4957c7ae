/**
 * A create's cost through the whole request pipeline in one process, without sockets or a load
 * generator: steadier than the load bench on a small shared machine, for comparing changes to the
 * create path (and what each index written by a create costs).
 *
 *   bun bench/pipeline.ts [--creates 8000] [--rounds 4] [--concurrency 32] [--synchronous NORMAL|FULL]
 *                         [--drop-index NAME ...]
 *
 * Opens a fresh SQLite file through the same layers as `encounterd serve` (migrations included),
 * creates a workspace and a key, builds the server's request handler (`makeFetch`) and calls it
 * with `Request` objects: `--creates` unique creates per round, `--concurrency` at a time, each
 * answered 202. It reports, per round, the process's CPU µs and the wall µs per create; the first
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
import { createApiKey, createWorkspace } from "../lib/rules/workspaces.js"
import { webhookSettingsLayer } from "../lib/webhooks/settings.js"
import { withDefaults } from "../server/config.js"
import { makeFetch } from "../server/http.js"
import { makeServerMetrics } from "../server/server-metrics.js"
import { validPayload } from "../test/support/payloads.js"
import { appendResult, fmt, machineLine } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    creates: { type: "string", default: "8000" },
    rounds: { type: "string", default: "4" },
    concurrency: { type: "string", default: "32" },
    synchronous: { type: "string", default: "NORMAL" },
    "drop-index": { type: "string", multiple: true, default: [] }
  }
})
const creates = Number(flags.creates)
const rounds = Number(flags.rounds)
const concurrency = Number(flags.concurrency)
const synchronous = flags.synchronous.toUpperCase()
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
const runtime = ManagedRuntime.make(
  Layer.merge(
    databaseLayer({ db: file, synchronous }).pipe(Layer.provide(metrics.layer)),
    Layer.orDie(webhookSettingsLayer({ db: file }))
  )
)

const measure = async (): Promise<string> => {
  await runtime.runPromise(createWorkspace("pipeline", "Pipeline"))
  const key = (await runtime.runPromise(createApiKey("pipeline"))).key
  for (const name of dropped) {
    await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP INDEX ${name}`)))
  }
  const handle = makeFetch(runtime, withDefaults({ rateLimit: 0 }), metrics)
  const rows: Array<string> = []
  let counter = 0
  for (let round = 1; round <= rounds; round++) {
    const bodies = Array.from({ length: creates }, () => JSON.stringify(validPayload(`pipeline-${++counter}`)))
    let next = 0
    const worker = async () => {
      while (next < bodies.length) {
        const body = bodies[next++] ?? ""
        const res = await handle(
          new Request("http://127.0.0.1/api/encounters", {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body
          })
        )
        if (res.status !== 202) throw new Error(`a create was answered ${res.status}: ${await res.text()}`)
        await res.arrayBuffer()
      }
    }
    const cpu0 = process.cpuUsage()
    const started = performance.now()
    await Promise.all(Array.from({ length: concurrency }, worker))
    const wall = (performance.now() - started) * 1000
    const cpu = process.cpuUsage(cpu0)
    const line = `| ${round}${round <= WARM_UP_ROUNDS ? " (warm-up)" : ""} | ${fmt((cpu.user + cpu.system) / creates)} | ${fmt(wall / creates)} |`
    process.stderr.write(`${line}\n`)
    rows.push(line)
  }
  return [
    `## Creates through the request pipeline, ${new Date().toISOString()}`,
    "",
    `${machineLine()}; one process, no sockets; ${creates} unique creates a round, ${concurrency} at a time; SQLite file at synchronous ${synchronous}${dropped.length > 0 ? `; indexes dropped: ${dropped.join(", ")}` : ""}.`,
    "",
    "| round | CPU µs per create | wall µs per create |",
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
