/**
 * What the SQLite adapter does beyond the storage contract: group commit (writes of one turn share
 * a transaction, each in its own savepoint), answers only after the commit, reads of one turn in
 * one read transaction, and the key cache, which must still see a revocation made by another
 * connection (the CLI) on the very next request.
 */
import { rawWrite } from "../support/raw-write.js"
import { Database } from "bun:sqlite"
import { afterAll, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Migrator, SqlClient } from "@effect/sql"
import { Cause, Effect, Either, Layer, ManagedRuntime, Option } from "effect"
import { migrations, migrationsThrough } from "../../lib/adapters/sql/migrations/index.js"
import tasksMigration from "../../lib/adapters/sql/migrations/0019-tasks.js"
import { openBunDriver } from "../../lib/adapters/sqlite/bun-driver.js"
import { makeSqliteSqlClient } from "../../lib/adapters/sqlite/client.js"
import { makeReadBatching } from "../../lib/adapters/sqlite/driver.js"
import { makeSqliteStorage } from "../../lib/adapters/sqlite/storage.js"
import { ApiKeyId, ClaimId, EncounterId, EventId, WorkspaceId } from "../../lib/domain/ids.js"
import { liveServices } from "../../lib/layers.js"
import { Clock, Ids } from "../../lib/ports/clock.js"
import { DeliverySignal } from "../../lib/webhooks/signal.js"
import { Storage, type StorageShape } from "../../lib/ports/storage.js"
import { appendEvent, insert } from "../../lib/ports/write.js"
import { changeClaimStatus, statusUpdated } from "../../lib/rules/change-claim-status.js"
import { createEncounter, intakeEncounter } from "../../lib/rules/create-encounter.js"
import { listIntakeRequests } from "../../lib/rules/intake-log.js"
import { listX12FileOutcomes, listX12Files } from "../../lib/rules/x12-reads.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEventFeed } from "../../lib/rules/read-events.js"
import { eventJson } from "../../lib/domain/event.js"
import { authenticate, createApiKey, createWorkspace, revokeApiKey } from "../../lib/rules/workspaces.js"
import { createWebhookEndpoint } from "../../lib/rules/webhook-endpoints.js"
import { ephemeralWebhookSettings } from "../../lib/webhooks/settings.js"
import { sqliteStorageLayer } from "../../lib/sqlite-bun.js"
import { validPayload } from "../support/payloads.js"

