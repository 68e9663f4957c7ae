import { Effect, Exit, Option } from "effect"
import type { EncounterWithClaim, RawOutcome, RawRequestRecord, StoredRawRequest } from "../../domain/encounter.js"
import type { EncounterCreate } from "../../domain/encounter-input.js"
import { SlugTaken, StorageError } from "../../domain/errors.js"
import { type EventPayload, type EventRecord, recordedAt, type StoredEvent } from "../../domain/event.js"
import { ApiKeyId, ClaimId, EncounterId, EventId, RawRequestId, WorkspaceId } from "../../domain/ids.js"
import type { ApiKeyRecord, Scope, Workspace } from "../../domain/workspace.js"
import type { EncounterScan, InsertResult, StorageShape } from "../../ports/storage.js"
import type { ReadBatching, SqliteDriver, SqliteRow, SqliteValue } from "./driver.js"

/** Rows come from this service's own tables: columns are read by name, with their stored types. */
const str = (row: SqliteRow, column: string): string => String(row[column])
const nullableStr = (row: SqliteRow, column: string): string | null => {
  const v = row[column]
  return v === null || v === undefined ? null : String(v)
}
/** JSON columns hold what this service wrote itself, validated on the way in. */
const json = <A>(row: SqliteRow, column: string): A => JSON.parse(String(row[column])) as A

const toWorkspace = (r: SqliteRow): Workspace => ({ id: WorkspaceId.make(str(r, "id"), true), slug: str(r, "slug"), name: str(r, "name") })

const toApiKey = (r: SqliteRow): ApiKeyRecord => ({
  id: ApiKeyId.make(str(r, "id"), true),
  workspace_id: WorkspaceId.make(str(r, "workspace_id"), true),
  hash: str(r, "hash"),
  prefix: str(r, "prefix"),
  scopes: json<ReadonlyArray<Scope>>(r, "scopes"),
  created_at: str(r, "created_at"),
  last_used_at: nullableStr(r, "last_used_at"),
  revoked_at: nullableStr(r, "revoked_at")
})

const toEncounterWithClaim = (r: SqliteRow): EncounterWithClaim => {
  const id = EncounterId.make(str(r, "id"), true)
  const workspace_id = WorkspaceId.make(str(r, "workspace_id"), true)
  return {
    encounter: {
      id,
      workspace_id,
      external_id: str(r, "external_id"),
      created_at: str(r, "created_at"),
      source: str(r, "source"),
      payload: json<EncounterCreate>(r, "payload"),
      latest_claim_id: ClaimId.make(str(r, "latest_claim_id"), true),
      initial_claim_status: str(r, "initial_claim_status"),
      initial_patient_control_number: str(r, "initial_patient_control_number"),
      last_event_at: str(r, "last_event_at")
    },
    claim: {
      id: ClaimId.make(str(r, "c_id"), true),
      workspace_id,
      encounter_id: id,
      created_at: str(r, "c_created_at"),
      status: str(r, "c_status"),
      status_changed_at: str(r, "c_status_changed_at"),
      patient_control_number: str(r, "c_patient_control_number")
    }
  }
}

const toStoredEvent = (r: SqliteRow): StoredEvent => ({
  seq: Number(r.seq),
  id: EventId.make(str(r, "id"), true),
  workspace_id: WorkspaceId.make(str(r, "workspace_id"), true),
  event_type: str(r, "event_type") as StoredEvent["event_type"],
  created_at: str(r, "created_at"),
  timestamp: str(r, "timestamp"),
  payload: json<EventPayload>(r, "payload")
})

const toRawRequest = (r: SqliteRow): StoredRawRequest => {
  const body = r.body
  const result = nullableStr(r, "result")
  return {
    id: RawRequestId.make(str(r, "id"), true),
    workspace_id: WorkspaceId.make(str(r, "workspace_id"), true),
    key_id: nullableStr(r, "key_id"),
    received_at: str(r, "received_at"),
    content_type: str(r, "content_type"),
    body: body instanceof Uint8Array ? body : new TextEncoder().encode(String(body)),
    result: result === null ? null : (JSON.parse(result) as RawOutcome)
  }
}

