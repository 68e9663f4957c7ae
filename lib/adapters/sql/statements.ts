import type { Direction, Position } from "../../domain/page.js"
import type { ClaimKey, ClaimWorkScan, EncounterEventScan, EncounterScan, EventScan, PlaceScan, RawRequestScan, TablePageScan } from "../../ports/storage.js"
import { FeedEvent } from "../../domain/event.js"
import type { Schema } from "effect"
import { type PagedTable, Pages, type RecordOf, type TableDef, type TableName, Tables, type WorkspaceTable } from "../../ports/tables.js"
import { type Codec, codecOf } from "./codec.js"
import { type Query, query, type SqlValue } from "./dialect.js"

/**
 * Every SQL statement of the adapters, written once for SQLite and PostgreSQL alike (`?`
 * placeholders; the dialect numbers them for PostgreSQL). Writes are derived from the table
 * definitions; reads are the fixed shapes below, each keyed for its index.
 */
export const codecs = Object.fromEntries(
  Object.entries(Tables).map(([name, def]: [string, TableDef<Schema.Schema.AnyNoContext>]) => [name, codecOf(def)])
) as unknown as { readonly [T in TableName]: Codec<RecordOf<T>> }

/** The feed's reads of `events`: the same columns, the payload left as its stored JSON text. */
export const eventFeedCodec = codecOf({ ...Tables.events, record: FeedEvent, json: [] })

const list = (columns: ReadonlyArray<string>, alias = "") => columns.map((c) => `${alias}${c}`).join(", ")
const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ")

// ---- writes ---------------------------------------------------------------------------------

const insertTexts = new Map<string, string>()
/**
 * An insert of every column; with `ifTaken`, a taken key inserts nothing (run it counted).
 * No conflict target: every unique key decides, the id among them. A rule that derives the id
 * from the unique key has two keys taken at once, and PostgreSQL raises for a concurrent
 * conflict on a key that is not a target.
 */
export const insertText = (table: TableName, ifTaken = false): string => {
  const key = `${table}:${ifTaken ? "taken" : ""}`
  let text = insertTexts.get(key)
  if (text === undefined) {
    const c = codecs[table]
    text = `INSERT INTO ${c.table} (${list(c.insertColumns)}) VALUES (${marks(c.insertColumns.length)})` + (ifTaken ? " ON CONFLICT DO NOTHING" : "")
    insertTexts.set(key, text)
  }
  return text
}

/** The id of the row holding a unique key. */
export const holderText = (table: TableName, columns: ReadonlyArray<string>): string =>
  `SELECT id FROM ${Tables[table].name} WHERE ${columns.map((c) => `${c} = ?`).join(" AND ")}`

const updateTexts = new Map<string, string>()
/** An update by id with further conditions (`IS NULL` for a null value); run it counted. */
export const updateText = (table: TableName, set: ReadonlyArray<string>, where: ReadonlyArray<readonly [string, boolean]>): string => {
  const key = `${table}|${set.join(",")}|${where.map(([c, isNull]) => (isNull ? `${c}!` : c)).join(",")}`
  let text = updateTexts.get(key)
  if (text === undefined) {
    const conditions = ["id = ?", ...where.map(([c, isNull]) => (isNull ? `${c} IS NULL` : `${c} = ?`))]
    const revision: string | undefined = Tables[table].revision
    const sets = [...set.map((c) => `${c} = ?`), ...(revision === undefined ? [] : [`${revision} = ${revision} + 1`])]
    text = `UPDATE ${Tables[table].name} SET ${sets.join(", ")} WHERE ${conditions.join(" AND ")}`
    updateTexts.set(key, text)
  }
  return text
}