const dir = mkdtempSync(join(tmpdir(), "encounterd-sqlite-adapter-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const open = () => {
  const file = join(dir, `db-${n++}.sqlite`)
  return { file, runtime: ManagedRuntime.make(Layer.merge(sqliteStorageLayer(file), liveServices)) }
}
const count = (file: string, table: string): number => {
  const db = new Database(file, { readonly: true })
  try {
    return Number(db.prepare<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n)
  } finally {
    db.close()
  }
}

describe("SQLite adapter: group commit", () => {
  test("200 concurrent creates: every one answered, each stored once with its event and raw request", async () => {
    const { file, runtime } = open()
    try {
      const ws = await runtime.runPromise(createWorkspace("gc", "GC"))
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => runtime.runPromise(createEncounter(ws.id, validPayload(`gc-${i}`))))
      )
      expect(new Set(results.map((r) => r.encounter_id)).size).toBe(200)
      expect(results.every((r) => !r.duplicate)).toBe(true)
      // Answered means committed: another connection sees every row.
      expect(count(file, "encounters")).toBe(200)
      expect(count(file, "claims")).toBe(200)
      expect(count(file, "events")).toBe(200)
      expect(count(file, "raw_requests")).toBe(200)
    } finally {
      await runtime.dispose()
    }
  })

  test("the connection keeps the savepoints' statement journals (and temporary tables) in memory: temp_store is MEMORY", async () => {
    const { runtime } = open()
    try {
      const rows = await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<{ temp_store: number }>("PRAGMA temp_store")))
      // 2 is MEMORY (0 the compiled default, 1 FILE).
      expect(rows.map((r) => Number(r.temp_store))).toEqual([2])
    } finally {
      await runtime.dispose()
    }
  })

  test("a write that fails in a batch undoes only itself; the others of the batch commit", async () => {
    const { file, runtime } = open()
    try {
      const ws = await runtime.runPromise(createWorkspace("mixed", "Mixed"))
      await runtime.runPromise(createEncounter(ws.id, validPayload("first", { patient_control_number: "PCN1" })))
      const storage = await runtime.runPromise(Storage)
      const key = await runtime.runPromise(createApiKey("mixed"))
      // Started in one turn, so queued into one batch: a taken control number (undone by its
      // savepoint after its encounter row was written), a taken slug, a key whose id exists (a
      // constraint error), and two good creates.
      const outcomes = await Promise.all([
        runtime.runPromise(Effect.either(createEncounter(ws.id, validPayload("second", { patient_control_number: "PCN1" })))),
        runtime.runPromise(Effect.either(createWorkspace("mixed", "Again"))),
        runtime.runPromise(
          Effect.either(
            rawWrite(storage, {
              operation: "insertApiKey",
              steps: [
                insert("api_keys", {
                  id: ApiKeyId.make(key.id),
                  workspace_id: ws.id,
                  hash: "x".repeat(64),
                  prefix: "eik_xxxxxx",
                  scopes: ["encounters"],
                  created_at: new Date().toISOString(),
                  last_used_at: null,
                  revoked_at: null
                })
              ]
            })
          )
        ),
        runtime.runPromise(Effect.either(createEncounter(ws.id, validPayload("third")))),
        runtime.runPromise(Effect.either(createEncounter(ws.id, validPayload("fourth"))))
      ])
      const tagOf = (o: Either.Either<unknown, { readonly _tag: string }>): string => (Either.isLeft(o) ? o.left._tag : "ok")
      const tags = outcomes.map(tagOf)
      expect(tags).toEqual(["PatientControlNumberTaken", "SlugTaken", "StorageError", "ok", "ok"])
      expect(count(file, "encounters")).toBe(3)
      expect(count(file, "claims")).toBe(3)
      expect(count(file, "events")).toBe(3)
      expect(count(file, "workspaces")).toBe(1)
      expect(count(file, "api_keys")).toBe(1)
      // Every create request is kept with its outcome, the refused one too.
      expect(count(file, "raw_requests")).toBe(4)
    } finally {
      await runtime.dispose()
    }
  })

  test("writes still queued when the runtime is disposed are committed before the database closes", async () => {
    const { file, runtime } = open()
    const ws = await runtime.runPromise(createWorkspace("closing", "Closing"))
    const pending = Array.from({ length: 20 }, (_, i) => runtime.runPromise(createEncounter(ws.id, validPayload(`c-${i}`))).catch(() => undefined))
    await runtime.dispose()
    await Promise.all(pending)
    expect(count(file, "encounters")).toBe(20)
  })
})

describe("SQLite adapter: reads and the key cache", () => {
  test("a key revoked through another connection is refused on the next request", async () => {
    const { file, runtime } = open()
    const other = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(file), liveServices))
    try {
      await runtime.runPromise(createWorkspace("keys", "Keys"))
      const key = await runtime.runPromise(createApiKey("keys"))
      // Authenticated (and cached) by the first connection...
      const first = await runtime.runPromise(authenticate(key.key))
      expect(first.keyId).toBe(key.id)
      // ...revoked by the second, as the CLI would...
      await other.runPromise(revokeApiKey(key.id))
      // ...and refused by the first on its next request.
      const after = await runtime.runPromise(Effect.either(authenticate(key.key)))
      expect(Either.isLeft(after) && after.left._tag).toBe("Unauthorized")
    } finally {
      await other.dispose()
      await runtime.dispose()
    }
  })

  test("a revocation through the same connection applies at once, and a new key works at once", async () => {
    const { runtime } = open()
    try {
      await runtime.runPromise(createWorkspace("same", "Same"))
      const key = await runtime.runPromise(createApiKey("same"))
      await runtime.runPromise(authenticate(key.key))
      await runtime.runPromise(revokeApiKey(key.id))
      const after = await runtime.runPromise(Effect.either(authenticate(key.key)))
      expect(Either.isLeft(after) && after.left._tag).toBe("Unauthorized")
      const fresh = await runtime.runPromise(createApiKey("same"))
      expect((await runtime.runPromise(authenticate(fresh.key))).keyId).toBe(fresh.id)
    } finally {
      await runtime.dispose()
    }
  })

  test("rows written by another connection are read from the next turn on", async () => {
    const { file, runtime } = open()
    const other = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(file), liveServices))
    try {
      const ws = await runtime.runPromise(createWorkspace("seen", "Seen"))
      const storage = await runtime.runPromise(Storage)
      expect(Option.isNone(await runtime.runPromise(storage.findEncounterIdByExternalId(ws.id, "elsewhere")))).toBe(true)
      const made = await other.runPromise(createEncounter(ws.id, validPayload("elsewhere")))
      await new Promise((resolve) => setImmediate(resolve))
      const found = await runtime.runPromise(storage.findEncounterIdByExternalId(ws.id, "elsewhere"))
      expect(Option.getOrNull(found)).toBe(made.encounter_id)
    } finally {
      await other.dispose()
      await runtime.dispose()
    }
  })
})