/**
 * An encounter with its latest claim, from the encounter's row alone: the claim's status, times and
 * control number are copied there (migration 2) in every transaction that writes them.
 */
const ENCOUNTER_COLUMNS = `e.id, e.workspace_id, e.external_id, e.created_at, e.source, e.payload,
  e.latest_claim_id, e.initial_claim_status, e.initial_patient_control_number, e.last_event_at,
  e.latest_claim_id AS c_id, e.latest_claim_created_at AS c_created_at, e.latest_claim_status AS c_status,
  e.latest_claim_status_changed_at AS c_status_changed_at, e.latest_claim_patient_control_number AS c_patient_control_number`
const ENCOUNTER_SELECT = `SELECT ${ENCOUNTER_COLUMNS} FROM encounters e`
/** A claim by its own id, with its encounter. */
const CLAIM_SELECT = `SELECT e.id, e.workspace_id, e.external_id, e.created_at, e.source, e.payload,
  e.latest_claim_id, e.initial_claim_status, e.initial_patient_control_number, e.last_event_at,
  c.id AS c_id, c.created_at AS c_created_at, c.status AS c_status,
  c.status_changed_at AS c_status_changed_at, c.patient_control_number AS c_patient_control_number
  FROM claims c JOIN encounters e ON e.id = c.encounter_id`
const EVENT_COLUMNS = "seq, id, workspace_id, event_type, created_at, timestamp, payload"

/** The SQL and parameters of one encounter list scan (filters, position, `limit + 1` rows in scan order). */
export const encounterListQuery = (ws: string, q: EncounterScan): { readonly sql: string; readonly params: ReadonlyArray<SqliteValue> } => {
  const pos = q.position
  const where = ["e.workspace_id = ?"]
  const params: Array<SqliteValue> = [ws]
  if (q.external_id !== undefined) {
    where.push("e.external_id = ?")
    params.push(q.external_id)
  }
  if (q.claim_status !== undefined) {
    where.push("e.latest_claim_status = ?")
    params.push(q.claim_status)
  }
  if (pos !== undefined) {
    // The bound on created_at alone lets SQLite seek in the (workspace, created_at, id)
    // index to the position; the second condition breaks ties within one millisecond.
    where.push(
      pos.dir === "next"
        ? "e.created_at <= ? AND (e.created_at < ? OR e.id < ?)"
        : "e.created_at >= ? AND (e.created_at > ? OR e.id > ?)"
    )
    const at = String(pos.key[0] ?? "")
    params.push(at, at, String(pos.key[1] ?? ""))
  }
  // Newest first; a "prev" scan reads upward and the rule reverses it.
  const order = pos?.dir === "prev" ? "ORDER BY e.created_at ASC, e.id ASC" : "ORDER BY e.created_at DESC, e.id DESC"
  params.push(q.limit + 1)
  return { sql: `${ENCOUNTER_SELECT} WHERE ${where.join(" AND ")} ${order} LIMIT ?`, params }
}

/** Thrown inside a batched write to undo that write alone and answer a value. */
class Undo<A> {
  constructor(readonly value: A) {}
}

interface WriteJob {
  readonly operation: string
  readonly run: () => unknown
  readonly done: (exit: Exit.Exit<unknown, StorageError>) => void
}

/**
 * Flushes committed transactions to stable storage when SQLite itself does not (WAL with
 * `synchronous = NORMAL`): `sync` off the event loop, `syncNow` blocking (at close).
 */
export interface WalSync {
  readonly sync: () => Promise<void>
  readonly syncNow: () => void
}

/** How committed batches become acknowledged: at once, or after a WAL sync begun after their commit. */
interface Acknowledger {
  readonly after: (answer: () => void, refuse: (cause: unknown) => void) => void
  /** At close: everything still waiting is synced now (blocking) and answered. */
  readonly drainNow: () => void
}

