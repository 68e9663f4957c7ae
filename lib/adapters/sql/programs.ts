import { Either, Option, Schema } from "effect"
import { EncounterRecord, type EncounterWithClaim, fromEncounterRow, type HeldEncounters, type ListedEncounter } from "../../domain/encounter.js"
import { compactFeedEvent, type FeedEvent, recordedAt } from "../../domain/event.js"
import { ClaimId, EncounterId } from "../../domain/ids.js"
import { byReceipt, REMITTANCES_SHOWN, type RemittanceRecord } from "../../domain/remittance.js"
import type { KeyWithWorkspace } from "../../domain/workspace.js"
import type { UserWithWorkspace } from "../../domain/user.js"
import { WebhookSubscription } from "../../domain/webhook.js"
import type { ClaimKey, ClaimWithEncounterContent, ClaimWithEncounterKeys, EncounterScan, HeldRecords, KnownRecord, ListedRecord, PlaceScan, TablePageScan } from "../../ports/storage.js"
import { type PagedTable, Pages, type RecordOf, type TableName, Tables, type WorkspaceTable } from "../../ports/tables.js"
import { RowDecodeError } from "./codec.js"
import type { EventCache } from "./read-cache.js"
import { compileDecoder } from "./decode.js"
import { refused, type Write, type WriteResult, Written } from "../../ports/write.js"
import { changes, command, counted, type Dialect, type Program, type Query, query, type Row, rows, type SqlValue } from "./dialect.js"
import * as S from "./statements.js"

const { codecs } = S

function* one<A>(q: Query, decode: (r: Row) => A): Program<Option.Option<A>> {
  const found = yield* rows(q)
  const first = found[0]
  return first === undefined ? Option.none() : Option.some(decode(first))
}

function* many<A>(q: Query, decode: (r: Row) => A): Program<ReadonlyArray<A>> {
  const found = yield* rows(q)
  return found.map(decode)
}

/**
 * Encounters (or claims) with their claims' most recent remittances (`REMITTANCES_SHOWN`, and
 * whether there are more): one more query, only for the claims whose row says they have some, one
 * index seek per claim however many it has.
 */
function* withRemittances(ws: string, found: ReadonlyArray<{ readonly read: EncounterWithClaim; readonly has: boolean }>): Program<ReadonlyArray<EncounterWithClaim>> {
  const ids = [...new Set(found.filter((f) => f.has).map((f) => f.read.claim.id))]
  if (ids.length === 0) return found.map((f) => f.read)
  const byClaim = new Map<string, Array<RemittanceRecord>>()
  for (const row of yield* rows(S.recentRemittancesOf(ws, ids, REMITTANCES_SHOWN + 1))) {
    const r = codecs.remittances.decode(row)
    const list = byClaim.get(r.claim_id)
    if (list === undefined) byClaim.set(r.claim_id, [r])
    else list.push(r)
  }
  return found.map((f) => {
    if (!f.has) return f.read
    const recent = (byClaim.get(f.read.claim.id) ?? []).sort(byReceipt)
    const more = recent.length > REMITTANCES_SHOWN
    return { ...f.read, remittances: more ? recent.slice(1) : recent, ...(more ? { more_remittances: true } : {}) }
  })
}

/** A row of exactly the encounters table's columns (`e.*` of a read of encounters alone). */
const encounterRead = (r: Row) => {
  const row = codecs.encounters.decode(r)
  return { read: fromEncounterRow(row), has: row.latest_claim_remittances_at !== null }
}

function* encounters(ws: string, q: Query): Program<ReadonlyArray<EncounterWithClaim>> {
  return yield* withRemittances(ws, (yield* rows(q)).map(encounterRead))
}

/**
 * A claim (from the claims table) with its encounter and its remittances. The remittances are
 * looked up unless the claim is its encounter's latest and the encounter row says it has none (the
 * marker is kept for the latest claim only).
 */