const deleteTexts = new Map<string, string>()
/** A delete by id with further conditions (`IS NULL` for a null value). */
export const deleteText = (table: TableName, where: ReadonlyArray<readonly [string, boolean]>): string => {
  const key = `${table}|${where.map(([c, isNull]) => (isNull ? `${c}!` : c)).join(",")}`
  let text = deleteTexts.get(key)
  if (text === undefined) {
    const conditions = ["id = ?", ...where.map(([c, isNull]) => (isNull ? `${c} IS NULL` : `${c} = ?`))]
    text = `DELETE FROM ${Tables[table].name} WHERE ${conditions.join(" AND ")}`
    deleteTexts.set(key, text)
  }
  return text
}

/** The time the workspace's latest event was recorded (the feed's order, see `recordedAt`). */
export const lastEventAt = (ws: string): Query => query("SELECT created_at FROM events WHERE workspace_id = ? ORDER BY seq DESC LIMIT 1", [ws])

// ---- reads ----------------------------------------------------------------------------------

const selectTexts = new Map<string, string>()
/** Every column of a table's rows. */
const selectAll = (table: TableName): string => {
  let text = selectTexts.get(table)
  if (text === undefined) {
    text = `SELECT ${list(codecs[table].columns)} FROM ${Tables[table].name}`
    selectTexts.set(table, text)
  }
  return text
}

/** A workspace's record by id: the plain read of every table of workspace records. */
export const recordById = (table: WorkspaceTable, ws: string, id: string): Query => query(`${selectAll(table)} WHERE id = ? AND workspace_id = ?`, [id, ws])

/** A page of a table by its page key (`Pages`), with its filters that have a value: `select`'s columns. */
const tablePage = <T extends PagedTable>(select: string, table: T, ws: string, q: TablePageScan<T>): Query => {
  const key = Pages[table]
  const where: Readonly<Record<string, unknown>> = q.where ?? {}
  const filters: Filters = key.filters.map((c: string) => [`${c} = ?`, where[c] === undefined ? undefined : codecs[table].encodeColumn(c, where[c])])
  const keys: Keys = { time: key.time, id: "id", workspace: "workspace_id" }
  if (!("oldestFirst" in key)) return newestFirstPage(select, keys, ws, q, filters)
  // Oldest first: a page forward is a newest-first scan backward, and the other way round.
  const against: Direction = q.position?.dir === "prev" ? "next" : "prev"
  const position = q.position === undefined ? undefined : { dir: against, key: q.position.key }
  const { where: conditions, params } = newestFirstWhere(keys, ws, { position, limit: q.limit }, filters)
  return scan(select, conditions, params, newestFirstOrder(keys.time, keys.id, against), q.limit)
}

/** A newest-first page of a table by its page key (`Pages`), with its filters that have a value. */
export const recordPage = <T extends PagedTable>(table: T, ws: string, q: TablePageScan<T>): Query => tablePage(selectAll(table), table, ws, q)

/**
 * The keys of a page of a table with a revision column (`recordPage`'s rows, in its order): each
 * record's id, page time (as `t`) and revision. A reader holding most of the page (`HeldRecords`)
 * then reads only the rows it lacks (`recordsByIds`).
 */
export const recordPageKeys = <T extends PagedTable>(table: T, revision: string, ws: string, q: TablePageScan<T>): Query =>
  tablePage(`SELECT id, ${Pages[table].time} AS t, ${revision} AS revision FROM ${Tables[table].name}`, table, ws, q)

/** A workspace's records of a table by id, in no order. */
export const recordsByIds = (table: WorkspaceTable, ws: string, ids: ReadonlyArray<string>): Query =>
  query(`${selectAll(table)} WHERE workspace_id = ? AND id IN (${ids.map(() => "?").join(", ")})`, [ws, ...ids])

export const ping: Query = query("SELECT 1 AS one", [])

/** The schema migrations applied, oldest first (the migrator's own record table). */
export const appliedMigrations: Query = query("SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id", [])
export const toAppliedMigration = (r: Readonly<Record<string, unknown>>) => ({ id: Number(r.migration_id), name: String(r.name) })

const WORKSPACE = `SELECT ${list(codecs.workspaces.columns)} FROM workspaces`
export const workspaceBySlug = (slug: string): Query => query(`${WORKSPACE} WHERE slug = ?`, [slug])
export const workspaces: Query = query(`${WORKSPACE} ORDER BY created_at, id`, [])

