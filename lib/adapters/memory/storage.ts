import { Effect, Layer, Option } from "effect"
import { type EncounterRow, type EncounterWithClaim, fromEncounterRow, type HeldEncounters, type ListedEncounter, type RawRequestRecord } from "../../domain/encounter.js"
import { byReceipt, REMITTANCES_SHOWN } from "../../domain/remittance.js"
import { recordedAt, type StoredEvent, toFeedEvent } from "../../domain/event.js"
import { StorageError } from "../../domain/errors.js"
import { EncounterId, type WorkspaceId } from "../../domain/ids.js"
import type { Key } from "../../domain/page.js"
import { type ClaimWithEncounterKeys, type EncounterScan, Storage, type StorageShape, type TablePageScan } from "../../ports/storage.js"
import { type PagedTable, Pages, type RecordOf, type TableName, Tables } from "../../ports/tables.js"
import { refused, type Write, type WriteResult, Written } from "../../ports/write.js"

/** Tuple order on keys of strings and numbers. */
const compareKeys = (a: Key, b: Key): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!
    const y = b[i]!
    if (x < y) return -1
    if (x > y) return 1
  }
  return a.length - b.length
}

type Row = Readonly<Record<string, unknown>>

/** A table's unique indexes: the key's values joined, to the holder's id. */
interface MemoryTable {
  readonly rows: Map<string, Row>
  readonly unique: ReadonlyArray<{ readonly name: string; readonly columns: ReadonlyArray<string>; readonly index: Map<string, string> }>
}

const keyOf = (row: Row, columns: ReadonlyArray<string>) => columns.map((c) => String(row[c])).join("\u0000")

/** Newest first by (time, id), seeking from a keyset position; at most `limit + 1` rows in scan order. */
const newestFirst = <A>(items: ReadonlyArray<A>, key: (a: A) => Key, q: { readonly position?: { dir: "next" | "prev"; key: Key } | undefined; readonly limit: number }) => {
  const pos = q.position
  const scanned =
    pos === undefined || pos.dir === "next"
      ? items.filter((r) => pos === undefined || compareKeys(key(r), pos.key) < 0).sort((a, b) => compareKeys(key(b), key(a)))
      : items.filter((r) => compareKeys(key(r), pos.key) > 0).sort((a, b) => compareKeys(key(a), key(b)))
  return scanned.slice(0, q.limit + 1)
}

/** Oldest first by (time, id), seeking from a keyset position; at most `limit + 1` rows in scan order. */
const oldestFirst = <A>(items: ReadonlyArray<A>, key: (a: A) => Key, q: { readonly position?: { dir: "next" | "prev"; key: Key } | undefined; readonly limit: number }) => {
  const pos = q.position
  const scanned =
    pos === undefined || pos.dir === "next"
      ? items.filter((r) => pos === undefined || compareKeys(key(r), pos.key) > 0).sort((a, b) => compareKeys(key(a), key(b)))
      : items.filter((r) => compareKeys(key(r), pos.key) < 0).sort((a, b) => compareKeys(key(b), key(a)))
  return scanned.slice(0, q.limit + 1)
}

/**
 * In-memory storage, for tests and embedders' tests. It executes the same writes as the SQL
 * adapters, on tables with the same unique keys (from `Tables`), so it decides the same
 * preconditions; a refused or failing write is undone step by step. Every method runs
 * synchronously, so each is atomic on a single-threaded runtime. Fresh state per layer build.
 */