function* claimRead(ws: string, q: Query): Program<Option.Option<EncounterWithClaim>> {
  const first = (yield* rows(q))[0]
  if (first === undefined) return Option.none()
  const claim = codecs.claims.decode(first, "c_")
  const row = codecs.encounters.decode(first, "")
  const has = row.latest_claim_id !== claim.id || row.latest_claim_remittances_at !== null
  return Option.fromNullable((yield* withRemittances(ws, [{ read: { encounter: fromEncounterRow(row).encounter, claim }, has }]))[0])
}

const decodePageKey = compileDecoder(Schema.Struct({ id: EncounterId, created_at: Schema.String, revision: Schema.Number }))

/**
 * A page read against what its reader holds (`HeldEncounters`): the page's keys first, then, in
 * one query by id, the rows of the encounters not held at their revision (with their
 * remittances), in the keys' order. A row gone between the two reads is left out.
 */
function* heldPage<K>(ws: string, q: EncounterScan, held: HeldEncounters<K>): Program<ReadonlyArray<ListedEncounter<K>>> {
  const listed: Array<ListedEncounter<K> | EncounterId> = []
  const missing: Array<EncounterId> = []
  for (const r of yield* rows(S.encounterPageKeys(ws, q))) {
    const key = decodePageKey(r)
    if (Either.isLeft(key)) throw new RowDecodeError("encounters", key.left)
    const { id, created_at, revision } = key.right
    const value = held(id, revision)
    if (value === undefined) missing.push(id)
    listed.push(value === undefined ? id : { _tag: "Known", id, created_at, revision, value })
  }
  if (missing.length === 0) return listed as ReadonlyArray<ListedEncounter<K>>
  return inKeyOrder<ListedEncounter<K>, EncounterWithClaim>(listed, new Map((yield* encounters(ws, S.encountersByIds(missing, q.position?.dir))).map((r) => [r.encounter.id, r])))
}

/**
 * A held page in its keys' order: each held item as it is, each id (a row not held) as the row read
 * for it; an id whose row was not read (gone between the two reads) is left out.
 */
const inKeyOrder = <Held, Row>(listed: ReadonlyArray<Held | string>, read: ReadonlyMap<string, Row>): ReadonlyArray<Held | Row> => {
  const page: Array<Held | Row> = []
  for (const item of listed) {
    const found = typeof item === "string" ? read.get(item) : item
    if (found !== undefined) page.push(found)
  }
  return page
}

/**
 * A page of a table read against what its reader holds (`HeldRecords`): the page's keys first,
 * then, in one query by id, the records not held at their revision, in the keys' order. A record
 * gone between the two reads is left out. A table without a revision column is read whole.
 */
function* heldRecordPage<T extends PagedTable, K>(table: T, ws: string, q: TablePageScan<T>, held: HeldRecords<K>): Program<ReadonlyArray<ListedRecord<T, K>>> {
  const decode = (r: Row) => codecs[table].decode(r) as RecordOf<T>
  const revision = Tables[table].revision
  if (revision === undefined) return yield* many(S.recordPage(table, ws, q), decode)
  const listed: Array<KnownRecord<K> | string> = []
  const missing: Array<string> = []
  for (const r of yield* rows(S.recordPageKeys(table, revision, ws, q))) {
    const id = r.id
    const time = r.t
    const rev = Number(r.revision)
    if (typeof id !== "string" || typeof time !== "string" || !Number.isInteger(rev)) {
      throw new RowDecodeError(Tables[table].name, `a page key is not (id, ${Pages[table].time}, ${revision})`)
    }
    const value = held(id, rev)
    if (value === undefined) missing.push(id)
    listed.push(value === undefined ? id : { _tag: "Known", id, time, revision: rev, value })
  }
  if (missing.length === 0) return listed as ReadonlyArray<KnownRecord<K>>
  return inKeyOrder(listed, new Map((yield* many(S.recordsByIds(table, ws, missing), decode)).map((r) => [r.id, r])))
}

/** How many of the newest rows (after the position) a search checks before it reads its filter's range. */
const RECENT_WINDOW = 2000

