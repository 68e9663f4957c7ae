import { SqlClient } from "@effect/sql"
import { type TableName, Tables } from "../../ports/tables.js"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, Option } from "effect"
import { StorageError } from "../../domain/errors.js"
import { type EncounterScan, Storage, type StorageShape } from "../../ports/storage.js"
import type { HeldEncounters } from "../../domain/encounter.js"
import type { WorkspaceId } from "../../domain/ids.js"
import type { Write, WriteResult } from "../../ports/write.js"
import type { ReadCaches } from "./read-cache.js"
import { type Dialect, pgDialect, type Program, type Row, sqliteDialect } from "./dialect.js"
import { executeWrite, reads } from "./programs.js"

/** How an adapter runs programs: reads as they come, a write in one transaction of its own. */
export interface Executor {
  readonly dialect: Dialect
  readonly read: <A>(operation: string, program: Program<A>) => Effect.Effect<A, StorageError>
  /** Runs `executeWrite` in one transaction, rolled back when the write is refused. */
  readonly write: <R>(write: Write<R>) => Effect.Effect<WriteResult<R>, StorageError>
  /**
   * Feed pages and encounter reads through the caches of what never changes (`read-cache.ts`):
   * worth it where a query is cheap next to reading and parsing rows (an embedded database), not
   * where each query is a round trip.
   */
  readonly caches?: ReadCaches
}

/** The operation names of the plain reads (for errors and metrics), made once per table. */
const operations = Object.fromEntries(Object.keys(Tables).map((t) => [t, { get: `get ${t}`, page: `page ${t}` }])) as Readonly<
  Record<TableName, { readonly get: string; readonly page: string }>
>

/** The storage port on an executor: the same programs for every SQL database. */
export const makeSqlStorage = (exec: Executor): StorageShape => ({
  ping: () => Effect.asVoid(exec.read("ping", reads.ping())),
  write: (w) => exec.write(w),
  get: (table, ws, id) => exec.read(operations[table].get, reads.record(table, ws, id)),
  page: (table, ws, q) => exec.read(operations[table].page, reads.page(table, ws, q)),
  pageHeld: (table, ws, q, held) => exec.read(operations[table].page, reads.pageHeld(table, ws, q, held)),
  findWorkspaceBySlug: (slug) => exec.read("findWorkspaceBySlug", reads.workspaceBySlug(slug)),
  listWorkspaces: () => exec.read("listWorkspaces", reads.workspaces()),
  findApiKeyByHash: (hash) => exec.read("findApiKeyByHash", reads.apiKeyByHash(hash)),
  listApiKeys: (ws) => exec.read("listApiKeys", reads.apiKeys(ws)),
  findUsersByEmail: (email) => exec.read("findUsersByEmail", reads.usersByEmail(email)),
  listRawRequests: (ws, q) => exec.read("listRawRequests", reads.rawRequestPage(ws, q)),
  findEncounterIdByExternalId: (ws, ext) => exec.read("findEncounterIdByExternalId", reads.encounterIdByExternalId(ws, ext)),
  findEncounter: (ws, id) => exec.read("findEncounter", reads.encounter(ws, id)),
  listEncounters: (<K>(ws: WorkspaceId, q: EncounterScan, held?: HeldEncounters<K>) =>
    exec.read("listEncounters", held === undefined ? reads.encounterPage(ws, q) : reads.heldPage(ws, q, held))) as StorageShape["listEncounters"],
  countClaimStatuses: (ws) => exec.read("countClaimStatuses", reads.claimStatusCounts(ws)),
  listClaimWork: (ws, q) => exec.read("listClaimWork", reads.claimWorkPage(ws, q)),
  findClaim: (ws, id) => exec.read("findClaim", reads.claim(ws, id)),
  findClaimByPcn: (ws, pcn) => exec.read("findClaimByPcn", reads.claimByPcn(ws, pcn)),
  findOpenTasksOfClaim: (ws, claimId) => exec.read("findOpenTasksOfClaim", reads.openTasksOfClaim(ws, claimId)),
  findClaimToChange: (ws, id) => exec.read("findClaimToChange", reads.claimToChange(ws, id)),
  findClaims: (ws, key, values) => exec.read("findClaims", reads.claimsWithKeys(ws, key, values)),
  findClearinghouseSettings: (ws) => exec.read("findClearinghouseSettings", reads.clearinghouseSettings(ws)),
  findX12BatchByGroup: (ws, group) => exec.read("findX12BatchByGroup", reads.batchByGroup(ws, group)),
  findX12FileByInterchange: (ws, key) => exec.read("findX12FileByInterchange", reads.x12FileByInterchange(ws, key)),
  findX12FileBySha: (ws, sha) => exec.read("findX12FileBySha", reads.x12FileBySha(ws, sha)),
  findX12FileByContent: (ws, key) => exec.read("findX12FileByContent", reads.x12FileByContent(ws, key)),
  findEncounters: (ws, ids) => exec.read("findEncounters", reads.encounterRecordsByIds(ws, ids)),
  listX12FileOutcomes: (ws, fileId, q) => exec.read("listX12FileOutcomes", reads.x12FileOutcomePage(ws, fileId, q)),
  listEvents: (ws, q) =>
    exec.read("listEvents", exec.caches === undefined ? reads.eventPage(ws, q) : reads.eventPageCached(ws, q, exec.caches.events)),
  findEvent: (ws, id) => exec.read("findEvent", reads.event(ws, id)),
  listEncounterEvents: (ws, id, q) => exec.read("listEncounterEvents", reads.encounterEventPage(ws, id, q)),
  enabledWebhookEndpoints: (ws) => exec.read("enabledWebhookEndpoints", reads.enabledWebhookEndpoints(ws)),
  webhookEndpointSlots: (ws) => exec.read("webhookEndpointSlots", reads.webhookEndpointSlots(ws)),
  pendingWebhookDeliveries: () => Effect.map(exec.read("pendingWebhookDeliveries", reads.pendingWebhookDeliveries()), (rows) => rows[0] ?? 0),
  pendingWebhookDeliveriesOf: (ws, endpointId) =>
    Effect.map(exec.read("pendingWebhookDeliveriesOf", reads.pendingWebhookDeliveriesOf(ws, endpointId)), (rows) => rows[0] ?? 0),
  dueWebhookDeliveries: (now, limit, skip = [], skipWorkspaces = []) =>
    exec.read("dueWebhookDeliveries", reads.dueWebhookDeliveries(now, limit, skip, skipWorkspaces))
})