describe("SQLite adapter: the feed's recorded times", () => {
  const recordedTimes = (file: string): Array<string> => {
    const db = new Database(file, { readonly: true })
    try {
      return db.prepare<{ created_at: string }, []>("SELECT created_at FROM events ORDER BY seq").all().map((r) => r.created_at)
    } finally {
      db.close()
    }
  }

  test("an event another connection recorded later than this one's kept time is seen: the next event is recorded after it", async () => {
    const { file, runtime } = open()
    // Another process whose clock runs a year ahead: its event is the feed's newest by time.
    const ahead = Layer.succeed(Clock, { now: () => Date.now() + 365 * 24 * 3600 * 1000 })
    const other = ManagedRuntime.make(Layer.mergeAll(sqliteStorageLayer(file), Ids.live, DeliverySignal.live, ahead))
    try {
      const ws = await runtime.runPromise(createWorkspace("feed", "Feed"))
      const first = await runtime.runPromise(createEncounter(ws.id, validPayload("feed-1")))
      await runtime.runPromise(createEncounter(ws.id, validPayload("feed-2")))
      await other.runPromise(createEncounter(ws.id, validPayload("feed-elsewhere")))
      await new Promise((resolve) => setImmediate(resolve))
      const encounter = await runtime.runPromise(getEncounter(ws.id, first.encounter_id))
      await runtime.runPromise(changeClaimStatus(ws.id, encounter.claim.id, "missing_information"))
      const times = recordedTimes(file)
      expect(times).toHaveLength(4)
      expect([...times].sort()).toEqual(times)
      expect(times[3]! >= times[2]!).toBe(true)
      expect(times[2]! > times[1]!).toBe(true)
    } finally {
      await other.dispose()
      await runtime.dispose()
    }
  })

  test("a write undone after appending its event leaves no kept time behind: the next event follows the stored ones", async () => {
    const { file, runtime } = open()
    try {
      const ws = await runtime.runPromise(createWorkspace("undo", "Undo"))
      const made = await runtime.runPromise(createEncounter(ws.id, validPayload("undo-1")))
      const storage = await runtime.runPromise(Storage)
      const ids = await runtime.runPromise(Ids)
      const read = await runtime.runPromise(getEncounter(ws.id, made.encounter_id))
      const found = await runtime.runPromise(storage.findClaim(ws.id, read.claim.id))
      if (Option.isNone(found)) throw new Error("the claim was not found")
      const { encounter, claim } = found.value
      // An event a year ahead, then a step that fails (an API key whose id is taken): the write is
      // undone, its event with it.
      const future = new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString()
      const event = statusUpdated(ws.id, EventId.make(ids.next()), encounter, claim, "missing_information", future)
      const key = await runtime.runPromise(createApiKey("undo"))
      const failed = await runtime.runPromise(
        Effect.either(
          rawWrite(storage, {
            operation: "appendThenFail",
            steps: [
              appendEvent(event),
              insert("api_keys", {
                id: ApiKeyId.make(key.id),
                workspace_id: ws.id,
                hash: "y".repeat(64),
                prefix: "eik_yyyyyy",
                scopes: ["encounters"],
                created_at: new Date().toISOString(),
                last_used_at: null,
                revoked_at: null
              })
            ]
          })
        )
      )
      expect(Either.isLeft(failed)).toBe(true)
      await runtime.runPromise(changeClaimStatus(ws.id, read.claim.id, "missing_information"))
      const times = recordedTimes(file)
      expect(times).toHaveLength(2)
      expect(times[1]! < future).toBe(true)
    } finally {
      await runtime.dispose()
    }
  })
})