const API_KEY = selectAll("api_keys")
/** A key with its workspace's columns (prefixed `w_`): every request needs both. */
export const apiKeyByHash = (hash: string): Query =>
  query(
    `SELECT ${list(codecs.api_keys.columns, "k.")}, ${codecs.workspaces.columns.map((c) => `w.${c} AS w_${c}`).join(", ")}
      FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = ?`,
    [hash]
  )
/** Users by email in every workspace, with their workspace's columns (prefixed `w_`), along `users_email`. */
export const usersByEmail = (email: string): Query =>
  query(
    `SELECT ${list(codecs.users.columns, "u.")}, ${codecs.workspaces.columns.map((c) => `w.${c} AS w_${c}`).join(", ")}
      FROM users u JOIN workspaces w ON w.id = u.workspace_id WHERE u.email = ? ORDER BY u.created_at, u.id`,
    [email]
  )
export const apiKeys = (ws: string): Query => query(`${API_KEY} WHERE workspace_id = ? ORDER BY created_at, id`, [ws])

/** One page scan: filters, then the keyset bound, order and `limit + 1`. */
const scan = (select: string, where: Array<string>, params: Array<SqlValue>, order: string, limit: number): Query =>
  query(`${select} WHERE ${where.join(" AND ")} ${order} LIMIT ?`, [...params, limit + 1])

/**
 * The keyset bound of a newest-first list on (time, id). The bound on the time column alone lets
 * the database seek in the (workspace, time, id) index to the position; the second condition
 * breaks ties within one millisecond.
 */
const newestFirstBound = (time: string, id: string, dir: "next" | "prev") =>
  dir === "next" ? `${time} <= ? AND (${time} < ? OR ${id} < ?)` : `${time} >= ? AND (${time} > ? OR ${id} > ?)`
const newestFirstOrder = (time: string, id: string, dir: "next" | "prev" | undefined) =>
  // A "prev" scan reads upward and the rule reverses it.
  dir === "prev" ? `ORDER BY ${time} ASC, ${id} ASC` : `ORDER BY ${time} DESC, ${id} DESC`

type Filters = ReadonlyArray<readonly [string, SqlValue | undefined]>
/** The columns of a newest-first scan; `bound`, when given, is the time as the keyset bound compares it. */
type Keys = { readonly time: string; readonly id: string; readonly workspace: string; readonly bound?: string }
type Scanned = { readonly position?: Position | undefined; readonly limit: number }

/**
 * The conditions of a newest-first scan: the workspace, `fixed` conditions (without parameters),
 * the filters that have a value and the keyset bound.
 */
const newestFirstWhere = (keys: Keys, ws: string, q: Scanned, filters: Filters, fixed: ReadonlyArray<string> = []) => {
  const where = [`${keys.workspace} = ?`, ...fixed]
  const params: Array<SqlValue> = [ws]
  for (const [condition, value] of filters) {
    if (value === undefined) continue
    where.push(condition)
    params.push(value)
  }
  const pos = q.position
  if (pos !== undefined) {
    where.push(newestFirstBound(keys.bound ?? keys.time, keys.id, pos.dir))
    const at = String(pos.key[0] ?? "")
    params.push(at, at, String(pos.key[1] ?? ""))
  }
  return { where, params }
}

/**
 * A newest-first page of `select`: the workspace, the filters that have a value, the keyset bound
 * of the position, the order, and `limit + 1`.
 */
const newestFirstPage = (select: string, keys: Keys, ws: string, q: Scanned, filters: Filters, fixed: ReadonlyArray<string> = []): Query => {
  const { where, params } = newestFirstWhere(keys, ws, q, filters, fixed)
  return scan(select, where, params, newestFirstOrder(keys.time, keys.id, q.position?.dir), q.limit)
}