/** Fails a transaction so that it rolls back, carrying the refused write's result out of it. */
class Rollback<R> {
  readonly _tag = "Rollback"
  constructor(readonly result: WriteResult<R>) {}
}

/** Runs a program on the SqlClient, each statement sent as it is yielded. */
function* driveOn<A>(sql: SqlClient.SqlClient, dialect: Dialect, program: Program<A>) {
  let step = program.next()
  while (step.done !== true) {
    const q = step.value
    const result: ReadonlyArray<Row> = yield* sql.unsafe<Row>(dialect.text(q), q.params)
    step = program.next(result)
  }
  return step.value
}

/** How far a write got: a connection lost once its statements all ran may have taken the COMMIT with it. */
interface WriteProgress {
  committing: boolean
}

/**
 * `withTransaction` turns a failed COMMIT or ROLLBACK into a defect (an `SqlError` died). The
 * executor's own statements fail with typed errors, so such a defect is that COMMIT or ROLLBACK:
 * it becomes a `StorageError` again. A ROLLBACK failing on a lost connection follows a statement
 * that failed on it (nothing was stored); a COMMIT lost with its connection may have been applied.
 */
const transactionEndFailed = (dialect: Dialect, operation: string, progress: WriteProgress) => (defect: unknown) => {
  if (!(defect instanceof SqlError)) return Option.none()
  const reason = dialect.unavailable(defect)
  const unavailable = reason === "unreachable" && progress.committing ? "interrupted" : reason
  return Option.some(Effect.fail(new StorageError({ operation, cause: defect, unavailable })))
}

/**
 * The executor on `@effect/sql`'s SqlClient (PostgreSQL's; any SqlClient works): each statement
 * is sent as it is yielded, a write inside `withTransaction`. Failures the dialect recognizes as
 * the database being unavailable (shut down, restarting, connection cut) are marked so (503).
 */
export const sqlClientExecutor = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const dialect = sql.onDialectOrElse({ pg: () => pgDialect, orElse: () => sqliteDialect })
  const drive = <A>(program: Program<A>) => Effect.gen(() => driveOn(sql, dialect, program))
  const failure = (operation: string) => (cause: unknown) => new StorageError({ operation, cause, unavailable: dialect.unavailable(cause) })
  const exec: Executor = {
    dialect,
    read: (operation, program) => Effect.mapError(drive(program), failure(operation)),
    write: <R>(w: Write<R>) => {
      const progress: WriteProgress = { committing: false }
      return sql
        .withTransaction(
          Effect.flatMap(drive(executeWrite(dialect, w)), (result) => {
            if (result._tag === "Refused") return Effect.fail(new Rollback(result))
            progress.committing = true
            return Effect.succeed(result)
          })
        )
        .pipe(
          Effect.catchTag("Rollback", (e) => Effect.succeed(e.result)),
          Effect.mapError(failure(w.operation)),
          Effect.catchSomeDefect(transactionEndFailed(dialect, w.operation, progress))
        )
    }
  }
  return exec
})

export const SqlStorage = {
  /** Storage on whatever SqlClient is provided (PostgreSQL, or any other SqlClient; run `migrate` first). */
  layer: Layer.effect(Storage, Effect.map(sqlClientExecutor, makeSqlStorage))
}