export const makeMemoryStorage = (): StorageShape => {
  // A map per table of `Tables` (but the feed, kept in order below): typed for the reads; the
  // writes see every table as rows of columns.
  type Data = { readonly [T in Exclude<TableName, "events">]: Map<string, RecordOf<T>> }
  const names = (Object.keys(Tables) as Array<TableName>).filter((n): n is Exclude<TableName, "events"> => n !== "events")
  const data = Object.fromEntries(names.map((n) => [n, new Map()])) as unknown as Data
  const events: Array<StoredEvent> = []
  const tables = new Map<string, MemoryTable>()
  for (const name of names) {
    const rows: Map<string, Row> = data[name]
    const uniques: Readonly<Record<string, ReadonlyArray<string>>> = Tables[name].unique
    tables.set(name, { rows, unique: Object.entries(uniques).map(([u, columns]) => ({ name: u, columns, index: new Map() })) })
  }
  const table = (name: TableName): MemoryTable => {
    const t = tables.get(name)
    if (t === undefined) throw new Error(`no table ${name}`)
    return t
  }
  const all = <T extends keyof typeof data>(name: T) => [...data[name].values()]
  const get = <T extends keyof typeof data>(name: T, id: string) => data[name].get(id)

  const put = (t: MemoryTable, row: Row, undo: Array<() => void>) => {
    const id = String(row.id)
    const before = t.rows.get(id)
    for (const u of t.unique) {
      if (before !== undefined) u.index.delete(keyOf(before, u.columns))
      u.index.set(keyOf(row, u.columns), id)
    }
    t.rows.set(id, row)
    undo.push(() => {
      for (const u of t.unique) {
        u.index.delete(keyOf(row, u.columns))
        if (before !== undefined) u.index.set(keyOf(before, u.columns), id)
      }
      if (before === undefined) t.rows.delete(id)
      else t.rows.set(id, before)
    })
  }

  /** The row with `set` applied and, in a table that has one, its revision one higher. */
  const revised = (name: TableName, row: Row, set: Readonly<Record<string, unknown>>): Row => {
    const column: string | undefined = Tables[name].revision
    return column === undefined ? { ...row, ...set } : { ...row, ...set, [column]: Number(row[column] ?? 0) + 1 }
  }

  /** Sets `set` on the row `id` where it still has `where`; answers whether it did. */
  const updateRow = (
    name: TableName,
    id: string,
    where: Readonly<Record<string, unknown>>,
    set: Readonly<Record<string, unknown>>,
    undo: Array<() => void>
  ): boolean => {
    const t = table(name)
    const row = t.rows.get(id)
    if (row === undefined || !Object.entries(where).every(([c, v]) => v === undefined || row[c] === v)) return false
    put(t, revised(name, row, set), undo)
    return true
  }

  const execute = <R>(write: Write<R>): WriteResult<R> => {
    const undo: Array<() => void> = []
    const rollback = <A>(result: A): A => {
      for (const u of undo.reverse()) u()
      return result
    }
    for (const step of write.steps) {
      switch (step._tag) {
        case "Insert": {
          const t = table(step.table)
          const row: Row = step.record
          for (const u of t.unique) {
            const holder = u.index.get(keyOf(row, u.columns))
            if (holder === undefined) continue
            if (step.ifTaken !== undefined && step.ifTaken.unique === u.name) return rollback(refused(step.ifTaken.refuse(holder)))
            rollback(undefined)
            throw new Error(`${step.table}: the unique key ${u.name} is taken`)
          }
          put(t, row, undo)
          break
        }
        case "Update": {
          if (!updateRow(step.table, step.id, step.where, step.set, undo) && step.ifUnmatched !== undefined) {
            return rollback(refused(step.ifUnmatched))
          }
          break
        }
        case "Remove": {
          const t = table(step.table)
          const row = t.rows.get(step.id)
          if (row === undefined || !Object.entries(step.where).every(([c, v]) => v === undefined || row[c] === v)) break
          for (const u of t.unique) u.index.delete(keyOf(row, u.columns))
          t.rows.delete(step.id)
          undo.push(() => {
            for (const u of t.unique) u.index.set(keyOf(row, u.columns), step.id)
            t.rows.set(step.id, row)
          })
          break
        }
        case "AppendEvent": {
          const e = step.event
          let previous: string | undefined
          for (let i = events.length - 1; i >= 0 && previous === undefined; i--) {
            if (events[i]!.workspace_id === e.workspace_id) previous = events[i]!.created_at
          }
          const stored: StoredEvent = { ...e, created_at: recordedAt(e.created_at, previous), seq: events.length + 1 }
          events.push(stored)
          undo.push(() => void events.pop())
          if (step.touch === undefined) break
          const also = step.touchAlso
          const where = { ...also?.where, workspace_id: e.workspace_id }
          const touched = updateRow("encounters", step.touch, where, { ...also?.set, last_event_at: stored.created_at }, undo)
          if (!touched && also !== undefined) return rollback(refused(also.ifUnmatched))
          break
        }
      }
    }
    return Written
  }

  const inWorkspace = <A extends { readonly workspace_id: string }>(ws: string, a: A | undefined) =>
    a === undefined || a.workspace_id !== ws ? Option.none() : Option.some(a)
  const workspace = ({ id, slug, name }: RecordOf<"workspaces">) => ({ id, slug, name })
  /** Like the SQL reads: a claim's most recent remittances, oldest first, and whether it has more. */
  const remittancesOf = (claimId: string): Pick<EncounterWithClaim, "remittances" | "more_remittances"> => {
    const found = all("remittances")
      .filter((r) => r.claim_id === claimId)
      .sort(byReceipt)
    const more = found.length > REMITTANCES_SHOWN
    return { remittances: found.slice(-REMITTANCES_SHOWN), ...(more ? { more_remittances: true } : {}) }
  }
  // Like the SQL reads: remittances looked up only where the encounter's row says there are some.
  const encounterRead = (row: EncounterRow): EncounterWithClaim => {
    const read = fromEncounterRow(row)
    return row.latest_claim_remittances_at === null ? read : { ...read, ...remittancesOf(read.claim.id) }
  }
  const claimRead = (ws: string, claim: RecordOf<"claims"> | undefined): Option.Option<EncounterWithClaim> =>
    Option.flatMap(inWorkspace(ws, claim), (c) =>
      Option.map(Option.fromNullable(get("encounters", c.encounter_id)), (e) => ({
        encounter: fromEncounterRow(e).encounter,
        claim: c,
        ...remittancesOf(c.id)
      }))
    )
  const claimWithKeys = (ws: string, claim: RecordOf<"claims"> | undefined): ReadonlyArray<ClaimWithEncounterKeys> => {
    const e = claim === undefined || claim.workspace_id !== ws ? undefined : get("encounters", claim.encounter_id)
    return claim === undefined || e === undefined ? [] : [{ claim, encounter: { id: e.id, external_id: e.external_id, latest_claim_id: e.latest_claim_id } }]
  }
  const sync = Effect.sync
  /** A page of a table by its page key (`Pages`), the records equal to `where` on its filter columns. */
  const pageOf = <T extends PagedTable>(name: T, ws: WorkspaceId, q: TablePageScan<T>): ReadonlyArray<RecordOf<T>> => {
    type Stored = Readonly<Record<string, unknown>> & { readonly id: string; readonly workspace_id: string }
    const key = Pages[name]
    const where = Object.entries(q.where ?? {}).filter(([, v]) => v !== undefined)
    const rows = ([...data[name].values()] as ReadonlyArray<Stored>).filter((r) => r.workspace_id === ws && where.every(([c, v]) => r[c] === v))
    const keyOf = (r: Stored): Key => [String(r[key.time]), r.id]
    const page: ReadonlyArray<Stored> = "oldestFirst" in key ? oldestFirst(rows, keyOf, q) : newestFirst(rows, keyOf, q)
    // The stored records of `name`, as they were put.
    return page as unknown as ReadonlyArray<RecordOf<T>>
  }

  return {
    ping: () => Effect.void,
    write: (w) => Effect.try({ try: () => execute(w), catch: (cause) => new StorageError({ operation: w.operation, cause }) }),
    get: (name, ws, id) => sync(() => inWorkspace(ws, data[name].get(id))),
    page: (name, ws, q) => sync(() => pageOf(name, ws, q)),
    pageHeld: (name, ws, q, held) =>
      sync(() => {
        const revision = Tables[name].revision
        return pageOf(name, ws, q).map((r) => {
          const fields = r as Readonly<Record<string, unknown>>
          const id = String(fields.id)
          const rev = revision === undefined ? undefined : fields[revision]
          const value = typeof rev === "number" ? held(id, rev) : undefined
          return value === undefined || typeof rev !== "number" ? r : { _tag: "Known" as const, id, time: String(fields[Pages[name].time]), revision: rev, value }
        })
      }),
    findWorkspaceBySlug: (slug) => sync(() => Option.map(Option.fromNullable(all("workspaces").find((w) => w.slug === slug)), workspace)),
    listWorkspaces: () =>
      sync(() =>
        [...all("workspaces")].sort((a, b) => compareKeys([a.created_at, a.id], [b.created_at, b.id])).map(workspace)
      ),
    findApiKeyByHash: (hash) =>
      sync(() => {
        const key = all("api_keys").find((k) => k.hash === hash)
        const ws = key === undefined ? undefined : get("workspaces", key.workspace_id)
        return key === undefined || ws === undefined ? Option.none() : Option.some({ key, workspace: workspace(ws) })
      }),
    listApiKeys: (ws) =>
      sync(() => all("api_keys").filter((k) => k.workspace_id === ws).sort((a, b) => compareKeys([a.created_at, a.id], [b.created_at, b.id]))),
    findUsersByEmail: (email) =>
      sync(() =>
        all("users")
          .filter((u) => u.email === email)
          .sort((a, b) => compareKeys([a.created_at, a.id], [b.created_at, b.id]))
          .flatMap((user) => {
            const ws = get("workspaces", user.workspace_id)
            return ws === undefined ? [] : [{ user, workspace: workspace(ws) }]
          })
      ),
    listRawRequests: (ws, q) =>
      sync(() =>
        newestFirst(
          all("raw_requests").filter(
            (r) =>
              r.workspace_id === ws &&
              (q.outcome === undefined || r.outcome === q.outcome) &&
              (q.external_id === undefined || r.external_id === q.external_id) &&
              (q.received_after === undefined || r.received_at >= q.received_after) &&
              (q.received_before === undefined || r.received_at <= q.received_before)
          ),
          (r: RawRequestRecord) => [r.received_at, r.id],
          q
        )
      ),
    findEncounterIdByExternalId: (ws, ext) =>
      sync(() => {
        const holder = table("encounters").unique[0]?.index.get(keyOf({ workspace_id: ws, external_id: ext }, ["workspace_id", "external_id"]))
        return holder === undefined ? Option.none() : Option.some(EncounterId.make(holder, true))
      }),
    findEncounter: (ws, id) => sync(() => Option.map(inWorkspace(ws, get("encounters", id)), encounterRead)),
    listEncounters: (<K>(ws: WorkspaceId, q: EncounterScan, held?: HeldEncounters<K>) =>
      sync(() =>
        newestFirst(
          all("encounters").filter(
            (e) =>
              e.workspace_id === ws &&
              (q.external_id === undefined || e.external_id === q.external_id) &&
              (q.claim_status === undefined || e.latest_claim_status === q.claim_status) &&
              (q.patient_last_name_prefix === undefined || e.patient_last_name_lower.startsWith(q.patient_last_name_prefix)) &&
              (q.patient_date_of_birth === undefined || e.patient_date_of_birth === q.patient_date_of_birth) &&
              (q.date_of_service_from === undefined || (e.date_of_service !== null && e.date_of_service >= q.date_of_service_from)) &&
              (q.date_of_service_to === undefined || (e.date_of_service !== null && e.date_of_service <= q.date_of_service_to)) &&
              (q.external_id_prefix === undefined || e.external_id.startsWith(q.external_id_prefix)) &&
              (q.payer_id === undefined || e.payer_id === q.payer_id)
          ),
          (e: EncounterRow) => [e.created_at, e.id],
          q
        ).map((e): ListedEncounter<K> => {
          const value = held?.(e.id, e.revision)
          return value === undefined ? encounterRead(e) : { _tag: "Known", id: e.id, created_at: e.created_at, revision: e.revision, value }
        })
      )) as StorageShape["listEncounters"],
    countClaimStatuses: (ws) =>
      sync(() => {
        const counts = new Map<string, { count: number; billed_cents: number }>()
        for (const e of data.encounters.values()) {
          if (e.workspace_id !== ws) continue
          const c = counts.get(e.latest_claim_status) ?? { count: 0, billed_cents: 0 }
          counts.set(e.latest_claim_status, { count: c.count + 1, billed_cents: c.billed_cents + e.billed_cents })
        }
        return [...counts].map(([status, c]) => ({ status, ...c }))
      }),
    listClaimWork: (ws, q) =>
      sync(() => {
        const key = (e: EncounterRow): Key => [q.by === "billed_cents" ? e.billed_cents : e.latest_claim_status_changed_at, e.id]
        const pos = q.position
        // Scan direction: the list's, or against it for a "prev" page (the rule reverses it).
        const down = pos?.dir === "prev" ? !q.descending : q.descending
        const rows = all("encounters").filter(
          (e) => e.workspace_id === ws && e.latest_claim_status === q.status && (pos === undefined || compareKeys(key(e), pos.key) * (down ? -1 : 1) > 0)
        )
        return rows
          .sort((a, b) => compareKeys(key(a), key(b)) * (down ? -1 : 1))
          .slice(0, q.limit + 1)
          .map(encounterRead)
      }),
    findClaim: (ws, id) => sync(() => claimRead(ws, get("claims", id))),
    findClaimByPcn: (ws, pcn) =>
      sync(() => {
        const holder = table("claims").unique[0]?.index.get(keyOf({ workspace_id: ws, patient_control_number: pcn }, ["workspace_id", "patient_control_number"]))
        return claimRead(ws, holder === undefined ? undefined : get("claims", holder))
      }),
    findOpenTasksOfClaim: (ws, claimId) => sync(() => all("tasks").filter((t) => t.workspace_id === ws && t.open_claim_id === claimId)),
    findClaimToChange: (ws, id) =>
      sync(() =>
        Option.flatMap(inWorkspace(ws, get("claims", id)), (claim) =>
          Option.map(Option.fromNullable(get("encounters", claim.encounter_id)), (e) => ({
            claim,
            encounter: { id: e.id, external_id: e.external_id, latest_claim_id: e.latest_claim_id, payload: e.payload }
          }))
        )
      ),
    findClaims: (ws, key, values) =>
      sync(() =>
        values.flatMap((v) => {
          if (key === "id") return claimWithKeys(ws, get("claims", v))
          const holder = table("claims").unique[0]?.index.get(keyOf({ workspace_id: ws, patient_control_number: v }, ["workspace_id", "patient_control_number"]))
          return claimWithKeys(ws, holder === undefined ? undefined : get("claims", holder))
        })
      ),
    findClearinghouseSettings: (ws) => sync(() => inWorkspace(ws, all("clearinghouse_settings").find((s) => s.workspace_id === ws))),
    findX12BatchByGroup: (ws, group) =>
      sync(() => Option.fromNullable(all("x12_batches").find((b) => b.workspace_id === ws && b.group_control_number === group))),
    findX12FileByInterchange: (ws, key) =>
      sync(() =>
        Option.fromNullable(
          all("x12_files")
            .filter((f) => f.workspace_id === ws && f.interchange_key === key)
            .sort((a, b) => compareKeys([a.received_at, a.id], [b.received_at, b.id]))[0]
        )
      ),
    findX12FileByContent: (ws, key) =>
      sync(() => Option.fromNullable(all("x12_files").find((f) => f.workspace_id === ws && f.content_key === key))),
    findEncounters: (ws, ids) =>
      sync(() => ids.flatMap((id) => {
        const e = get("encounters", id)
        return e === undefined || e.workspace_id !== ws ? [] : [e]
      })),
    findX12FileBySha: (ws, sha) =>
      sync(() =>
        Option.fromNullable(
          all("x12_files")
            .filter((f) => f.workspace_id === ws && f.sha256 === sha && f.kind !== "invalid")
            .sort((a, b) => compareKeys([a.received_at, a.id], [b.received_at, b.id]))[0]
        )
      ),
    listX12FileOutcomes: (ws, fileId, q) =>
      sync(() => {
        const pos = q.position
        const at = pos === undefined ? undefined : Number(pos.key[0])
        const outcomes = all("x12_file_outcomes").filter(
          (o) => o.workspace_id === ws && o.file_id === fileId && (at === undefined || (pos?.dir === "prev" ? o.position < at : o.position > at))
        )
        // List order is file order: "next" reads ascending positions above the position, "prev" descending below it.
        return outcomes.sort((a, b) => (pos?.dir === "prev" ? b.position - a.position : a.position - b.position)).slice(0, q.limit + 1)
      }),
    listEvents: (ws, q) =>
      sync(() => {
        const pos = q.position
        const match = (e: StoredEvent) =>
          e.workspace_id === ws &&
          (q.event_types === undefined || q.event_types.includes(e.event_type)) &&
          (q.created_after === undefined || e.created_at >= q.created_after) &&
          (q.created_before === undefined || e.created_at <= q.created_before)
        // List order is oldest first: "next" reads ascending seq above the position.
        if (pos === undefined || pos.dir === "next") {
          const from = pos === undefined ? 0 : Number(pos.key[0])
          return events.filter((e) => e.seq > from && match(e)).slice(0, q.limit + 1).map(toFeedEvent)
        }
        const below = Number(pos.key[0])
        return events
          .filter((e) => e.seq < below && match(e))
          .reverse()
          .slice(0, q.limit + 1)
          .map(toFeedEvent)
      }),
    findEvent: (ws, id) => sync(() => Option.map(inWorkspace(ws, events.find((e) => e.id === id)), toFeedEvent)),
    listEncounterEvents: (ws, id, q) =>
      sync(() =>
        events
          .filter((e) => e.workspace_id === ws && e.payload.encounter_id === id && (q.after === undefined || e.seq > q.after))
          .slice(0, q.limit + 1)
      ),
    enabledWebhookEndpoints: (ws) => sync(() => all("webhook_endpoints").filter((e) => e.workspace_id === ws && e.status === "enabled")),
    webhookEndpointSlots: (ws) => sync(() => all("webhook_endpoints").filter((e) => e.workspace_id === ws).map((e) => e.slot)),
    pendingWebhookDeliveries: () => sync(() => all("webhook_deliveries").filter((d) => d.status === "pending").length),
    pendingWebhookDeliveriesOf: (ws, endpointId) =>
      sync(() => all("webhook_deliveries").filter((d) => d.endpoint_id === endpointId && d.status === "pending" && d.workspace_id === ws).length),
    dueWebhookDeliveries: (now, limit, skip = [], skipWorkspaces = []) =>
      sync(() =>
        all("webhook_deliveries")
          .filter(
            (d) =>
              d.status === "pending" &&
              !skip.includes(d.endpoint_id) &&
              !skipWorkspaces.includes(d.workspace_id) &&
              d.next_attempt_at !== null &&
              d.next_attempt_at <= now &&
              (d.lease_expires_at === null || d.lease_expires_at <= now)
          )
          .sort((a, b) => ((a.next_attempt_at ?? "") < (b.next_attempt_at ?? "") ? -1 : 1))
          .slice(0, limit)
      )
  }
}

export const MemoryStorage = {
  /** A fresh, empty in-memory store per build. */
  layer: Layer.sync(Storage, makeMemoryStorage)
}