const RAW = selectAll("raw_requests")
const RAW_KEYS: Keys = { time: "received_at", id: "id", workspace: "workspace_id" }
/** The condition of the partial indexes of migration 10, written as they are: a database uses such an index only then. */
const UNACCEPTED = "outcome <> 'accepted'"
/**
 * A page of the intake log (see migration 10 for its indexes). By an outcome other than
 * `accepted`, along the outcome index of those. By external id, in two parts: the requests not
 * accepted, from their index, and the accepted one, named by the encounter that has the external
 * id; both under the same filters and bound, in one newest-first order. Accepted requests alone
 * are read along the time index.
 */
export const rawRequestPage = (ws: string, q: RawRequestScan): Query => {
  const filters = (outcome: string): Filters => [
    [outcome, q.outcome],
    ["received_at >= ?", q.received_after],
    ["received_at <= ?", q.received_before]
  ]
  const unaccepted = q.outcome !== undefined && q.outcome !== "accepted"
  const ext = q.external_id
  if (ext === undefined) return newestFirstPage(RAW, RAW_KEYS, ws, q, filters("outcome = ?"), unaccepted ? [UNACCEPTED] : [])
  const parts: Array<{ readonly text: string; readonly params: ReadonlyArray<SqlValue> }> = []
  const part = (condition: string, conditionParams: ReadonlyArray<SqlValue>) => {
    // The outcome as an expression: by external id, no outcome index is to be chosen over the
    // external id's few rows (an outcome is never null where an external id is set).
    const { where, params } = newestFirstWhere(RAW_KEYS, ws, q, filters("coalesce(outcome, '') = ?"))
    parts.push({ text: `${RAW} WHERE ${[...where, condition].join(" AND ")}`, params: [...params, ...conditionParams] })
  }
  if (q.outcome !== "accepted") part(`external_id = ? AND ${UNACCEPTED}`, [ext])
  if (!unaccepted) part("id = (SELECT raw_request_id FROM encounters WHERE workspace_id = ? AND external_id = ?)", [ws, ext])
  return query(`${parts.map((p) => p.text).join(" UNION ALL ")} ${newestFirstOrder("received_at", "id", q.position?.dir)} LIMIT ?`, [
    ...parts.flatMap((p) => p.params),
    q.limit + 1
  ])
}

export const encounterIdByExternalId = (ws: string, externalId: string): Query =>
  query("SELECT id FROM encounters WHERE workspace_id = ? AND external_id = ?", [ws, externalId])

/** An encounter with its latest claim, from the encounter's row alone (see `EncounterRow`). */
const ENCOUNTER = `SELECT ${list(codecs.encounters.columns, "e.")} FROM encounters e`
export const encounter = (ws: string, id: string): Query => query(`${ENCOUNTER} WHERE e.id = ? AND e.workspace_id = ?`, [id, ws])

/**
 * Above every character: `prefix + PAST_PREFIX` bounds the strings that start with `prefix` in
 * byte order (SQLite's, and the "C" collation of the prefix columns on PostgreSQL, migration 13).
 */
const PAST_PREFIX = "\u{10FFFF}"

/** The search filters of a scan that have a value, as conditions on the encounters table's columns. */
const searchFilters = (q: EncounterScan): Filters => {
  const name = q.patient_last_name_prefix
  const ext = q.external_id_prefix
  return [
    ["patient_last_name_lower >= ?", name],
    ["patient_last_name_lower < ?", name === undefined ? undefined : name + PAST_PREFIX],
    ["patient_date_of_birth = ?", q.patient_date_of_birth],
    ["date_of_service >= ?", q.date_of_service_from],
    ["date_of_service <= ?", q.date_of_service_to],
    ["external_id >= ?", ext],
    ["external_id < ?", ext === undefined ? undefined : ext + PAST_PREFIX],
    ["payer_id = ?", q.payer_id]
  ]
}

/** Whether a scan has a search filter (then it is read by `encounterSearch*`, not `encounterPage`'s one scan). */
export const isSearch = (q: EncounterScan): boolean => searchFilters(q).some(([, value]) => value !== undefined)