/**
 * A search page. Reading a filter's range costs what the range holds: ordering 100,000 index entries
 * (a one-letter name, every date of service, a prefix every external id shares) took tens of
 * milliseconds. A broad search's matches are usually among the newest rows too, so a search first
 * checks the newest `RECENT_WINDOW` rows (a bounded read along the time index, a few milliseconds at
 * most); only when they do not fill the page (a narrow search, or old matches) is the range read,
 * which then holds few entries, or (old matches of a broad search) is the one case that costs more.
 */
function* encounterSearch(ws: string, q: EncounterScan): Program<ReadonlyArray<EncounterWithClaim>> {
  const ids = (yield* rows(S.encounterSearchRecent(ws, q, RECENT_WINDOW))).map((r) => String(r.id))
  if (ids.length > q.limit) return yield* encounters(ws, S.encountersByIds(ids, q.position?.dir))
  return yield* encounters(ws, S.encounterPage(ws, q))
}

function* firstOf<A>(q: Program<ReadonlyArray<A>>): Program<Option.Option<A>> {
  return Option.fromNullable((yield* q)[0])
}
const workspace = (r: Row, prefix?: string) => {
  const { created_at: _created, ...ws } = codecs.workspaces.decode(r, prefix)
  return ws
}

/** The `e_` columns of a claim read with its encounter's keys; a status move's read adds the content. */
const EncounterKeys = Schema.Struct({ e_external_id: EncounterRecord.fields.external_id, e_latest_claim_id: ClaimId })
const decodeEncounterKeys = compileDecoder(EncounterKeys)
const decodeEncounterContent = compileDecoder(Schema.Struct({ ...EncounterKeys.fields, e_payload: EncounterRecord.fields.payload }))

function* claimToChange(ws: string, id: string): Program<Option.Option<ClaimWithEncounterContent>> {
  const r = (yield* rows(S.claimToChange(ws, id)))[0]
  if (r === undefined) return Option.none()
  const claim = codecs.claims.decode(r, "c_")
  const payload = r.e_payload
  const keys = decodeEncounterContent({ e_external_id: r.e_external_id, e_latest_claim_id: r.e_latest_claim_id, e_payload: typeof payload === "string" ? JSON.parse(payload) : payload })
  if (Either.isLeft(keys)) throw new RowDecodeError("encounters", keys.left)
  const e = keys.right
  return Option.some({ claim, encounter: { id: claim.encounter_id, external_id: e.e_external_id, latest_claim_id: e.e_latest_claim_id, payload: e.e_payload } })
}

function* claimsWithKeys(ws: string, key: ClaimKey, values: ReadonlyArray<string>): Program<ReadonlyArray<ClaimWithEncounterKeys>> {
  if (values.length === 0) return []
  return (yield* rows(S.claimsWithKeys(ws, key, values))).map((r): ClaimWithEncounterKeys => {
    const claim = codecs.claims.decode(r, "c_")
    const keys = decodeEncounterKeys(r)
    if (Either.isLeft(keys)) throw new RowDecodeError("encounters", keys.left)
    return { claim, encounter: { id: claim.encounter_id, external_id: keys.right.e_external_id, latest_claim_id: keys.right.e_latest_claim_id } }
  })
}

function* encounterRecordsByIds(ws: string, ids: ReadonlyArray<string>): Program<ReadonlyArray<RecordOf<"encounters">>> {
  if (ids.length === 0) return []
  return yield* many(S.encounterRecordsByIds(ws, ids), (r) => codecs.encounters.decode(r))
}

const decodeSubscription = compileDecoder(WebhookSubscription)
const subscription = (r: Row): WebhookSubscription => {
  const decoded = decodeSubscription({ ...r, event_types: typeof r.event_types === "string" ? JSON.parse(r.event_types) : r.event_types })
  if (Either.isLeft(decoded)) throw new RowDecodeError("webhook_endpoints", decoded.left)
  return decoded.right
}

