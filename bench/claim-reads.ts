/**
 * What reading a claim with its encounter costs bun:sqlite, statement by statement: the storage's
 * statements (`lib/adapters/sql/statements.ts`: the claims found first as a materialized CTE,
 * then their encounters joined) beside the same reads written as a plain join, on one file.
 *
 *   bun bench/claim-reads.ts [--encounters 4000] [--rounds 5]
 *
 * Makes a fresh SQLite file through the same layers as `encounterd serve` (migrations included)
 * and creates `--encounters` encounters through the request pipeline (each with its first claim,
 * event and audit entry), then reads every claim once per round in a new random order with each
 * statement, the statements alternating round by round. Reports the median µs per read of each
 * (wall time of `values()`, one connection, nothing else running) and appends a Markdown report
 * to bench/results/claim-reads.md.
 */
import { Database } from "bun:sqlite"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { Layer, ManagedRuntime } from "effect"
import { databaseLayer } from "../bin/database.js"
import type { SqlValue } from "../lib/adapters/sql/dialect.js"
import * as S from "../lib/adapters/sql/statements.js"
import { createApiKey, createWorkspace } from "../lib/rules/workspaces.js"
import { webhookSettingsLayer } from "../lib/webhooks/settings.js"
import { withDefaults } from "../server/config.js"
import { makeFetch } from "../server/http.js"
import { setLogSink } from "../server/log.js"
import { makeServerMetrics } from "../server/server-metrics.js"
import { validPayload } from "../test/support/payloads.js"
import { appendResult, fmt, machineLine, shuffled } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    encounters: { type: "string", default: "4000" },
    rounds: { type: "string", default: "5" }
  }
})
const count = Number(flags.encounters)
const rounds = Number(flags.rounds)
if (!Number.isInteger(count) || count < 1) throw new Error("--encounters must be a positive integer")
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer")

const dir = mkdtempSync(join(tmpdir(), "encounterd-claim-reads-"))
const file = join(dir, "claims.sqlite")

/** Fills the file: a workspace, a key and `count` encounters created through the request pipeline. */
const fill = async (): Promise<void> => {
  // The creates' request log is not what is measured.
  setLogSink(() => {})
  const metrics = makeServerMetrics()
  const runtime = ManagedRuntime.make(
    Layer.provideMerge(Layer.orDie(webhookSettingsLayer({ db: file })), databaseLayer({ db: file, synchronous: "FULL" }).pipe(Layer.provide(metrics.layer)))
  )
  try {
    await runtime.runPromise(createWorkspace("bench", "Bench"))
    const key = (await runtime.runPromise(createApiKey("bench", []))).key
    const handle = makeFetch(runtime, withDefaults({ rateLimit: 0 }), metrics)
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    for (let n = 0; n < count; n += 32) {
      const batch = Array.from({ length: Math.min(32, count - n) }, (_, i) =>
        Promise.resolve(handle(new Request("http://127.0.0.1/api/encounters", { method: "POST", headers, body: JSON.stringify(validPayload(`claim-reads-${n + i}`)) })))
      )
      for (const res of await Promise.all(batch)) if (res.status !== 202) throw new Error(`a create was answered ${res.status}: ${await res.text()}`)
    }
  } finally {
    await runtime.dispose()
  }
}

const { codecs } = S
const claimColumns = codecs.claims.columns.map((c) => `c.${c} AS c_${c}`).join(", ")
const encounterColumns = codecs.encounters.columns.map((c) => `e.${c}`).join(", ")
const PLAIN_JOIN = "FROM claims c JOIN encounters e ON e.id = c.encounter_id"

interface Claim {
  readonly id: string
  readonly workspace_id: string
  readonly patient_control_number: string
}

/** Each read: the statement's text and its parameters for one claim. */
const reads: ReadonlyArray<{ readonly name: string; readonly statement: (c: Claim) => { readonly sql: string; readonly params: ReadonlyArray<SqlValue> } }> = [
  { name: "status move's read, plain join", statement: (c) => ({ sql: `SELECT e.external_id AS e_external_id, e.latest_claim_id AS e_latest_claim_id, e.payload AS e_payload, ${claimColumns} ${PLAIN_JOIN} WHERE c.id = ? AND c.workspace_id = ?`, params: [c.id, c.workspace_id] }) },
  { name: "status move's read (claimToChange)", statement: (c) => S.claimToChange(c.workspace_id, c.id) },
  { name: "claim with its encounter's row, plain join", statement: (c) => ({ sql: `SELECT ${encounterColumns}, ${claimColumns} ${PLAIN_JOIN} WHERE c.id = ? AND c.workspace_id = ?`, params: [c.id, c.workspace_id] }) },
  { name: "claim with its encounter's row (claim)", statement: (c) => S.claim(c.workspace_id, c.id) },
  { name: "by control number, plain join", statement: (c) => ({ sql: `SELECT ${encounterColumns}, ${claimColumns} ${PLAIN_JOIN} WHERE c.workspace_id = ? AND c.patient_control_number = ?`, params: [c.workspace_id, c.patient_control_number] }) },
  { name: "by control number (claimByPcn)", statement: (c) => S.claimByPcn(c.workspace_id, c.patient_control_number) }
]

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? NaN
}

try {
  process.stderr.write(`creating ${count} encounters ...\n`)
  await fill()
  const db = new Database(file, { readonly: true })
  const claims = db.query<Claim, []>("SELECT id, workspace_id, patient_control_number FROM claims").all()
  const timings = reads.map(() => [] as Array<number>)
  for (let round = 0; round < rounds; round++) {
    const order = shuffled(claims)
    for (let k = 0; k < reads.length; k++) {
      // Each round starts one statement further along, so none always runs first.
      const r = (k + round) % reads.length
      const read = reads[r]!
      const statement = db.prepare<unknown, Array<SqlValue>>(read.statement(order[0]!).sql)
      let rows = 0
      const started = performance.now()
      for (const c of order) rows += statement.values(...read.statement(c).params).length
      timings[r]!.push(((performance.now() - started) * 1000) / order.length)
      if (rows !== order.length) throw new Error(`${read.name}: ${rows} rows for ${order.length} claims`)
      statement.finalize()
    }
  }
  db.close()
  const lines = [
    `## Claims read with their encounters, ${new Date().toISOString()}`,
    "",
    `${machineLine()}; one bun:sqlite connection, ${count} encounters (${claims.length} claims) made through the request pipeline; every claim read once per round in a new random order; ${rounds} rounds.`,
    "",
    "| read | median µs a read | every round |",
    "|---|---:|---|",
    ...reads.map((r, i) => `| ${r.name} | ${fmt(median(timings[i]!), 1)} | ${timings[i]!.map((t) => fmt(t, 1)).join(", ")} |`),
    ""
  ]
  const report = lines.join("\n")
  process.stdout.write(`${report}\n`)
  process.stderr.write(`appended to ${appendResult("claim-reads.md", report)}\n`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