/** Every filter of a scan that has a value: external id, claim status and the search's. */
const allFilters = (q: EncounterScan): Filters => [
  ["external_id = ?", q.external_id],
  ["latest_claim_status = ?", q.claim_status],
  ...searchFilters(q)
]

/**
 * A search's keyset bound compares an expression, not the column: a bound on created_at would have
 * the database read along (workspace, created_at) from the position, checking every row's filters
 * (a rare name's later page would read most of the workspace), rather than the filter's range.
 */
const SEARCH_KEYS = { time: "created_at", id: "id", workspace: "workspace_id", bound: "created_at || ''" }

/** A page of a scan without search filters, `select` over `FROM encounters e`. */
const plainPage = (select: string, ws: string, q: EncounterScan): Query =>
  newestFirstPage(select, { time: "e.created_at", id: "e.id", workspace: "e.workspace_id" }, ws, q, [
    ["e.external_id = ?", q.external_id],
    ["e.latest_claim_status = ?", q.claim_status]
  ])

/**
 * The keys of a page of a scan without search filters (no `isSearch`): each encounter's id,
 * created_at and revision, in scan order. Two columns of each row besides the index's: a reader
 * that holds most of the page (`HeldEncounters`) then reads only the rows it lacks, which for a
 * page of 100 renders kept was 28 against 133 to 153 µs in one connection (bench/RESULTS.md,
 * "A page of renders held").
 */
export const encounterPageKeys = (ws: string, q: EncounterScan): Query =>
  plainPage("SELECT e.id, e.created_at, e.revision FROM encounters e", ws, q)

/**
 * A page of encounters. By external id or claim status alone (or nothing): one scan along their
 * index. With a search filter (a name or external id prefix, a birth date, a date of service range,
 * a payer): the page's ids from the filter's index on (workspace, column, created_at, id)
 * (migration 13), which holds the newest-first key, so a range is ordered from its index entries
 * alone, without a table row per match; then those rows. The database picks which of the given
 * filters' indexes to read; the others are checked on the rows of its range. The newest rows are
 * checked first (`encounterSearchRecent`, see `encounterSearch` in programs.ts).
 */
export const encounterPage = (ws: string, q: EncounterScan): Query => {
  if (!isSearch(q)) return plainPage(ENCOUNTER, ws, q)
  const ids = newestFirstPage("SELECT id FROM encounters", SEARCH_KEYS, ws, q, allFilters(q))
  return query(`${ENCOUNTER} WHERE e.id IN (${ids.sql}) ${newestFirstOrder("e.created_at", "e.id", q.position?.dir)}`, ids.params)
}

/**
 * A search's page from the workspace's `window` newest rows after the position, read along
 * (workspace, created_at, id) and checked against the filters: the ids of the first `limit + 1`
 * matches among them, in scan order (fewer when the window holds fewer). The window is a subquery with its own LIMIT, so the filters are
 * applied to its rows (never pushed into it) and no more than `window` rows are read.
 */
export const encounterSearchRecent = (ws: string, q: EncounterScan, window: number): Query => {
  const { where, params } = newestFirstWhere({ time: "created_at", id: "id", workspace: "workspace_id" }, ws, q, [])
  const order = newestFirstOrder("created_at", "id", q.position?.dir)
  const columns = "id, created_at, external_id, latest_claim_status, patient_last_name_lower, patient_date_of_birth, date_of_service, payer_id"
  const filters = allFilters(q).filter(([, value]) => value !== undefined)
  return query(
    `SELECT id FROM (SELECT ${columns} FROM encounters WHERE ${where.join(" AND ")} ${order} LIMIT ?) recent
      WHERE ${filters.map(([condition]) => condition).join(" AND ")} ${order} LIMIT ?`,
    [...params, window, ...filters.map(([, value]) => value ?? null), q.limit + 1]
  )
}

/**
 * Encounter rows by id (ids a read of one workspace found), in a page's scan order: by the primary
 * key. (With the workspace as a condition too, SQLite would rather walk the workspace's time index,
 * which gives the order, than look the ids up and sort them.)
 */