/** The reads of the SQL adapters, one program each. */
export const reads = {
  /** A workspace's record of any table by id. */
  record: <T extends WorkspaceTable>(table: T, ws: string, id: string) =>
    one(S.recordById(table, ws, id), (r) => codecs[table].decode(r) as RecordOf<T>),
  /** A newest-first page of a table by its page key. */
  page: <T extends PagedTable>(table: T, ws: string, q: TablePageScan<T>) =>
    many(S.recordPage(table, ws, q), (r) => codecs[table].decode(r) as RecordOf<T>),
  /** `page` against what the reader holds: the keys first, then only the rows not held. */
  pageHeld: <T extends PagedTable, K>(table: T, ws: string, q: TablePageScan<T>, held: HeldRecords<K>) => heldRecordPage(table, ws, q, held),
  ping: () => many(S.ping, () => undefined),
  workspaceBySlug: (slug: string) => one(S.workspaceBySlug(slug), (r) => workspace(r)),
  workspaces: () => many(S.workspaces, (r) => workspace(r)),
  apiKeyByHash: (hash: string) =>
    one(S.apiKeyByHash(hash), (r): KeyWithWorkspace => ({ key: codecs.api_keys.decode(r, ""), workspace: workspace(r, "w_") })),
  apiKeys: (ws: string) => many(S.apiKeys(ws), (r) => codecs.api_keys.decode(r)),
  usersByEmail: (email: string) =>
    many(S.usersByEmail(email), (r): UserWithWorkspace => ({ user: codecs.users.decode(r, ""), workspace: workspace(r, "w_") })),
  rawRequestPage: (ws: string, q: Parameters<typeof S.rawRequestPage>[1]) =>
    many(S.rawRequestPage(ws, q), (r) => codecs.raw_requests.decode(r)),
  encounterIdByExternalId: (ws: string, ext: string) =>
    one(S.encounterIdByExternalId(ws, ext), (r) => EncounterId.make(String(r.id), true)),
  encounter: (ws: string, id: string) => firstOf(encounters(ws, S.encounter(ws, id))),
  encounterPage: (ws: string, q: EncounterScan) => (S.isSearch(q) ? encounterSearch(ws, q) : encounters(ws, S.encounterPage(ws, q))),
  heldPage: <K>(ws: string, q: EncounterScan, held: HeldEncounters<K>): Program<ReadonlyArray<ListedEncounter<K>>> =>
    S.isSearch(q) ? encounterSearch(ws, q) : heldPage(ws, q, held),
  // PostgreSQL answers COUNT(*) as a BIGINT in text, and SUM of a BIGINT as a NUMERIC in text.
  claimStatusCounts: (ws: string) =>
    many(S.claimStatusCounts(ws), (r) => ({ status: String(r.status), count: Number(r.n), billed_cents: Number(r.billed ?? 0) })),
  claimWorkPage: (ws: string, q: Parameters<typeof S.claimWorkPage>[1]) => encounters(ws, S.claimWorkPage(ws, q)),
  claim: (ws: string, id: string) => claimRead(ws, S.claim(ws, id)),
  claimByPcn: (ws: string, pcn: string) => claimRead(ws, S.claimByPcn(ws, pcn)),
  claimsWithKeys: (ws: string, key: ClaimKey, values: ReadonlyArray<string>) => claimsWithKeys(ws, key, values),
  claimToChange: (ws: string, id: string) => claimToChange(ws, id),
  openTasksOfClaim: (ws: string, claimId: string) => many(S.openTasksOfClaim(ws, claimId), (r) => codecs.tasks.decode(r)),
  clearinghouseSettings: (ws: string) => one(S.clearinghouseSettings(ws), (r) => codecs.clearinghouse_settings.decode(r)),
  batchByGroup: (ws: string, group: number) => one(S.batchByGroup(ws, group), (r) => codecs.x12_batches.decode(r)),
  x12FileByInterchange: (ws: string, key: string) => one(S.x12FileByInterchange(ws, key), (r) => codecs.x12_files.decode(r)),
  x12FileBySha: (ws: string, sha: string) => one(S.x12FileBySha(ws, sha), (r) => codecs.x12_files.decode(r)),
  x12FileByContent: (ws: string, key: string) => one(S.x12FileByContent(ws, key), (r) => codecs.x12_files.decode(r)),
  encounterRecordsByIds: (ws: string, ids: ReadonlyArray<string>) => encounterRecordsByIds(ws, ids),
  x12FileOutcomePage: (ws: string, fileId: string, q: PlaceScan) =>
    many(S.x12FileOutcomePage(ws, fileId, q), (r) => codecs.x12_file_outcomes.decode(r)),
  event: (ws: string, id: string) => one(S.event(ws, id), (r) => S.eventFeedCodec.decode(r)),
  eventPage: (ws: string, q: Parameters<typeof S.eventPage>[1]) => many(S.eventPage(ws, q), (r) => S.eventFeedCodec.decode(r)),
  /** `eventPage` through a cache: the places first; the rows only when one of them is not kept. */
  eventPageCached: function* (ws: string, q: Parameters<typeof S.eventPage>[1], cache: EventCache): Program<ReadonlyArray<FeedEvent>> {
    const seqs = (yield* rows(S.eventSeqPage(ws, q))).map((r) => Number(r.seq))
    const hit: Array<FeedEvent> = []
    for (const seq of seqs) {
      const e = cache.get(seq)
      if (e === undefined) break
      hit.push(e)
    }
    if (hit.length === seqs.length) return hit
    const found = yield* many(S.eventPage(ws, q), (r) => compactFeedEvent(S.eventFeedCodec.decode(r), ws))
    for (const e of found) cache.keep(e.seq, e)
    return found
  },
  encounterEventPage: (ws: string, encounterId: string, q: Parameters<typeof S.encounterEventPage>[2]) =>
    many(S.encounterEventPage(ws, encounterId, q), (r) => codecs.events.decode(r)),
  enabledWebhookEndpoints: (ws: string) => many(S.enabledWebhookEndpoints(ws), subscription),
  webhookEndpointSlots: (ws: string) => many(S.webhookEndpointSlots(ws), (r) => Number(r.slot)),
  // PostgreSQL answers COUNT(*) as a BIGINT in text.
  pendingWebhookDeliveries: () => many(S.pendingWebhookDeliveries, (r) => Number(r.n)),
  pendingWebhookDeliveriesOf: (ws: string, endpointId: string) => many(S.pendingWebhookDeliveriesOf(ws, endpointId), (r) => Number(r.n)),
  dueWebhookDeliveries: (now: string, limit: number, skip: ReadonlyArray<string>, skipWorkspaces: ReadonlyArray<string>) =>
    many(S.dueWebhookDeliveries(now, limit, skip, skipWorkspaces), (r) => codecs.webhook_deliveries.decode(r))
}

