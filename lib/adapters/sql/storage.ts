import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Layer, Option, type ParseResult, Schema } from "effect"
import type { RawOutcome, RawRequestRecord } from "../../domain/encounter.js"
import { EncounterId } from "../../domain/ids.js"
import { SlugTaken, StorageError } from "../../domain/errors.js"
import type { EventRecord } from "../../domain/event.js"
import { recordedAt } from "../../domain/event.js"
import { type InsertResult, Storage, type StorageShape } from "../../ports/storage.js"
import {
  ApiKeyRow,
  CreatedAtRow,
  ApiKeyWithWorkspaceRow,
  EncounterRow,
  EventRow,
  IdRow,
  RawRequestRow,
  toApiKey,
  toEncounterWithClaim,
  toRawRequest,
  toStoredEvent,
  toWorkspace,
  WorkspaceRow
} from "./rows.js"

class PcnConflict extends Data.TaggedError("PcnConflict") {}

const storageError = (operation: string) => (cause: SqlError | ParseResult.ParseError) => new StorageError({ operation, cause })

/**
 * The SQL adapter written on `@effect/sql`'s SqlClient: PostgreSQL's adapter, usable on any
 * SqlClient (SQLite has a faster one of its own, `adapters/sqlite`). Each port method is one
 * transaction at most.
 */