describe("SQLite adapter: the event cache", () => {
  /** Every page of the feed, followed from the first by next_page_token, and one filtered page. */
  const feed = <E>(runtime: ManagedRuntime.ManagedRuntime<Storage, E>, ws: WorkspaceId) =>
    Effect.gen(function* () {
      const pages: Array<ReadonlyArray<string>> = []
      let token: string | undefined
      do {
        const page = yield* listEventFeed(ws, { limit: 3, page_token: token })
        pages.push(page.items.map((e) => `${e.seq}:${e.id}:${eventJson(e)}`))
        token = page.next_page_token ?? undefined
      } while (token !== undefined)
      const moved = yield* listEventFeed(ws, { limit: 100, event_types: ["ExternalApi.Encounter.StatusUpdated"] })
      return { pages, moved: moved.items.map((e) => eventJson(e)) }
    }).pipe(runtime.runPromise)

  const reader = (file: string, capacity: number) =>
    ManagedRuntime.make(
      Layer.merge(
        sqliteStorageLayer(file, capacity === 0 ? { readCache: false } : { eventCacheSize: capacity }),
        liveServices
      )
    )

  for (const capacity of [10_000, 2]) {
    test(`pages read again (cache of ${capacity}) equal an uncached connection's, as the feed grows and is filtered`, async () => {
      const { file, runtime: writer } = open()
      const cached = reader(file, capacity)
      try {
        const ws = await writer.runPromise(createWorkspace("cache", "Cache"))
        const made = []
        for (let i = 0; i < 7; i++) made.push(await writer.runPromise(createEncounter(ws.id, validPayload(`cache-${i}`))))
        for (let round = 0; round < 3; round++) {
          // Round 1 fills the cache, round 2 reads it, round 3 after a new event and a status change.
          if (round === 2) {
            made.push(await writer.runPromise(createEncounter(ws.id, validPayload("cache-late"))))
            const first = await writer.runPromise(getEncounter(ws.id, made[0]!.encounter_id))
            await writer.runPromise(changeClaimStatus(ws.id, first.claim.id, "submitted_to_payer"))
            await new Promise((resolve) => setImmediate(resolve))
          }
          const uncached = reader(file, 0)
          try {
            const a = await feed(cached, ws.id)
            const b = await feed(cached, ws.id)
            const c = await feed(uncached, ws.id)
            expect(b).toEqual(a)
            expect(c).toEqual(a)
            expect(a.pages.flat()).toHaveLength(round === 2 ? 9 : 7)
            expect(a.moved).toHaveLength(round === 2 ? 1 : 0)
          } finally {
            await uncached.dispose()
          }
        }
      } finally {
        await cached.dispose()
        await writer.dispose()
      }
    })
  }
})