export const encountersByIds = (ids: ReadonlyArray<string>, dir: "next" | "prev" | undefined): Query =>
  query(`${ENCOUNTER} WHERE e.id IN (${marks(ids.length)}) ${newestFirstOrder("e.created_at", "e.id", dir)}`, ids)

/**
 * How many encounters' latest claims are in each status and what they bill: one pass over the
 * workspace's range of `encounters_status_billed` (workspace, latest claim status, billed_cents,
 * id), the index alone, no table rows.
 */
export const claimStatusCounts = (ws: string): Query =>
  query(
    "SELECT latest_claim_status AS status, COUNT(*) AS n, SUM(billed_cents) AS billed FROM encounters WHERE workspace_id = ? GROUP BY latest_claim_status",
    [ws]
  )

/**
 * A status's work list, along `encounters_status_age` or `encounters_status_billed` (workspace,
 * status, the value, id): the index is the order, so a page reads its own rows only.
 */
export const claimWorkPage = (ws: string, q: ClaimWorkScan): Query => {
  const column = q.by === "billed_cents" ? "billed_cents" : "latest_claim_status_changed_at"
  const where = ["workspace_id = ?", "latest_claim_status = ?"]
  const params: Array<SqlValue> = [ws, q.status]
  const pos = q.position
  // A "prev" scan reads against the list's order and the rule reverses it.
  const down = pos?.dir === "prev" ? !q.descending : q.descending
  if (pos !== undefined) {
    where.push(down ? `${column} <= ? AND (${column} < ? OR id < ?)` : `${column} >= ? AND (${column} > ? OR id > ?)`)
    const at = pos.key[0] ?? ""
    params.push(at, at, String(pos.key[1] ?? ""))
  }
  const order = down ? `ORDER BY ${column} DESC, id DESC` : `ORDER BY ${column} ASC, id ASC`
  return scan(selectAll("encounters"), where, params, order, q.limit)
}

const CLAIM_COLUMNS = codecs.claims.columns.map((c) => `c.${c} AS c_${c}`).join(", ")
/**
 * Claims found by `where` (on the claims table's own columns), each with columns of its encounter
 * (`select`, over `e` and `c`). The claims are found first, as a materialized CTE, and the
 * encounters joined to them: written as a plain join, bun:sqlite took three times as long to read
 * the same row (28 against 8 µs for a claim with its encounter's row, 17 against 7 for what a status
 * move reads: bench/RESULTS.md, "A claim read with its encounter").
 */
const claimsJoined = (select: string, where: string): string =>
  `WITH c AS MATERIALIZED (SELECT ${list(codecs.claims.columns)} FROM claims WHERE ${where}) SELECT ${select} FROM c JOIN encounters e ON e.id = c.encounter_id`
const CLAIM_WITH_ENCOUNTER = `${list(codecs.encounters.columns, "e.")}, ${CLAIM_COLUMNS}`
/** A claim by its own id (columns prefixed `c_`) with its encounter's row. */
export const claim = (ws: string, id: string): Query => query(claimsJoined(CLAIM_WITH_ENCOUNTER, "id = ? AND workspace_id = ?"), [id, ws])
/** A claim by its patient control number (how clearinghouse responses name it). */
export const claimByPcn = (ws: string, pcn: string): Query =>
  query(claimsJoined(CLAIM_WITH_ENCOUNTER, "workspace_id = ? AND patient_control_number = ?"), [ws, pcn])

/**
 * Claims by their ids or control numbers (`key`), with the keys of their encounters a status move
 * needs (`e_` columns): the import's lookups of a file's claims, some hundreds per query.
 */
const ENCOUNTER_KEYS = "e.external_id AS e_external_id, e.latest_claim_id AS e_latest_claim_id"
/** Encounters by id (an import reads the payloads of the claims an 835 pays, some hundreds at a time). */
export const encounterRecordsByIds = (ws: string, ids: ReadonlyArray<string>): Query =>
  query(`${selectAll("encounters")} WHERE workspace_id = ? AND id IN (${marks(ids.length)})`, [ws, ...ids])

