/**
 * The search at size: 100,000 encounters written straight into a migrated database (no planner
 * statistics on SQLite, as a database the service made has none; on PostgreSQL, with the
 * statistics autovacuum keeps), with payloads of a real one's size, then each search shape's
 * statement, as the adapter runs it, explained: it must read the filter's index (migration 13),
 * never the whole table, and a page's order must come from the index where one gives it. Times are
 * printed, not asserted (a shared machine's timing is no test); bench/console.ts measures the
 * server's time for the same searches.
 */
import { Database } from "bun:sqlite"
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { pgDialect, type Query } from "../../lib/adapters/sql/dialect.js"
import { migrate } from "../../lib/adapters/sql/migrations/index.js"
import { claimStatusCounts, claimWorkPage, encounterPage, encounterSearchRecent } from "../../lib/adapters/sql/statements.js"
import { WorkspaceId } from "../../lib/domain/ids.js"
import { Storage } from "../../lib/ports/storage.js"
import { sqliteStorageLayer } from "../../lib/sqlite-bun.js"
import type { ClaimWorkScan, EncounterScan } from "../../lib/ports/storage.js"
import { describePg, scratchDatabase } from "../support/postgres.js"
import { validPayload } from "../support/payloads.js"
import { searchValues } from "../support/search-rows.js"

const ROWS = 100_000
const WS = "01a00000-0000-7000-8000-0000000000aa"
const OTHER = "01a00000-0000-7000-8000-0000000000bb"
const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const STATUSES = ["draft", "coded", "submitted_to_payer", "paid", "rejected"]

const COLUMNS = [
  "id", "workspace_id", "external_id", "created_at", "source", "payload", "latest_claim_id", "latest_claim_status", "initial_claim_status",
  "initial_patient_control_number", "last_event_at", "latest_claim_created_at", "latest_claim_status_changed_at",
  "latest_claim_patient_control_number", "revision", "patient_last_name_lower", "patient_date_of_birth", "date_of_service", "payer_id", "billed_cents"
] as const

/** A stored payload's size (PostgreSQL weighs reading the table against reading an index by it). */
const PAYLOAD = JSON.stringify(validPayload("ext-0000000"))

/** Row `i`: created a minute after the one before, in the workspace (one in fifty in another). */
const row = (i: number, payload = "{}"): ReadonlyArray<string | number | null> => {
  const ms = T0 + i * 60_000
  const at = new Date(ms).toISOString()
  const id = `01a00000-${String(i).padStart(4, "0").slice(-4)}-7000-8000-${String(i).padStart(12, "0")}`
  const v = searchValues(i, ms)
  const pcn = `P${String(i).padStart(11, "0")}`
  return [
    id, i % 50 === 0 ? OTHER : WS, `ext-${String(i).padStart(7, "0")}`, at, "api", payload, id, STATUSES[i % STATUSES.length]!, "draft", pcn, at, at,
    new Date(ms + (i % 97) * 3_600_000).toISOString(), pcn, 0, v.patient_last_name_lower, v.patient_date_of_birth, v.date_of_service, v.payer_id,
    v.billed_cents
  ]
}

const name = searchValues(4242, T0).patient_last_name_lower
const birth = searchValues(777, T0).patient_date_of_birth

/** Each search shape, with the index (or indexes) its statement may read. */
const searches: ReadonlyArray<readonly [string, EncounterScan, ReadonlyArray<string>]> = [
  ["last name, 3 letters", { patient_last_name_prefix: name.slice(0, 3), limit: 100 }, ["encounters_last_name"]],
  ["last name, 1 letter", { patient_last_name_prefix: name.slice(0, 1), limit: 100 }, ["encounters_last_name"]],
  ["date of birth", { patient_date_of_birth: birth, limit: 100 }, ["encounters_birth_date"]],
  ["date of service, a week", { date_of_service_from: "2026-02-01", date_of_service_to: "2026-02-07", limit: 100 }, ["encounters_service_date"]],
  ["date of service, every day", { date_of_service_from: "2025-01-01", date_of_service_to: "2027-12-31", limit: 100 }, ["encounters_service_date"]],
  ["external id prefix, 10 rows", { external_id_prefix: "ext-000123", limit: 100 }, ["encounters_external_prefix"]],
  ["external id prefix, every row", { external_id_prefix: "ext-", limit: 100 }, ["encounters_external_prefix"]],
  ["payer", { payer_id: "MCR01", limit: 100 }, ["encounters_payer"]],
  ["last name and date of birth", { patient_last_name_prefix: name, patient_date_of_birth: birth, limit: 100 }, ["encounters_last_name", "encounters_birth_date"]],
  ["payer and a week of service", { payer_id: "MCR01", date_of_service_from: "2026-02-01", date_of_service_to: "2026-02-07", limit: 100 }, ["encounters_payer", "encounters_service_date"]],
  ["claim status and last name", { claim_status: "paid", patient_last_name_prefix: name.slice(0, 3), limit: 100 }, ["encounters_last_name", "encounters_status_page"]],
  ["a later page of a name", { patient_last_name_prefix: name.slice(0, 2), limit: 100, position: { dir: "next", key: [new Date(T0 + 50_000 * 60_000).toISOString(), "01a00000-0000-7000-8000-000000050000"] } }, ["encounters_last_name"]]
]