describe("SQLite adapter: migrations", () => {
  test("a database made before migration 2 opens with its claims' columns copied onto their encounters", async () => {
    const file = join(dir, `db-${n++}.sqlite`)
    // The schema as migration 1 left it, with one encounter whose claim status has since changed.
    const driver = openBunDriver(file)
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* makeSqliteSqlClient(driver, makeReadBatching(driver))
          yield* Effect.provideService(Migrator.make({})({ loader: Migrator.fromRecord(migrationsThrough(1)) }), SqlClient.SqlClient, sql)
        })
      )
    )
    const at = "2026-11-01T00:00:00.000Z"
    const changed = "2026-11-02T00:00:00.000Z"
    driver.exec(`INSERT INTO workspaces (id, slug, name, created_at) VALUES ('01a00000-0000-7000-8000-000000000001', 'old', 'Old', '${at}')`)
    driver
      .prepare(`INSERT INTO encounters (id, workspace_id, external_id, created_at, source, payload, latest_claim_id, latest_claim_status,
        initial_claim_status, initial_patient_control_number, last_event_at) VALUES (?, ?, ?, ?, 'api', ?, ?, 'submitted_to_payer', 'draft', 'OLD1', ?)`)
      .run("01a00000-0000-7000-8000-000000000002", "01a00000-0000-7000-8000-000000000001", "old-1", at, JSON.stringify(validPayload("old-1")),
        "01a00000-0000-7000-8000-000000000003", changed)
    driver
      .prepare(`INSERT INTO claims (id, workspace_id, encounter_id, created_at, status, status_changed_at, patient_control_number)
        VALUES (?, ?, ?, ?, 'submitted_to_payer', ?, 'OLD1')`)
      .run("01a00000-0000-7000-8000-000000000003", "01a00000-0000-7000-8000-000000000001", "01a00000-0000-7000-8000-000000000002", at, changed)
    driver.close()

    const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(file), liveServices))
    try {
      const found = await runtime.runPromise(
        getEncounter(WorkspaceId.make("01a00000-0000-7000-8000-000000000001"), "01a00000-0000-7000-8000-000000000002")
      )
      expect(found.claim).toEqual({
        id: ClaimId.make("01a00000-0000-7000-8000-000000000003"),
        workspace_id: WorkspaceId.make("01a00000-0000-7000-8000-000000000001"),
        encounter_id: EncounterId.make("01a00000-0000-7000-8000-000000000002"),
        created_at: at,
        status: "submitted_to_payer",
        status_changed_at: changed,
        patient_control_number: "OLD1",
        payer_claim_control_number: null,
        processing_started_at: null,
        last_checked_at: null,
        // Migration 14: a claim stored before corrections is an original with none of their columns.
        frequency_code: "1",
        resubmission_original_claim_id: null,
        resubmission_action: null,
        original_payer_claim_control_number: null,
        clearinghouse_transaction_ids: [],
        primary_claim_id: null,
        payload: null
      })
    } finally {
      await runtime.dispose()
    }
  })

  /**
   * A database file as the migrations in `before` left it, holding what `body` wrote with today's
   * rules. Today's writes name the columns added since (`later`, as `name definition` of the
   * encounters table, or `claims.name definition`): they are there while `body` runs, and dropped
   * again after, so the file is as `before` left it.
   */
  const storedBefore = async <A>(
    before: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>,
    later: ReadonlyArray<string>,
    body: Effect.Effect<A, unknown, Storage | Clock | Ids | DeliverySignal>
  ): Promise<{ file: string; made: A }> => {
    const file = join(dir, `db-${n++}.sqlite`)
    const driver = openBunDriver(file)
    const made = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const reads = makeReadBatching(driver)
          const sql = yield* makeSqliteSqlClient(driver, reads)
          yield* Effect.provideService(Migrator.make({})({ loader: Migrator.fromRecord(before) }), SqlClient.SqlClient, sql)
          for (const column of later) driver.exec(`ALTER TABLE ${tableOf(column)} ADD COLUMN ${columnOf(column)}`)
          // Today's status moves read the claim's open tasks (migration 19): the tables are there while `body` runs.
          const tasksThere = driver.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'tasks'").all().length > 0
          if (!tasksThere) yield* Effect.provideService(tasksMigration, SqlClient.SqlClient, sql)
          const storage = yield* makeSqliteStorage(driver, reads, { readCache: false })
          yield* Effect.addFinalizer(() => Effect.sync(() => (tasksThere ? undefined : driver.exec("DROP TABLE tasks; DROP TABLE work_queue_settings"))))
          return yield* Effect.provide(Effect.provideService(body, Storage, storage), liveServices)
        })
      )
    )
    for (const column of later) driver.exec(`ALTER TABLE ${tableOf(column)} DROP COLUMN ${columnOf(column).split(" ")[0]}`)
    driver.close()
    return { file, made }
  }
  const tableOf = (column: string) => (column.startsWith("claims.") ? "claims" : "encounters")
  const columnOf = (column: string) => (column.startsWith("claims.") ? column.slice("claims.".length) : column)
  /** The columns migration 14 added, which today's writes of a claim (and its encounter's copy) name. */
  const correctionColumns = [
    "frequency_code TEXT NOT NULL DEFAULT '1'",
    "resubmission_original_claim_id TEXT",
    "resubmission_action TEXT",
    "original_payer_claim_control_number TEXT",
    "clearinghouse_transaction_ids TEXT NOT NULL DEFAULT '[]'",
    "primary_claim_id TEXT"
  ]
  const claimCorrectionColumns = [
    ...correctionColumns.map((c) => `claims.${c}`),
    "claims.payload TEXT",
    ...correctionColumns.map((c) => `latest_claim_${c}`),
    // Migration 16's claim column (its encounter copy is listed with the search columns' later ones).
    "claims.last_checked_at TEXT"
  ]
  /** The columns migration 13 added, which today's writes of an encounter name. */
  const searchColumns = [
    "patient_last_name_lower TEXT NOT NULL DEFAULT ''",
    "patient_date_of_birth TEXT NOT NULL DEFAULT ''",
    "date_of_service TEXT",
    "payer_id TEXT",
    "billed_cents INTEGER NOT NULL DEFAULT 0",
    // Migration 16's copy of the claim's last_checked_at.
    "latest_claim_last_checked_at TEXT"
  ]
  const throughMigration5 = migrationsThrough(5)

  test("a database made before migration 6 finds its stored events by their encounter", async () => {
    // An encounter whose claim has moved once.
    const { file, made } = await storedBefore(
      throughMigration5,
      ["revision INTEGER NOT NULL DEFAULT 0", "raw_request_id TEXT", ...searchColumns, ...claimCorrectionColumns],
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("old", "Old")).id
        const created = yield* createEncounter(ws, validPayload("old-1"))
        yield* createEncounter(ws, validPayload("old-2"))
        yield* changeClaimStatus(ws, (yield* getEncounter(ws, created.encounter_id)).claim.id, "coded")
        return { ws, id: created.encounter_id }
      })
    )
    const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(file), liveServices))
    try {
      const events = await runtime.runPromise(Effect.flatMap(Storage, (s) => s.listEncounterEvents(made.ws, made.id, { limit: 10 })))
      expect(events.map((e) => [e.event_type, e.payload.encounter_id])).toEqual([
        ["ExternalApi.Encounter.Created", made.id],
        ["ExternalApi.Encounter.StatusUpdated", made.id]
      ])
    } finally {
      await runtime.dispose()
    }
  })

  test("a database made before migration 11 gives its webhook endpoints slots in creation order, per workspace", async () => {
    const { file } = await storedBefore(
      migrationsThrough(10),
      [],
      Effect.void
    )
    const uuid = (n: number) => `01a00000-0000-7000-8000-00000000000${n}`
    const rows: ReadonlyArray<readonly [number, string, string]> = [
      [2, "ws-one", "2026-01-02T00:00:00.000Z"],
      [1, "ws-one", "2026-01-02T00:00:00.000Z"],
      [3, "ws-one", "2026-01-01T00:00:00.000Z"],
      [4, "ws-two", "2026-01-03T00:00:00.000Z"]
    ]
    const db = new Database(file)
    try {
      for (const [n, ws, at] of rows) {
        db.prepare(
          `INSERT INTO webhook_endpoints (id, workspace_id, url, event_types, description, status, disabled_reason, secret,
             previous_secret, previous_secret_expires_at, failing_since, created_at, updated_at)
           VALUES (?, ?, 'https://a.example/x', '[]', NULL, 'enabled', NULL, 'v1.k.sealed', NULL, NULL, NULL, ?, ?)`
        ).run(uuid(n), ws, at, at)
      }
    } finally {
      db.close()
    }
    const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(file), liveServices))
    try {
      const slots = await runtime.runPromise(
        Effect.flatMap(Storage, (s) =>
          Effect.forEach(rows, ([n, ws]) => Effect.map(s.get("webhook_endpoints", WorkspaceId.make(ws), uuid(n)), (e) => Option.map(e, (x) => x.slot)))
        )
      )
      // Oldest first; the same time is ordered by id.
      expect(slots).toEqual([Option.some(2), Option.some(1), Option.some(0), Option.some(0)])
      const refused = await runtime.runPromise(
        Effect.either(createWebhookEndpoint(WorkspaceId.make("ws-one"), { url: "http://127.0.0.1:9/x" })).pipe(
          Effect.provide(ephemeralWebhookSettings({ allowPrivate: true, maxEndpoints: 3 }))
        )
      )
      expect(Either.isLeft(refused) && refused.left._tag).toBe("WebhookEndpointLimitReached")
      const made = await runtime.runPromise(
        createWebhookEndpoint(WorkspaceId.make("ws-one"), { url: "http://127.0.0.1:9/x" }).pipe(
          Effect.provide(ephemeralWebhookSettings({ allowPrivate: true, maxEndpoints: 4 }))
        )
      )
      const stored = await runtime.runPromise(Effect.flatMap(Storage, (s) => s.get("webhook_endpoints", WorkspaceId.make("ws-one"), made.id)))
      expect(Option.map(stored, (e) => e.slot)).toEqual(Option.some(3))
    } finally {
      await runtime.dispose()
    }
  })

  test("a database made before migration 10 lists each external id's accepted request with its replays and rejections", async () => {
    const body = (u: unknown) => new TextEncoder().encode(JSON.stringify(u))
    const { file, made } = await storedBefore(
      migrationsThrough(9),
      ["raw_request_id TEXT", ...searchColumns, ...claimCorrectionColumns],
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("old", "Old")).id
        yield* Effect.either(intakeEncounter({ workspace_id: ws, body: body({ ...validPayload("old-1"), diagnoses: [] }) }))
        const accepted = yield* intakeEncounter({ workspace_id: ws, body: body(validPayload("old-1")) })
        yield* intakeEncounter({ workspace_id: ws, body: body(validPayload("old-1")) })
        const other = yield* intakeEncounter({ workspace_id: ws, body: body(validPayload("old-2")) })
        return { ws, accepted, other }
      })
    )
    const db = new Database(file, { readonly: true })
    try {
      expect(db.prepare("SELECT name FROM pragma_table_info('encounters') WHERE name = 'raw_request_id'").all()).toEqual([])
    } finally {
      db.close()
    }
    const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(file), liveServices))
    try {
      const trail = await runtime.runPromise(listIntakeRequests(made.ws, { external_id: "old-1" }))
      expect(trail.items.map((r) => r.outcome)).toEqual(["duplicate", "accepted", "rejected"])
      expect(trail.items[1]!.id).toBe(made.accepted.raw_request_id)
      const accepted = await runtime.runPromise(listIntakeRequests(made.ws, { external_id: "old-2", outcome: "accepted" }))
      expect(accepted.items.map((r) => r.id)).toEqual([made.other.raw_request_id])
    } finally {
      await runtime.dispose()
    }
  })

  test("a database made before migration 12 keeps its files' outcomes, now paged on their own, the file's row with its first 20, a summary and its size, its bytes apart", async () => {
    const { file, made } = await storedBefore(
      migrationsThrough(11),
      [],
      Effect.map(createWorkspace("old", "Old"), (w) => ({ ws: w.id }))
    )
    const outcomes = Array.from({ length: 25 }, (_, i) => ({
      patient_control_number: `PCN${i}`,
      claim_id: null,
      outcome: i < 5 ? ("unmatched" as const) : ("unchanged" as const),
      previous_status: null,
      status: null,
      detail: `entry ${i}`
    }))
    const db = new Database(file)
    try {
      const insertFile = db.prepare(
        "INSERT INTO x12_files (id, workspace_id, received_at, key_id, content_type, kind, sender_id, interchange_control_number, interchange_key, sha256, body, claims, error) VALUES (?, ?, ?, NULL, 'application/edi-x12', ?, ?, ?, ?, ?, ?, ?, ?)"
      )
      insertFile.run("f-old", made.ws, "2026-11-01T00:00:00.000Z", "277CA", "CH", "000000001", "CH|000000001", "a".repeat(64), new Uint8Array(1234), JSON.stringify(outcomes), null)
      insertFile.run("f-bad", made.ws, "2026-11-01T00:00:01.000Z", "invalid", null, null, "invalid|f-bad", "b".repeat(64), new Uint8Array(7), "[]", "missing ISA at segment 1 (XYZ)")
    } finally {
      db.close()
    }
    const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(file), liveServices))
    try {
      const files = await runtime.runPromise(listX12Files(made.ws, {}))
      expect(files.items.map((f) => [f.id, f.size, f.claims.length, f.summary])).toEqual([
        ["f-bad", 7, 0, { total: 0, status_changed: 0, unchanged: 0, unmatched: 0, conflict: 0 }],
        ["f-old", 1234, 20, { total: 25, status_changed: 0, unchanged: 20, unmatched: 5, conflict: 0 }]
      ])
      const paged = await runtime.runPromise(listX12FileOutcomes(made.ws, "f-old", { limit: 100 }))
      // Migration 15: outcomes stored before keep no structured response.
      expect(paged.items).toEqual(outcomes.map((o) => ({ ...o, response: null })))
      const bytes = await runtime.runPromise(Effect.flatMap(Storage, (s) => s.get("x12_file_bodies", made.ws, "f-old")))
      expect(Option.getOrThrow(bytes).body.byteLength).toBe(1234)
    } finally {
      await runtime.dispose()
    }
  })
})