/**
 * A claim's open tasks, unordered: a seek in `tasks_open_claim_id_due` to at most one task per type.
 * (An ORDER BY here, though the index yields that order, cost bun:sqlite some 7 µs a read more.)
 */
export const openTasksOfClaim = (ws: string, claimId: string): Query =>
  query(`${selectAll("tasks")} WHERE workspace_id = ? AND open_claim_id = ?`, [ws, claimId])

/** A claim by id with its encounter's keys and content (`e_` columns): what a status move reads, one row. */
export const claimToChange = (ws: string, id: string): Query =>
  query(claimsJoined(`${ENCOUNTER_KEYS}, e.payload AS e_payload, ${CLAIM_COLUMNS}`, "id = ? AND workspace_id = ?"), [id, ws])

export const claimsWithKeys = (ws: string, key: ClaimKey, values: ReadonlyArray<string>): Query =>
  query(claimsJoined(`${ENCOUNTER_KEYS}, ${CLAIM_COLUMNS}`, `workspace_id = ? AND ${key} IN (${marks(values.length)})`), [ws, ...values])

const REMITTANCE = selectAll("remittances")
/**
 * The most recent remittances of some claims, at most `limit` each: one seek per claim along
 * `remittances_claim_page` (migration 12), however many remittances a claim has.
 */
export const recentRemittancesOf = (ws: string, claimIds: ReadonlyArray<string>, limit: number): Query =>
  query(
    claimIds.map(() => `SELECT * FROM (${REMITTANCE} WHERE workspace_id = ? AND claim_id = ? ORDER BY received_at DESC, id DESC LIMIT ?) r`).join(" UNION ALL "),
    claimIds.flatMap((id) => [ws, id, limit])
  )

// ---- clearinghouse exchange -----------------------------------------------------------------

export const clearinghouseSettings = (ws: string): Query =>
  query(`SELECT ${list(codecs.clearinghouse_settings.columns)} FROM clearinghouse_settings WHERE workspace_id = ?`, [ws])

const BATCH = selectAll("x12_batches")
export const batchByGroup = (ws: string, group: number): Query =>
  query(`${BATCH} WHERE workspace_id = ? AND group_control_number = ?`, [ws, group])

const FILE = selectAll("x12_files")
/** The first file imported with this interchange key (several may have it: control numbers get reused). */
export const x12FileByInterchange = (ws: string, key: string): Query =>
  query(`${FILE} WHERE workspace_id = ? AND interchange_key = ? ORDER BY received_at, id LIMIT 1`, [ws, key])
/** The file with this content key (unique). */
export const x12FileByContent = (ws: string, key: string): Query => query(`${FILE} WHERE workspace_id = ? AND content_key = ?`, [ws, key])
/** The imported (not invalid) file with these bytes. */
export const x12FileBySha = (ws: string, sha: string): Query =>
  query(`${FILE} WHERE workspace_id = ? AND sha256 = ? AND kind <> 'invalid' ORDER BY received_at, id LIMIT 1`, [ws, sha])

const OUTCOME = selectAll("x12_file_outcomes")
/** A file's outcomes in file order (position); a "prev" scan reads downward and the rule reverses it. */
export const x12FileOutcomePage = (ws: string, fileId: string, q: PlaceScan): Query => {
  const pos = q.position
  const where = ["workspace_id = ?", "file_id = ?"]
  const params: Array<SqlValue> = [ws, fileId]
  if (pos !== undefined) {
    where.push(pos.dir === "next" ? "position > ?" : "position < ?")
    params.push(Number(pos.key[0]))
  }
  return scan(OUTCOME, where, params, pos?.dir === "prev" ? "ORDER BY position DESC" : "ORDER BY position ASC", q.limit)
}