const uniqueColumns = (table: TableName, unique: string): ReadonlyArray<string> => {
  const uniques: Readonly<Record<string, ReadonlyArray<string> | undefined>> = Tables[table].unique
  const columns = uniques[unique]
  if (columns === undefined) throw new Error(`${table} has no unique key ${unique}`)
  return columns
}

/**
 * Executes a write's steps in order inside the caller's transaction. A refused precondition
 * answers `Refused` at once: the caller rolls the whole transaction back.
 */
/**
 * The recorded time of each workspace's newest event, kept by an adapter that knows when its
 * connection is the feed's only writer (SQLite: within its write transactions, until another
 * connection commits or a write is undone; see `sqlite/storage.ts`). Without it, every appended
 * event reads the newest one's time.
 */
export interface FeedTimes {
  readonly get: (workspaceId: string) => string | undefined
  readonly set: (workspaceId: string, recordedAt: string) => void
}

/** Sets `set` on the row `id` of `table` where it still has `where`; answers how many rows changed. */
function* updateRow(
  table: TableName,
  id: string,
  whereValues: Readonly<Record<string, unknown>>,
  setValues: Readonly<Record<string, unknown>>
): Program<number> {
  const codec = codecs[table]
  const set: Array<string> = []
  const params = []
  for (const [column, value] of Object.entries(setValues)) {
    if (value === undefined) continue
    set.push(column)
    params.push(codec.encodeColumn(column, value))
  }
  params.push(id)
  const where: Array<readonly [string, boolean]> = []
  for (const [column, value] of Object.entries(whereValues)) {
    if (value === undefined) continue
    where.push([column, value === null])
    if (value !== null) params.push(codec.encodeColumn(column, value))
  }
  return yield* changes(counted(S.updateText(table, set, where), params))
}