interface Deferred {
  readonly promise: Promise<void>
  readonly resolve: () => void
  readonly reject: (e: unknown) => void
}
const deferred = (): Deferred => {
  let resolve = (): void => undefined
  let reject = (_e: unknown): void => undefined
  const promise = new Promise<void>((res, rej) => {
    resolve = () => res()
    reject = rej
  })
  return { promise, resolve, reject }
}

describe("SQLite adapter: FULL durability by syncing the WAL", () => {
  /** Storage on a migrated in-memory database, with a WAL sync the test completes by hand. */
  const withManualSync = async (body: (s: { storage: StorageShape; syncs: Array<Deferred> }) => Promise<void>) => {
    const driver = openBunDriver(":memory:")
    const reads = makeReadBatching(driver)
    const syncs: Array<Deferred> = []
    const walSync = {
      sync: () => {
        const next = deferred()
        syncs.push(next)
        return next.promise
      },
      syncNow: () => undefined
    }
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* makeSqliteSqlClient(driver, reads)
          yield* Effect.provideService(Migrator.make({})({ loader: migrations }), SqlClient.SqlClient, sql)
          const storage = yield* makeSqliteStorage(driver, reads, { walSync })
          yield* Effect.promise(() => body({ storage, syncs }))
        })
      )
    )
    driver.close()
  }
  const workspace = (i: number) => ({
    id: WorkspaceId.make(`01a00000-0000-7000-8000-00000000000${i}`),
    slug: `ws-${i}`,
    name: "W",
    created_at: "2026-11-01T00:00:00.000Z"
  })
  const settled = async <A>(p: Promise<A>): Promise<boolean> => {
    let done = false
    void p.then(
      () => (done = true),
      () => (done = true)
    )
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    return done
  }

  test("a write is answered only after the sync that began after its commit; later commits wait for the next sync", () =>
    withManualSync(async ({ storage, syncs }) => {
      const first = Effect.runPromise(rawWrite(storage, { operation: "createWorkspace", steps: [insert("workspaces", workspace(1))] }))
      expect(await settled(first)).toBe(false)
      expect(syncs.length).toBe(1)
      // Committed while the first sync runs: it waits for a sync of its own.
      const second = Effect.runPromise(rawWrite(storage, { operation: "createWorkspace", steps: [insert("workspaces", workspace(2))] }))
      expect(await settled(second)).toBe(false)
      expect(syncs.length).toBe(1)
      syncs[0]!.resolve()
      expect(await settled(first)).toBe(true)
      expect(await settled(second)).toBe(false)
      expect(syncs.length).toBe(2)
      syncs[1]!.resolve()
      expect(await settled(second)).toBe(true)
    }))

  test("a failed sync acknowledges nothing: the callers get a StorageError", () =>
    withManualSync(async ({ storage, syncs }) => {
      const write = Effect.runPromise(Effect.either(rawWrite(storage, { operation: "createWorkspace", steps: [insert("workspaces", workspace(3))] })))
      await settled(write)
      syncs[0]!.reject(new Error("EIO"))
      const outcome = await write
      expect(Either.isLeft(outcome) && outcome.left._tag).toBe("StorageError")
    }))
})

describe("SQLite adapter: mustExist", () => {
  test("a missing file is DatabaseMissing, and neither it nor its folder is made; an existing one opens", async () => {
    const missing = join(dir, "no-such-folder", "encounterd.sqlite")
    const refused = ManagedRuntime.make(sqliteStorageLayer(missing, { mustExist: true }))
    const exit = await refused.runPromiseExit(Effect.flatMap(Storage, (s) => s.listWorkspaces()))
    await refused.dispose()
    expect(exit._tag === "Failure" && Option.getOrUndefined(Cause.failureOption(exit.cause))).toMatchObject({
      _tag: "DatabaseMissing",
      database: missing
    })
    expect(existsSync(join(dir, "no-such-folder"))).toBe(false)

    const { file, runtime } = open()
    await runtime.runPromise(createWorkspace("clinic", "Clinic"))
    await runtime.dispose()
    const existing = ManagedRuntime.make(sqliteStorageLayer(file, { mustExist: true }))
    const workspaces = await existing.runPromise(Effect.flatMap(Storage, (s) => s.listWorkspaces()))
    await existing.dispose()
    expect(workspaces.map((w) => w.slug)).toEqual(["clinic"])
  })
})