const EVENT = `SELECT ${list(codecs.events.columns)} FROM events`
export const event = (ws: string, id: string): Query => query(`${EVENT} WHERE id = ? AND workspace_id = ?`, [id, ws])
/** Events oldest first in recorded order (seq); a "prev" scan reads downward and the rule reverses it. */
export const eventPage = (ws: string, q: EventScan): Query => eventScan(EVENT, ws, q)
/** The places (`seq`) of the events `eventPage` reads, from the feed indexes alone. */
export const eventSeqPage = (ws: string, q: EventScan): Query => eventScan("SELECT seq FROM events", ws, q)
const eventScan = (select: string, ws: string, q: EventScan): Query => {
  const where = ["workspace_id = ?"]
  const params: Array<SqlValue> = [ws]
  if (q.event_types !== undefined) {
    where.push(`event_type IN (${marks(q.event_types.length)})`)
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
  const pos = q.position
  if (pos !== undefined) {
    where.push(pos.dir === "next" ? "seq > ?" : "seq < ?")
    params.push(Number(pos.key[0]))
  }
  return scan(select, where, params, pos?.dir === "prev" ? "ORDER BY seq DESC" : "ORDER BY seq ASC", q.limit)
}

/**
 * An encounter's events oldest first: a range of `events_encounter` (workspace, encounter, seq) on
 * the generated column `encounter_id` (migration 6), however large the rest of the feed.
 */
export const encounterEventPage = (ws: string, encounterId: string, q: EncounterEventScan): Query =>
  q.after === undefined
    ? scan(EVENT, ["workspace_id = ?", "encounter_id = ?"], [ws, encounterId], "ORDER BY seq ASC", q.limit)
    : scan(EVENT, ["workspace_id = ?", "encounter_id = ?", "seq > ?"], [ws, encounterId, q.after], "ORDER BY seq ASC", q.limit)

/** The outbox's read: only the columns that decide which events an endpoint takes. */
export const enabledWebhookEndpoints = (ws: string): Query =>
  query("SELECT id, workspace_id, status, event_types FROM webhook_endpoints WHERE workspace_id = ? AND status = 'enabled'", [ws])
/** The slots the workspace's endpoints hold, read from the unique index on (workspace, slot) alone. */
export const webhookEndpointSlots = (ws: string): Query => query("SELECT slot FROM webhook_endpoints WHERE workspace_id = ?", [ws])

const DELIVERY = selectAll("webhook_deliveries")
/** The outbox's depth, counted on the partial index of pending rows. */
export const pendingWebhookDeliveries: Query = query("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'", [])
/** One endpoint's pending deliveries, counted along `webhook_deliveries_due_by_endpoint`. */
export const pendingWebhookDeliveriesOf = (ws: string, endpointId: string): Query =>
  query("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending' AND workspace_id = ?", [endpointId, ws])
/**
 * Due deliveries, soonest first. With endpoints or workspaces to skip (those at their limit of
 * attempts in flight), the others' are read endpoint by endpoint (`webhook_deliveries_due_by_endpoint`),
 * so a skipped endpoint's or workspace's backlog, however long, is never scanned.
 */
export const dueWebhookDeliveries = (now: string, limit: number, skip: ReadonlyArray<string>, skipWorkspaces: ReadonlyArray<string>): Query =>
  skip.length === 0 && skipWorkspaces.length === 0
    ? query(
        `${DELIVERY} WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
          ORDER BY next_attempt_at LIMIT ?`,
        [now, now, limit]
      )
    : query(
        `SELECT ${list(codecs.webhook_deliveries.columns, "d.")} FROM webhook_endpoints e CROSS JOIN webhook_deliveries d
          WHERE ${[
            ...(skip.length > 0 ? [`e.id NOT IN (${marks(skip.length)})`] : []),
            ...(skipWorkspaces.length > 0 ? [`e.workspace_id NOT IN (${marks(skipWorkspaces.length)})`] : [])
          ].join(" AND ")}
            AND d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= ?
            AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= ?)
          ORDER BY d.next_attempt_at LIMIT ?`,
        [...skip, ...skipWorkspaces, now, now, limit]
      )
