/**
 * Migration 13 on a database made before it, on SQLite and PostgreSQL: the rows stored before get
 * the search and billing columns intake writes now (the same values as `searchColumns`, names
 * beyond ASCII folded as intake folds them), and the filters and counts find them.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Migrator, SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { openBunDriver } from "../../lib/adapters/sqlite/bun-driver.js"
import { makeSqliteSqlClient } from "../../lib/adapters/sqlite/client.js"
import { migrationsThrough } from "../../lib/adapters/sql/migrations/index.js"
import { makeReadBatching } from "../../lib/adapters/sqlite/driver.js"
import { searchColumns } from "../../lib/domain/encounter.js"
import { WorkspaceId } from "../../lib/domain/ids.js"
import { liveServices } from "../../lib/layers.js"
import { postgresStorageLayer } from "../../lib/postgres.js"
import { Storage } from "../../lib/ports/storage.js"
import { countClaimsByStatus } from "../../lib/rules/count-claims.js"
import { listEncounters } from "../../lib/rules/read-encounters.js"
import { sqliteStorageLayer } from "../../lib/sqlite-bun.js"
import { searchPayload } from "./encounter-search.contract.js"
import { describePg, scratchDatabase } from "../support/postgres.js"
import { validPayload } from "../support/payloads.js"

const throughMigration11 = Migrator.make({})({ loader: Migrator.fromRecord(migrationsThrough(11)) })

const WS = WorkspaceId.make("01a00000-0000-7000-8000-00000000aa01")
const uuid = (n: number) => `01a00000-0000-7000-8000-${String(n).padStart(12, "0")}`

/** Payloads as stored before migration 13, one per encounter (created one second apart, in this order). */
const stored: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["OLD-1", searchPayload("OLD-1", { last: "Smith", birth: "1980-01-02", seen: "2026-03-01", payer: "MCR01", charges: [10000, 2550] })],
  ["OLD-2", searchPayload("OLD-2", { last: "Öberg", birth: "1990-12-31", lineDate: "2026-03-04", charges: [4000] })],
  ["OLD-3", searchPayload("OLD-3", { last: "MÜLLER", birth: "1980-01-02", seen: "2026-03-05", lineDate: "2026-01-01", payer: "MCR01" })],
  // A line without a charge, and an explicit null where no subscriber is.
  [
    "OLD-4",
    {
      ...validPayload("OLD-4", { subscriber_primary: null }),
      service_lines: [
        { procedure_code: "99213", quantity: "1", units: "UN", diagnosis_pointers: [0], date_of_service: "2026-02-02" },
        { procedure_code: "87880", quantity: "1", units: "UN", diagnosis_pointers: [0], charge_amount_cents: 2800 }
      ]
    }
  ]
]

/** Writes the workspace and the encounters as rows of the schema migration 11 left. */
const storeBefore13 = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const at = "2026-11-01T00:00:00.000Z"
  yield* sql`INSERT INTO workspaces (id, slug, name, created_at) VALUES (${WS}, 'old', 'Old', ${at})`
  for (const [i, [ext, payload]] of stored.entries()) {
    const created = new Date(Date.parse(at) + (i + 1) * 1000).toISOString()
    const pcn = `OLD${i}`
    yield* sql`INSERT INTO encounters (id, workspace_id, external_id, created_at, source, payload, latest_claim_id, latest_claim_status,
        initial_claim_status, initial_patient_control_number, last_event_at, latest_claim_created_at, latest_claim_status_changed_at,
        latest_claim_patient_control_number, revision)
      VALUES (${uuid(100 + i)}, ${WS}, ${ext}, ${created}, 'api', ${JSON.stringify(payload)}, ${uuid(200 + i)}, ${i === 0 ? "coded" : "draft"},
        'draft', ${pcn}, ${created}, ${created}, ${created}, ${pcn}, 0)`
  }
})

/** What the migrated database must answer, through the rules and the storage port. */
const checkMigrated = Effect.gen(function* () {
  const storage = yield* Storage
  for (let i = 0; i < stored.length; i++) {
    const row = Option.getOrThrow(yield* storage.get("encounters", WS, uuid(100 + i)))
    expect({ ext: row.external_id, ...pick(row) }).toEqual({ ext: row.external_id, ...searchColumns(row.payload) })
  }
  const found = (q: Parameters<typeof listEncounters>[1]) => Effect.map(listEncounters(WS, q), (p) => p.items.map((r) => r.encounter.external_id))
  expect(yield* found({ patient_last_name: "sm" })).toEqual(["OLD-1"])
  expect(yield* found({ patient_last_name: "öBE" })).toEqual(["OLD-2"])
  expect(yield* found({ patient_last_name: "müll" })).toEqual(["OLD-3"])
  expect(yield* found({ patient_date_of_birth: "1980-01-02" })).toEqual(["OLD-3", "OLD-1"])
  expect(yield* found({ date_of_service_from: "2026-03-01", date_of_service_to: "2026-03-04" })).toEqual(["OLD-2", "OLD-1"])
  expect(yield* found({ date_of_service_to: "2026-02-02" })).toEqual(["OLD-4"])
  expect(yield* found({ payer_id: "MCR01" })).toEqual(["OLD-3", "OLD-1"])
  expect(yield* found({ external_id_prefix: "OLD-" })).toEqual(["OLD-4", "OLD-3", "OLD-2", "OLD-1"])
  const counts = (yield* countClaimsByStatus(WS)).filter((c) => c.count > 0)
  expect(counts).toEqual([
    { status: "draft", count: 3, billed_cents: 4000 + 12500 + 2800 },
    { status: "coded", count: 1, billed_cents: 12550 }
  ])
})

const pick = (row: { readonly [K in keyof ReturnType<typeof searchColumns>]: unknown }) => ({
  patient_last_name_lower: row.patient_last_name_lower,
  patient_date_of_birth: row.patient_date_of_birth,
  date_of_service: row.date_of_service,
  payer_id: row.payer_id,
  billed_cents: row.billed_cents
})

describe("migration 13 on SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "encounterd-search-migration-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test("rows stored before it are found by every search filter and counted with their billed amounts", async () => {
    const file = join(dir, "old.sqlite")
    const driver = openBunDriver(file)
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* makeSqliteSqlClient(driver, makeReadBatching(driver))
          yield* Effect.provideService(Effect.andThen(throughMigration11, storeBefore13), SqlClient.SqlClient, sql)
        })
      )
    )
    driver.close()
    const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(file), liveServices))
    try {
      await runtime.runPromise(checkMigrated)
    } finally {
      await runtime.dispose()
    }
  })
})

describePg("migration 13 on PostgreSQL", (adminUrl) => {
  test("rows stored before it are found by every search filter and counted with their billed amounts", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const url = yield* scratchDatabase(adminUrl)
          yield* Effect.andThen(throughMigration11, storeBefore13).pipe(
            Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
            Effect.scoped,
            Effect.orDie
          )
          yield* Effect.provide(checkMigrated, Layer.merge(Layer.orDie(postgresStorageLayer(url, { maxConnections: 2 })), liveServices))
        })
      )
    ), 60_000)
})