export const makeSqlStorage = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const decodeAll = <A, I>(schema: Schema.Schema<A, I>) => {
    const decode = Schema.decodeUnknown(Schema.Array(schema))
    return <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) => Effect.flatMap(query, (rows) => decode(rows))
  }
  const first = <A>(rows: ReadonlyArray<A>) => Option.fromNullable(rows[0])
  const run = <A, R>(operation: string, effect: Effect.Effect<A, SqlError | ParseResult.ParseError, R>) =>
    Effect.mapError(effect, storageError(operation))

  const workspaces = decodeAll(WorkspaceRow)
  const apiKeys = decodeAll(ApiKeyRow)
  const apiKeysWithWs = decodeAll(ApiKeyWithWorkspaceRow)
  const rawRequests = decodeAll(RawRequestRow)
  const encounterRows = decodeAll(EncounterRow)
  const eventRows = decodeAll(EventRow)
  const idRows = decodeAll(IdRow)

  const encounterColumns = sql`e.id, e.workspace_id, e.external_id, e.created_at, e.source, e.payload,
      e.latest_claim_id, e.initial_claim_status, e.initial_patient_control_number, e.last_event_at,
      c.id AS c_id, c.created_at AS c_created_at, c.status AS c_status,
      c.status_changed_at AS c_status_changed_at, c.patient_control_number AS c_patient_control_number`
  const encounterSelect = sql`SELECT ${encounterColumns} FROM encounters e JOIN claims c ON c.id = e.latest_claim_id`

  const eventColumns = sql`seq, id, workspace_id, event_type, created_at, timestamp, payload`

  /**
   * PostgreSQL: event-writing transactions of one workspace take a transaction-scoped advisory lock
   * first, so they commit in the order their event sequence numbers were drawn. A poller reading
   * forward by sequence can then never pass a number whose transaction commits later (several
   * instances, one database). SQLite serializes writers already.
   */
  const serializeFeed = (ws: string) =>
    sql.onDialectOrElse({
      pg: () => Effect.asVoid(sql`SELECT pg_advisory_xact_lock(hashtext(${ws}))`),
      orElse: () => Effect.void
    })

  const lastCreatedAt = decodeAll(CreatedAtRow)

  /**
   * Records an event inside its (feed-serialized) transaction. Its `created_at` is never earlier
   * than the workspace's previous event: clocks of several instances differ, and a transaction
   * that read the clock first may record last. So `created_at` follows the recorded order, and a
   * poller resuming from `created_after` (inclusive) misses nothing. Answers the recorded time.
   */
  const insertEvent = (e: EventRecord) =>
    Effect.gen(function* () {
      const last = yield* lastCreatedAt(
        sql`SELECT created_at FROM events WHERE workspace_id = ${e.workspace_id} ORDER BY seq DESC LIMIT 1`
      )
      const createdAt = recordedAt(e.created_at, last[0]?.created_at)
      yield* sql`INSERT INTO events (id, workspace_id, event_type, created_at, timestamp, payload)
        VALUES (${e.id}, ${e.workspace_id}, ${e.event_type}, ${createdAt}, ${e.timestamp}, ${JSON.stringify(e.payload)})`
      return createdAt
    })

  const insertRaw = (r: RawRequestRecord, result: RawOutcome) =>
    sql`INSERT INTO raw_requests (id, workspace_id, key_id, received_at, content_type, body, outcome, result)
      VALUES (${r.id}, ${r.workspace_id}, ${r.key_id}, ${r.received_at}, ${r.content_type}, ${r.body},
        ${result.outcome}, ${JSON.stringify(result)})`

  const storage: StorageShape = {
    ping: () => run("ping", sql`SELECT 1`).pipe(Effect.asVoid),
    insertWorkspace: (ws) =>
      run(
        "insertWorkspace",
        Effect.gen(function* () {
          const rows = yield* idRows(sql`INSERT INTO workspaces (id, slug, name, created_at)
            VALUES (${ws.id}, ${ws.slug}, ${ws.name}, ${ws.created_at})
            ON CONFLICT (slug) DO NOTHING RETURNING id`)
          return rows.length
        })
      ).pipe(Effect.flatMap((n) => (n === 0 ? Effect.fail(new SlugTaken({ slug: ws.slug })) : Effect.void))),
    findWorkspaceBySlug: (slug) =>
      run(
        "findWorkspaceBySlug",
        workspaces(sql`SELECT id, slug, name FROM workspaces WHERE slug = ${slug}`)
      ).pipe(Effect.map((rows) => Option.map(first(rows), toWorkspace))),
    listWorkspaces: () =>
      run(
        "listWorkspaces",
        workspaces(sql`SELECT id, slug, name FROM workspaces ORDER BY created_at, id`)
      ).pipe(Effect.map((rows) => rows.map(toWorkspace))),

    insertApiKey: (k) =>
      run(
        "insertApiKey",
        sql`INSERT INTO api_keys (id, workspace_id, hash, prefix, scopes, created_at, last_used_at, revoked_at)
          VALUES (${k.id}, ${k.workspace_id}, ${k.hash}, ${k.prefix}, ${JSON.stringify(k.scopes)}, ${k.created_at},
            ${k.last_used_at}, ${k.revoked_at})`
      ).pipe(Effect.asVoid),
    findApiKeyByHash: (hash) =>
      run(
        "findApiKeyByHash",
        apiKeysWithWs(sql`SELECT k.*, w.slug AS ws_slug, w.name AS ws_name
          FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = ${hash}`)
      ).pipe(
        Effect.map((rows) =>
          Option.map(first(rows), (r) => ({
            key: toApiKey(r),
            workspace: { id: r.workspace_id, slug: r.ws_slug, name: r.ws_name }
          }))
        )
      ),
    listApiKeys: (ws) =>
      run(
        "listApiKeys",
        apiKeys(sql`SELECT * FROM api_keys WHERE workspace_id = ${ws} ORDER BY created_at, id`)
      ).pipe(Effect.map((rows) => rows.map(toApiKey))),
    revokeApiKey: (id, at) =>
      run(
        "revokeApiKey",
        Effect.gen(function* () {
          yield* sql`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`
          return yield* apiKeys(sql`SELECT * FROM api_keys WHERE id = ${id}`)
        })
      ).pipe(Effect.map((rows) => Option.map(first(rows), toApiKey))),
    touchApiKey: (id, at) =>
      run("touchApiKey", sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${id}`).pipe(Effect.asVoid),

    insertRawRequest: (r) => run("insertRawRequest", insertRaw(r, r.result)).pipe(Effect.asVoid),
    findRawRequest: (ws, id) =>
      run(
        "findRawRequest",
        rawRequests(sql`SELECT id, workspace_id, key_id, received_at, content_type, body, result
          FROM raw_requests WHERE id = ${id} AND workspace_id = ${ws}`)
      ).pipe(Effect.map((rows) => Option.map(first(rows), toRawRequest))),

    findEncounterIdByExternalId: (ws, ext) =>
      run(
        "findEncounterIdByExternalId",
        idRows(sql`SELECT id FROM encounters WHERE workspace_id = ${ws} AND external_id = ${ext}`)
      ).pipe(Effect.map((rows) => Option.map(first(rows), (r) => EncounterId.make(r.id)))),

    insertEncounter: ({ encounter: e, claim: c, event, raw }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* serializeFeed(e.workspace_id)
            // The unique (workspace_id, external_id) decides concurrent creates: no read-then-write.
            const inserted = yield* idRows(sql`INSERT INTO encounters (id, workspace_id, external_id, created_at, source,
                payload, latest_claim_id, latest_claim_status, initial_claim_status, initial_patient_control_number, last_event_at,
                latest_claim_created_at, latest_claim_status_changed_at, latest_claim_patient_control_number)
              VALUES (${e.id}, ${e.workspace_id}, ${e.external_id}, ${e.created_at}, ${e.source}, ${JSON.stringify(e.payload)},
                ${e.latest_claim_id}, ${c.status}, ${e.initial_claim_status}, ${e.initial_patient_control_number}, ${e.last_event_at},
                ${c.created_at}, ${c.status_changed_at}, ${c.patient_control_number})
              ON CONFLICT (workspace_id, external_id) DO NOTHING RETURNING id`)
            if (inserted.length === 0) {
              const existing = yield* idRows(
                sql`SELECT id FROM encounters WHERE workspace_id = ${e.workspace_id} AND external_id = ${e.external_id}`
              )
              const winner = existing[0]
              if (winner === undefined) return yield* Effect.dieMessage("encounter conflict without a row")
              return { _tag: "Duplicate", encounter_id: EncounterId.make(winner.id) } satisfies InsertResult
            }
            const claim = yield* idRows(sql`INSERT INTO claims (id, workspace_id, encounter_id, created_at, status,
                status_changed_at, patient_control_number)
              VALUES (${c.id}, ${c.workspace_id}, ${c.encounter_id}, ${c.created_at}, ${c.status}, ${c.status_changed_at},
                ${c.patient_control_number})
              ON CONFLICT (workspace_id, patient_control_number) DO NOTHING RETURNING id`)
            if (claim.length === 0) return yield* new PcnConflict()
            const recorded = yield* insertEvent(event)
            if (recorded !== e.last_event_at) {
              yield* sql`UPDATE encounters SET last_event_at = ${recorded} WHERE id = ${e.id}`
            }
            yield* insertRaw(raw, { outcome: "accepted", encounter_id: e.id })
            return { _tag: "Inserted" } satisfies InsertResult
          })
        )
        .pipe(
          Effect.catchTag("PcnConflict", () => Effect.succeed({ _tag: "PatientControlNumberTaken" } satisfies InsertResult)),
          Effect.mapError(storageError("insertEncounter"))
        ),

    findEncounter: (ws, id) =>
      run(
        "findEncounter",
        encounterRows(sql`${encounterSelect} WHERE e.id = ${id} AND e.workspace_id = ${ws}`)
      ).pipe(Effect.map((rows) => Option.map(first(rows), toEncounterWithClaim))),

    listEncounters: (ws, q) => {
      const pos = q.position
      const clauses = [
        sql`e.workspace_id = ${ws}`,
        ...(q.external_id === undefined ? [] : [sql`e.external_id = ${q.external_id}`]),
        ...(q.claim_status === undefined ? [] : [sql`e.latest_claim_status = ${q.claim_status}`]),
        ...(pos === undefined
          ? []
          : pos.dir === "next"
            ? [sql`(e.created_at, e.id) < (${pos.key[0] ?? ""}, ${pos.key[1] ?? ""})`]
            : [sql`(e.created_at, e.id) > (${pos.key[0] ?? ""}, ${pos.key[1] ?? ""})`])
      ]
      // Newest first; a "prev" scan reads upward and the rule reverses it.
      const order =
        pos?.dir === "prev" ? sql`ORDER BY e.created_at ASC, e.id ASC` : sql`ORDER BY e.created_at DESC, e.id DESC`
      return run(
        "listEncounters",
        encounterRows(sql`${encounterSelect} WHERE ${sql.and(clauses)} ${order} LIMIT ${q.limit + 1}`)
      ).pipe(Effect.map((rows) => rows.map(toEncounterWithClaim)))
    },

    findClaim: (ws, id) =>
      run(
        "findClaim",
        encounterRows(sql`SELECT ${encounterColumns}
          FROM claims c JOIN encounters e ON e.id = c.encounter_id
          WHERE c.id = ${id} AND c.workspace_id = ${ws}`)
      ).pipe(Effect.map((rows) => Option.map(first(rows), toEncounterWithClaim))),

    changeClaimStatus: (ws, ch) =>
      run(
        "changeClaimStatus",
        sql.withTransaction(
          Effect.gen(function* () {
            yield* serializeFeed(ws)
            // Compare-and-set on the status read by the rule: of two racing moves, one updates no row.
            const updated = yield* idRows(sql`UPDATE claims SET status = ${ch.next}, status_changed_at = ${ch.at}
              WHERE id = ${ch.claim_id} AND workspace_id = ${ws} AND status = ${ch.expected} RETURNING id`)
            if (updated.length === 0) return false
            const recorded = yield* insertEvent(ch.event)
            yield* sql`UPDATE encounters SET last_event_at = ${recorded}, latest_claim_status = ${ch.next},
                latest_claim_status_changed_at = ${ch.at}
              WHERE id = ${ch.encounter_id} AND workspace_id = ${ws} AND latest_claim_id = ${ch.claim_id}`
            return true
          })
        )
      ),

    listEvents: (ws, q) => {
      const pos = q.position
      const clauses = [
        sql`workspace_id = ${ws}`,
        ...(q.event_types === undefined ? [] : [sql.in("event_type", q.event_types)]),
        ...(q.created_after === undefined ? [] : [sql`created_at >= ${q.created_after}`]),
        ...(q.created_before === undefined ? [] : [sql`created_at <= ${q.created_before}`]),
        ...(pos === undefined
          ? []
          : pos.dir === "next"
            ? [sql`seq > ${Number(pos.key[0])}`]
            : [sql`seq < ${Number(pos.key[0])}`])
      ]
      // Oldest first in recorded order; a "prev" scan reads downward and the rule reverses it.
      const order = pos?.dir === "prev" ? sql`ORDER BY seq DESC` : sql`ORDER BY seq ASC`
      return run(
        "listEvents",
        eventRows(sql`SELECT ${eventColumns} FROM events WHERE ${sql.and(clauses)} ${order} LIMIT ${q.limit + 1}`)
      ).pipe(Effect.map((rows) => rows.map(toStoredEvent)))
    },
    findEvent: (ws, id) =>
      run(
        "findEvent",
        eventRows(sql`SELECT ${eventColumns} FROM events WHERE id = ${id} AND workspace_id = ${ws}`)
      ).pipe(Effect.map((rows) => Option.map(first(rows), toStoredEvent)))
  }
  return storage
})

export const SqlStorage = {
  /** Storage on whatever SqlClient is provided (PostgreSQL, or any other SqlClient). */
  layer: Layer.effect(Storage, makeSqlStorage)
}