const acknowledger = (walSync: WalSync | undefined): Acknowledger => {
  // SQLite synced the commit itself: durable when it returned.
  if (walSync === undefined) return { after: (answer) => answer(), drainNow: () => undefined }
  type Waiting = { readonly answer: () => void; readonly refuse: (cause: unknown) => void }
  let waiting: Array<Waiting> = []
  let syncing = false
  let closed = false
  const answerAll = (batches: ReadonlyArray<Waiting>) => {
    for (const b of batches) b.answer()
  }
  // Not known to be on disk: nothing of these batches is acknowledged.
  const refuseAll = (batches: ReadonlyArray<Waiting>, cause: unknown) => {
    for (const b of batches) b.refuse(cause)
  }
  const syncNow = (batches: ReadonlyArray<Waiting>) => {
    try {
      walSync.syncNow()
    } catch (cause) {
      return refuseAll(batches, cause)
    }
    answerAll(batches)
  }
  const start = () => {
    const covered = waiting
    waiting = []
    syncing = true
    walSync
      .sync()
      .then(
        () => answerAll(covered),
        (cause: unknown) => refuseAll(covered, cause)
      )
      .finally(() => {
        syncing = false
        if (waiting.length > 0) start()
      })
  }
  const drainNow = () => {
    closed = true
    const last = waiting
    waiting = []
    if (last.length > 0) syncNow(last)
  }
  return {
    after: (answer, refuse) => {
      if (closed) return syncNow([{ answer, refuse }])
      waiting.push({ answer, refuse })
      if (!syncing) start()
    },
    drainNow
  }
}

export interface SqliteStorageOptions {
  /** Most writes committed together in one transaction (default 256). */
  readonly maxBatch?: number
  /**
   * When given, a batch is answered only after `sync` has completed after its commit. One sync
   * runs at a time; the batches committed while it runs share the next one.
   */
  readonly walSync?: WalSync
}

/**
 * The SQLite adapter: prepared statements on one connection, called synchronously, and group
 * commit for writes. Concurrent writes queue up; the queue is drained in one transaction (each
 * write in a savepoint of its own, so one failing write undoes only itself), committed with one
 * fsync under `synchronous = FULL`, and only then is each caller answered. Reads run at once,
 * those of one turn of the event loop in one read transaction (see `ReadBatching`).
 */
