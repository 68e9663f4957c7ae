import { Effect } from "effect"
import { commit } from "./commit.js"
import { type AuditFact, type AuditRecord, toAuditEntry } from "../domain/audit.js"
import { FieldIssue, InvalidQuery } from "../domain/errors.js"
import type { WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, type Position, timeBound, toPage, tokenScope } from "../domain/page.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert } from "../ports/write.js"

/** The stored entry of a fact, at the time and with the id it takes now. */
export const auditEntry = (fact: AuditFact) => Effect.gen(() => auditEntryGen(fact))

function* auditEntryGen(fact: AuditFact) {
  const entry: AuditRecord = {
    id: (yield* Ids).next(),
    workspace_id: fact.workspaceId,
    at: isoTime((yield* Clock).now()),
    actor_kind: fact.actor.kind,
    actor_id: fact.actor.id,
    actor_name: fact.actor.name,
    action: fact.action,
    resource_type: fact.resourceType,
    resource_id: fact.resourceId,
    client_ip: fact.clientIp,
    request_id: fact.requestId,
    outcome: fact.outcome
  }
  return entry
}

/**
 * Appends entries to the audit log in one write: once this succeeds they are committed (on
 * SQLite, fsynced with the other writes of its event-loop turn). A change's caller answers only
 * after its entry's write; reads' entries are gathered and written a turn at a time
 * (`server/audit.ts`).
 */
export const appendAuditEntries = (entries: ReadonlyArray<AuditRecord>) =>
  commit({ operation: "appendAudit", steps: entries.map((entry) => insert("audit_log", entry)) })

/** Appends one entry in a write of its own. */
export const appendAudit = (fact: AuditFact) => Effect.flatMap(auditEntry(fact), (entry) => appendAuditEntries([entry]))

export interface AuditQuery {
  /** An actor's id (a user's or a key's). */
  readonly actor?: string | undefined
  /** A resource's id. */
  readonly resource?: string | undefined
  readonly action?: string | undefined
  /** Inclusive bounds on `at`: ISO 8601 date-times. */
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/** Past every id at the same millisecond: a bound on `at` alone. */
const AFTER_IDS = "~"

/**
 * The workspace's audit log, newest first, filtered by actor, resource, action and time (each
 * filter along an index of its own), keyset-paged both ways.
 */
export const listAudit = (ws: WorkspaceId, query: AuditQuery) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const since = timeBound("since", query.since)
    const until = timeBound("until", query.until)
    const issues: Array<FieldIssue> = [...(Array.isArray(since) ? since : []), ...(Array.isArray(until) ? until : [])]
    if (issues.length > 0) return yield* new InvalidQuery({ errors: issues })
    const from = typeof since === "string" ? since : undefined
    const to = typeof until === "string" ? until : undefined
    const scope = tokenScope([ws, "audit", query.actor ?? null, query.resource ?? null, query.action ?? null, from ?? null, to ?? null])
    const given = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    // The newest entry of `until` is where the first page starts.
    const position: Position | undefined = given ?? (to === undefined ? undefined : { dir: "next", key: [to, AFTER_IDS] })
    const where = {
      ...(query.actor !== undefined ? { actor_id: query.actor } : {}),
      ...(query.resource !== undefined ? { resource_id: query.resource } : {}),
      ...(query.action !== undefined ? { action: query.action } : {})
    }
    const rows = yield* (yield* Storage).page("audit_log", ws, { position, limit, where })
    // Rows past either bound end the page there (and the list with it, in that direction).
    const inRange = rows.filter((r) => (from === undefined || r.at >= from) && (to === undefined || r.at <= to))
    const cut = inRange.length < rows.length ? inRange.slice(0, limit) : inRange
    return toPage(cut, limit, given, (r) => [r.at, r.id], scope, toAuditEntry)
  })

/** Entries exported per read. */
const EXPORT_CHUNK = 500

/**
 * Every entry of a workspace at or after `since`, oldest first, handed to `each` a chunk at a time
 * (the export never holds the whole log).
 */
export const exportAudit = <E, R>(ws: WorkspaceId, since: string, each: (lines: ReadonlyArray<ReturnType<typeof toAuditEntry>>) => Effect.Effect<void, E, R>) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    // A "prev" scan reads upward from its position, oldest first.
    let position: Position = { dir: "prev", key: [since, ""] }
    let count = 0
    for (;;) {
      const rows = yield* storage.page("audit_log", ws, { position, limit: EXPORT_CHUNK })
      const chunk = rows.slice(0, EXPORT_CHUNK)
      if (chunk.length > 0) yield* each(chunk.map(toAuditEntry))
      count += chunk.length
      const last = chunk[chunk.length - 1]
      if (rows.length <= EXPORT_CHUNK || last === undefined) return count
      position = { dir: "prev", key: [last.at, last.id] }
    }
  })