export function* executeWrite<R>(dialect: Dialect, write: Write<R>, feed?: FeedTimes): Program<WriteResult<R>> {
  if (dialect.feedLock !== undefined) {
    const locked = new Set<string>()
    for (const step of write.steps) {
      if (step._tag !== "AppendEvent" || locked.has(step.event.workspace_id)) continue
      locked.add(step.event.workspace_id)
      yield* rows(dialect.feedLock(step.event.workspace_id))
    }
  }
  // Encounters this write inserted, with the last_event_at they were inserted with.
  const inserted = new Map<string, string>()
  for (const step of write.steps) {
    switch (step._tag) {
      case "Insert": {
        const codec = codecs[step.table]
        const record: Readonly<Record<string, unknown>> = step.record
        const params = codec.encode(record)
        if (step.ifTaken === undefined) {
          yield* rows(command(S.insertText(step.table), params))
        } else {
          const created = yield* changes(counted(S.insertText(step.table, true), params))
          if (created === 0) {
            const columns = uniqueColumns(step.table, step.ifTaken.unique)
            const holder = yield* rows(query(S.holderText(step.table, columns), columns.map((c) => codec.encodeColumn(c, record[c]))))
            // Not the named key: the id was taken (a rule that derives it from that key).
            const byId = holder.length > 0 ? holder : yield* rows(query(S.holderText(step.table, ["id"]), [codec.encodeColumn("id", record["id"])]))
            const id = byId[0]?.id
            if (typeof id !== "string") throw new Error(`${step.table}: ${step.ifTaken.unique} is taken, but no row holds it`)
            return refused(step.ifTaken.refuse(id))
          }
        }
        if (step.table === "encounters") inserted.set(step.record.id, step.record.last_event_at)
        break
      }
      case "Update": {
        const changed = yield* updateRow(step.table, step.id, step.where, step.set)
        if (changed === 0 && step.ifUnmatched !== undefined) return refused(step.ifUnmatched)
        break
      }
      case "Remove": {
        const codec = codecs[step.table]
        const params: Array<SqlValue> = [step.id]
        const where: Array<readonly [string, boolean]> = []
        for (const [column, value] of Object.entries(step.where)) {
          if (value === undefined) continue
          where.push([column, value === null])
          if (value !== null) params.push(codec.encodeColumn(column, value))
        }
        yield* rows(command(S.deleteText(step.table, where), params))
        break
      }
      case "AppendEvent": {
        const event = step.event
        const last = feed?.get(event.workspace_id) ?? (yield* rows(S.lastEventAt(event.workspace_id)))[0]?.created_at
        const recorded = recordedAt(event.created_at, typeof last === "string" ? last : undefined)
        yield* rows(command(S.insertText("events"), codecs.events.encode({ ...event, created_at: recorded })))
        feed?.set(event.workspace_id, recorded)
        // The touched encounter takes the recorded time (unless this write inserted it with that
        // time), with `touchAlso` in the same update.
        if (step.touch === undefined) break
        const also = step.touchAlso
        if (also === undefined && inserted.get(step.touch) === recorded) break
        const where = { ...also?.where, workspace_id: event.workspace_id }
        const changed = yield* updateRow("encounters", step.touch, where, { ...also?.set, last_event_at: recorded })
        if (changed === 0 && also !== undefined) return refused(also.ifUnmatched)
        break
      }
    }
  }
  return Written
}