export const makeSqliteStorage = (driver: SqliteDriver, reads: ReadBatching, options: SqliteStorageOptions = {}) =>
  Effect.gen(function* () {
    const maxBatch = options.maxBatch ?? 256
    const acks = acknowledger(options.walSync)
    const q = driver.prepare

    const queue: Array<WriteJob> = []
    let scheduled = false
    let closed = false

    const begin = q("BEGIN IMMEDIATE")
    const commit = q("COMMIT")
    const rollback = q("ROLLBACK")
    const savepoint = q("SAVEPOINT w")
    const release = q("RELEASE w")
    const rollbackTo = q("ROLLBACK TO w")

    const fail = (operation: string, cause: unknown) => Exit.fail(new StorageError({ operation, cause }))

    const flush = (): void => {
      scheduled = false
      if (queue.length === 0) return
      reads.end()
      // A transaction opened through the SqlClient (an embedder's own) is still running: wait for it
      // (at close there is no waiting: the batch fails to begin and its callers get the error).
      if (driver.inTransaction() && !closed) {
        scheduled = true
        setTimeout(flush, 1)
        return
      }
      const batch = queue.splice(0, maxBatch)
      if (queue.length > 0) schedule()
      const results: Array<Exit.Exit<unknown, StorageError>> = []
      try {
        begin.run()
        for (const job of batch) {
          savepoint.run()
          try {
            results.push(Exit.succeed(job.run()))
            release.run()
          } catch (e) {
            rollbackTo.run()
            release.run()
            results.push(e instanceof Undo ? Exit.succeed(e.value) : fail(job.operation, e))
          }
        }
        commit.run()
      } catch (cause) {
        if (driver.inTransaction()) rollback.run()
        for (const job of batch) job.done(fail(job.operation, cause))
        return
      }
      acks.after(
        () => batch.forEach((job, i) => job.done(results[i] ?? fail(job.operation, "no result"))),
        (cause) => batch.forEach((job) => job.done(fail(job.operation, cause)))
      )
    }

    const schedule = () => {
      if (scheduled) return
      scheduled = true
      // After the I/O callbacks already due: requests that arrived meanwhile join this batch.
      setImmediate(flush)
    }

    /** A write: queued, committed with the others of its batch, answered after the commit. */
    const write = <A>(operation: string, run: () => A): Effect.Effect<A, StorageError> =>
      Effect.async<A, StorageError>((resume) => {
        if (closed) return resume(fail(operation, "the database is closed"))
        queue.push({ operation, run, done: (exit) => resume(exit as Exit.Exit<A, StorageError>) })
        schedule()
      })
    const read = <A>(operation: string, run: () => A): Effect.Effect<A, StorageError> =>
      Effect.try({
        try: () => {
          reads.ensure()
          return run()
        },
        catch: (cause) => new StorageError({ operation, cause })
      })

    // Pending writes are committed before the connection closes.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        reads.end()
        acks.drainNow()
        while (queue.length > 0) flush()
      })
    )

    const s = {
      ping: q("SELECT 1 AS one"),
      insertWorkspace: q("INSERT INTO workspaces (id, slug, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (slug) DO NOTHING"),
      workspaceBySlug: q("SELECT id, slug, name FROM workspaces WHERE slug = ?"),
      workspaces: q("SELECT id, slug, name FROM workspaces ORDER BY created_at, id"),
      insertApiKey: q(`INSERT INTO api_keys (id, workspace_id, hash, prefix, scopes, created_at, last_used_at, revoked_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      apiKeyByHash: q(`SELECT k.*, w.slug AS ws_slug, w.name AS ws_name
        FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = ?`),
      apiKeys: q("SELECT * FROM api_keys WHERE workspace_id = ? ORDER BY created_at, id"),
      revokeApiKey: q("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
      apiKey: q("SELECT * FROM api_keys WHERE id = ?"),
      touchApiKey: q("UPDATE api_keys SET last_used_at = ? WHERE id = ?"),
      insertRaw: q(`INSERT INTO raw_requests (id, workspace_id, key_id, received_at, content_type, body, outcome, result)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      raw: q(`SELECT id, workspace_id, key_id, received_at, content_type, body, result
        FROM raw_requests WHERE id = ? AND workspace_id = ?`),
      encounterIdByExternal: q("SELECT id FROM encounters WHERE workspace_id = ? AND external_id = ?"),
      insertEncounter: q(`INSERT INTO encounters (id, workspace_id, external_id, created_at, source, payload, latest_claim_id,
          latest_claim_status, initial_claim_status, initial_patient_control_number, last_event_at,
          latest_claim_created_at, latest_claim_status_changed_at, latest_claim_patient_control_number)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (workspace_id, external_id) DO NOTHING`),
      insertClaim: q(`INSERT INTO claims (id, workspace_id, encounter_id, created_at, status, status_changed_at, patient_control_number)
        VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (workspace_id, patient_control_number) DO NOTHING`),
      lastEventAt: q("SELECT created_at FROM events WHERE workspace_id = ? ORDER BY seq DESC LIMIT 1"),
      insertEvent: q(`INSERT INTO events (id, workspace_id, event_type, created_at, timestamp, payload) VALUES (?, ?, ?, ?, ?, ?)`),
      encounter: q(`${ENCOUNTER_SELECT} WHERE e.id = ? AND e.workspace_id = ?`),
      claim: q(`${CLAIM_SELECT} WHERE c.id = ? AND c.workspace_id = ?`),
      setClaimStatus: q(`UPDATE claims SET status = ?, status_changed_at = ?
        WHERE id = ? AND workspace_id = ? AND status = ?`),
      setEncounterStatus: q(`UPDATE encounters SET last_event_at = ?, latest_claim_status = ?, latest_claim_status_changed_at = ?
        WHERE id = ? AND workspace_id = ? AND latest_claim_id = ?`),
      event: q(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = ? AND workspace_id = ?`)
    }

    /**
     * Keys by hash, kept between requests: a key is checked on every request, and its row changes
     * rarely. The cache is dropped whenever another connection (the CLI, another process) has
     * committed anything (`PRAGMA data_version`, read inside the turn's read transaction) and on
     * every key write of this one, so a revocation applies from the next request on.
     */
    const keyCache = new Map<string, { readonly key: ApiKeyRecord; readonly workspace: Workspace }>()
    const dataVersion = q("PRAGMA data_version")
    let seenVersion: unknown
    const keysChanged = () => keyCache.clear()
    const cachedKey = (hash: string) => {
      const version = dataVersion.get()?.data_version
      if (version !== seenVersion) {
        keyCache.clear()
        seenVersion = version
      }
      return keyCache.get(hash)
    }

    /** Records an event; its `created_at` never falls behind the workspace's previous event. */
    const insertEvent = (e: EventRecord, createdAt: string) =>
      s.insertEvent.run(e.id, e.workspace_id, e.event_type, createdAt, e.timestamp, JSON.stringify(e.payload))
    const eventTime = (e: EventRecord): string => {
      const last = s.lastEventAt.get(e.workspace_id)
      return recordedAt(e.created_at, last === undefined ? undefined : str(last, "created_at"))
    }
    const insertRaw = (r: RawRequestRecord, result: RawOutcome) =>
      s.insertRaw.run(r.id, r.workspace_id, r.key_id, r.received_at, r.content_type, r.body, result.outcome, JSON.stringify(result))

    /** Lists are built from a few fixed statement shapes, each prepared once. */
    const listStatement = (where: ReadonlyArray<string>, order: string, select: string) =>
      q(`${select} WHERE ${where.join(" AND ")} ${order} LIMIT ?`)

    const storage: StorageShape = {
      ping: () => read("ping", () => void s.ping.get()),
      insertWorkspace: (ws) =>
        write("insertWorkspace", () => s.insertWorkspace.run(ws.id, ws.slug, ws.name, ws.created_at)).pipe(
          Effect.flatMap((n) => (n === 0 ? Effect.fail(new SlugTaken({ slug: ws.slug })) : Effect.void))
        ),
      findWorkspaceBySlug: (slug) =>
        read("findWorkspaceBySlug", () => Option.map(Option.fromNullable(s.workspaceBySlug.get(slug)), toWorkspace)),
      listWorkspaces: () => read("listWorkspaces", () => s.workspaces.all().map(toWorkspace)),

      insertApiKey: (k) =>
        write("insertApiKey", () => {
          keysChanged()
          s.insertApiKey.run(k.id, k.workspace_id, k.hash, k.prefix, JSON.stringify(k.scopes), k.created_at, k.last_used_at, k.revoked_at)
        }),
      findApiKeyByHash: (hash) =>
        read("findApiKeyByHash", () => {
          const cached = cachedKey(hash)
          if (cached !== undefined) return Option.some(cached)
          const r = s.apiKeyByHash.get(hash)
          if (r === undefined) return Option.none()
          const found = {
            key: toApiKey(r),
            workspace: { id: WorkspaceId.make(str(r, "workspace_id"), true), slug: str(r, "ws_slug"), name: str(r, "ws_name") }
          }
          if (keyCache.size >= 10_000) keyCache.clear()
          keyCache.set(hash, found)
          return Option.some(found)
        }),
      listApiKeys: (ws) => read("listApiKeys", () => s.apiKeys.all(ws).map(toApiKey)),
      revokeApiKey: (id, at) =>
        write("revokeApiKey", () => {
          keysChanged()
          s.revokeApiKey.run(at, id)
          return Option.map(Option.fromNullable(s.apiKey.get(id)), toApiKey)
        }),
      touchApiKey: (id, at) =>
        write("touchApiKey", () => {
          keysChanged()
          s.touchApiKey.run(at, id)
        }),

      insertRawRequest: (r) => write("insertRawRequest", () => void insertRaw(r, r.result)),
      findRawRequest: (ws, id) => read("findRawRequest", () => Option.map(Option.fromNullable(s.raw.get(id, ws)), toRawRequest)),

      findEncounterIdByExternalId: (ws, ext) =>
        read("findEncounterIdByExternalId", () =>
          Option.map(Option.fromNullable(s.encounterIdByExternal.get(ws, ext)), (r) => EncounterId.make(str(r, "id"), true))
        ),

      insertEncounter: ({ encounter: e, claim: c, event, raw }) =>
        write("insertEncounter", (): InsertResult => {
          const recorded = eventTime(event)
          // The unique (workspace_id, external_id) decides concurrent creates: no read-then-write.
          const inserted = s.insertEncounter.run(e.id, e.workspace_id, e.external_id, e.created_at, e.source,
            JSON.stringify(e.payload), e.latest_claim_id, c.status, e.initial_claim_status, e.initial_patient_control_number, recorded,
            c.created_at, c.status_changed_at, c.patient_control_number)
          if (inserted === 0) {
            const winner = s.encounterIdByExternal.get(e.workspace_id, e.external_id)
            if (winner === undefined) throw new Error("encounter conflict without a row")
            return { _tag: "Duplicate", encounter_id: EncounterId.make(str(winner, "id"), true) }
          }
          const claimed = s.insertClaim.run(c.id, c.workspace_id, c.encounter_id, c.created_at, c.status, c.status_changed_at,
            c.patient_control_number)
          if (claimed === 0) throw new Undo<InsertResult>({ _tag: "PatientControlNumberTaken" })
          insertEvent(event, recorded)
          insertRaw(raw, { outcome: "accepted", encounter_id: e.id })
          return { _tag: "Inserted" }
        }),
      findEncounter: (ws, id) =>
        read("findEncounter", () => Option.map(Option.fromNullable(s.encounter.get(id, ws)), toEncounterWithClaim)),
      listEncounters: (ws, scan) =>
        read("listEncounters", () => {
          const query = encounterListQuery(ws, scan)
          return q(query.sql).all(...query.params).map(toEncounterWithClaim)
        }),

      findClaim: (ws, id) => read("findClaim", () => Option.map(Option.fromNullable(s.claim.get(id, ws)), toEncounterWithClaim)),
      changeClaimStatus: (ws, ch) =>
        write("changeClaimStatus", () => {
          // Compare-and-set on the status read by the rule: of two racing moves, one updates no row.
          if (s.setClaimStatus.run(ch.next, ch.at, ch.claim_id, ws, ch.expected) === 0) return false
          const recorded = eventTime(ch.event)
          insertEvent(ch.event, recorded)
          s.setEncounterStatus.run(recorded, ch.next, ch.at, ch.encounter_id, ws, ch.claim_id)
          return true
        }),

      listEvents: (ws, q) =>
        read("listEvents", () => {
          const pos = q.position
          const where = ["workspace_id = ?"]
          const params: Array<SqliteValue> = [ws]
          if (q.event_types !== undefined) {
            where.push(`event_type IN (${q.event_types.map(() => "?").join(", ")})`)
            params.push(...q.event_types)
          }
          if (q.created_after !== undefined) {
            where.push("created_at >= ?")
            params.push(q.created_after)
          }
          if (q.created_before !== undefined) {
            where.push("created_at <= ?")
            params.push(q.created_before)
          }
          if (pos !== undefined) {
            where.push(pos.dir === "next" ? "seq > ?" : "seq < ?")
            params.push(Number(pos.key[0]))
          }
          // Oldest first in recorded order; a "prev" scan reads downward and the rule reverses it.
          const order = pos?.dir === "prev" ? "ORDER BY seq DESC" : "ORDER BY seq ASC"
          params.push(q.limit + 1)
          return listStatement(where, order, `SELECT ${EVENT_COLUMNS} FROM events`).all(...params).map(toStoredEvent)
        }),
      findEvent: (ws, id) => read("findEvent", () => Option.map(Option.fromNullable(s.event.get(id, ws)), toStoredEvent))
    }
    return storage
  })