const work: ReadonlyArray<readonly [string, ClaimWorkScan, string]> = [
  ["work list by age", { status: "coded", by: "status_changed_at", descending: false, limit: 25 }, "encounters_status_age"],
  ["work list by amount", { status: "coded", by: "billed_cents", descending: true, limit: 25 }, "encounters_status_billed"],
  ["work list by amount, a later page", { status: "coded", by: "billed_cents", descending: true, limit: 25, position: { dir: "next", key: [50_000, WS] } }, "encounters_status_billed"]
]

const ms = (start: number) => (performance.now() - start).toFixed(2)

describe("search plans on SQLite at 100,000 encounters (no ANALYZE)", () => {
  const dir = mkdtempSync(join(tmpdir(), "encounterd-search-plan-"))
  const file = join(dir, "plans.sqlite")
  let db: Database
  afterAll(() => {
    db?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test("the rows are written straight into a migrated file", async () => {
    const runtime = ManagedRuntime.make(sqliteStorageLayer(file))
    await runtime.runPromise(Effect.void)
    await runtime.dispose()
    db = new Database(file)
    db.exec("PRAGMA synchronous = OFF")
    db.prepare("INSERT INTO workspaces (id, slug, name, created_at) VALUES (?, 'plans', 'Plans', ?), (?, 'other', 'Other', ?)").run(WS, "2026-01-01T00:00:00.000Z", OTHER, "2026-01-01T00:00:00.000Z")
    const insert = db.prepare(`INSERT INTO encounters (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`)
    const started = performance.now()
    db.transaction(() => {
      for (let i = 1; i <= ROWS; i++) insert.run(...row(i, PAYLOAD))
    })()
    process.stderr.write(`  ${ROWS.toLocaleString("en-US")} encounters written in ${ms(started)} ms\n`)
    expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM encounters").get()?.n).toBe(ROWS)
    expect(db.query("SELECT 1 FROM sqlite_master WHERE name LIKE 'sqlite_stat%'").all()).toEqual([])
  }, 120_000)

  const plan = (q: Query): ReadonlyArray<string> =>
    db.query<{ detail: string }, Array<string | number | null>>(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params.map((p) => (typeof p === "bigint" || p instanceof Uint8Array ? String(p) : p))).map((r) => r.detail)
  const run = (q: Query) => {
    const stmt = db.query<Record<string, unknown>, Array<string | number | null>>(q.sql)
    const params = q.params.map((p) => (typeof p === "bigint" || p instanceof Uint8Array ? String(p) : p))
    stmt.all(...params)
    const started = performance.now()
    const rows = stmt.all(...params)
    return { rows: rows.length, time: ms(started) }
  }

  for (const [what, scan, indexes] of searches) {
    test(`${what}: along ${indexes.join(" or ")}, never the whole table`, () => {
      const q = encounterPage(WS, scan)
      const steps = plan(q)
      const { rows, time } = run(q)
      process.stderr.write(`  ${what}: ${rows} rows in ${time} ms; ${steps.join(" | ")}\n`)
      // Finding the ids: an index search of one of the filters' indexes, holding every column it needs.
      const search = steps.find((s) => /^SEARCH encounters USING (COVERING )?INDEX /.test(s))
      expect({ what, search: indexes.some((i) => search?.includes(`INDEX ${i} `) === true) }).toEqual({ what, search: true })
      // Then the page's rows by id; never a scan of the table or of an index from its start.
      expect(steps.filter((s) => s.startsWith("SCAN"))).toEqual([])
      expect(steps).toContain("SEARCH e USING INDEX sqlite_autoindex_encounters_1 (id=?)")
    })
  }

  test("a search's first look, at the newest rows, reads a bounded stretch of the time index", () => {
    for (const [what, scan] of searches) {
      const q = encounterSearchRecent(WS, scan, 2000)
      const steps = plan(q)
      const { rows, time } = run(q)
      process.stderr.write(`  ${what} (the newest 2,000 rows): ${rows} matches in ${time} ms\n`)
      expect({ what, steps }).toEqual({ what, steps: ["CO-ROUTINE recent", "SEARCH encounters USING INDEX encounters_page (workspace_id=?)", "SCAN recent"].map((s, i) => (i === 1 && scan.position !== undefined ? "SEARCH encounters USING INDEX encounters_page (workspace_id=? AND created_at<?)" : s)) })
    }
  })

  test("through the storage (the newest rows first, then the range), each search's page is the one its range gives", async () => {
    db.close()
    const runtime = ManagedRuntime.make(sqliteStorageLayer(file))
    try {
      for (const [what, scan] of searches) {
        const page = await runtime.runPromise(Effect.flatMap(Storage, (s) => s.listEncounters(WorkspaceId.make(WS), scan)))
        const started = performance.now()
        await runtime.runPromise(Effect.flatMap(Storage, (s) => s.listEncounters(WorkspaceId.make(WS), scan)))
        const time = ms(started)
        const direct = new Database(file, { readonly: true })
        const q = encounterPage(WS, scan)
        const expected = direct.query<{ id: string }, Array<string | number | null>>(q.sql).all(...q.params.map((p) => (typeof p === "bigint" || p instanceof Uint8Array ? String(p) : p))).map((r) => r.id)
        direct.close()
        process.stderr.write(`  ${what} (through the storage): ${page.length} rows in ${time} ms\n`)
        expect({ what, ids: page.map((r) => String(r.encounter.id)) }).toEqual({ what, ids: expected })
      }
    } finally {
      await runtime.dispose()
      db = new Database(file)
    }
  })

  test("claim counts with their billed sums: one pass over the status and amount index, no table rows", () => {
    const q = claimStatusCounts(WS)
    const steps = plan(q)
    const { rows, time } = run(q)
    process.stderr.write(`  claim counts: ${rows} statuses in ${time} ms; ${steps.join(" | ")}\n`)
    expect(steps).toEqual(["SEARCH encounters USING COVERING INDEX encounters_status_billed (workspace_id=?)"])
  })

  for (const [what, scan, index] of work) {
    test(`${what}: along ${index}, in its order (no sort)`, () => {
      const q = claimWorkPage(WS, scan)
      const steps = plan(q)
      const { rows, time } = run(q)
      process.stderr.write(`  ${what}: ${rows} rows in ${time} ms; ${steps.join(" | ")}\n`)
      expect(steps.length).toBe(1)
      expect(steps[0]).toStartWith(`SEARCH encounters USING INDEX ${index} (workspace_id=? AND latest_claim_status=?`)
      expect(rows).toBe(26)
    })
  }
})

describePg("search plans on PostgreSQL at 100,000 encounters (after ANALYZE)", (adminUrl) => {
  test("each search reads an index of its filters, never the whole table", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const url = yield* scratchDatabase(adminUrl)
          const out = yield* Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            yield* migrate
            yield* sql`INSERT INTO workspaces (id, slug, name, created_at) VALUES (${WS}, 'plans', 'Plans', '2026-01-01T00:00:00.000Z'), (${OTHER}, 'other', 'Other', '2026-01-01T00:00:00.000Z')`
            const BATCH = 2000
            for (let from = 1; from <= ROWS; from += BATCH) {
              const rows = Array.from({ length: Math.min(BATCH, ROWS - from + 1) }, (_, k) => row(from + k, PAYLOAD))
              const marks = rows.map((_, r) => `(${COLUMNS.map((__, c) => `$${r * COLUMNS.length + c + 1}`).join(", ")})`).join(", ")
              yield* sql.unsafe(`INSERT INTO encounters (${COLUMNS.join(", ")}) VALUES ${marks}`, rows.flat())
            }
            yield* sql.unsafe("VACUUM ANALYZE encounters")
            const explain = (q: Query) =>
              Effect.map(sql.unsafe<{ "QUERY PLAN": unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${pgDialect.text(q)}`, [...q.params]), (rows) => JSON.stringify(rows[0]?.["QUERY PLAN"] ?? null))
            const plans: Array<readonly [string, string, ReadonlyArray<string>]> = []
            for (const [what, scan, indexes] of searches) plans.push([what, yield* explain(encounterPage(WS, scan)), indexes])
            for (const [what, scan, index] of work) plans.push([what, yield* explain(claimWorkPage(WS, scan)), [index]])
            plans.push(["claim counts", yield* explain(claimStatusCounts(WS)), ["encounters_status_billed"]])
            return plans
          }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
          for (const [what, text, indexes] of out) {
            const used = [...new Set([...text.matchAll(/"Index Name":"([a-z_0-9]+)"/g)].map((m) => m[1]!))]
            const time = /"Execution Time":([\d.]+)/.exec(text)?.[1] ?? "?"
            process.stderr.write(`  ${what}: ${time} ms along ${used.join(", ")} (its filters' own: ${indexes.join(" or ")})\n`)
            // PostgreSQL weighs its statistics: for a common value it may walk the newest-first index
            // and check each row, which finds a page sooner. Never the whole table.
            expect({ what, seqScan: text.includes('"Seq Scan"'), index: used.length > 0 }).toEqual({ what, seqScan: false, index: true })
          }
        })
      ).pipe(Effect.provide(Layer.empty))
    ), 180_000)
})
