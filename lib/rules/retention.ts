import { Effect, Either, Option } from "effect"
import { commit } from "./commit.js"
import { DEFAULT_AUDIT_DAYS } from "../domain/audit.js"
import { FieldIssue, type StorageError } from "../domain/errors.js"
import type { WorkspaceId } from "../domain/ids.js"
import type { Position } from "../domain/page.js"
import { decodeRetentionPatch, MIN_AUDIT_DAYS, type Retention, type RetentionRecord } from "../domain/retention.js"
import { InvalidUserInput } from "../domain/user-errors.js"
import { Clock, type Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, remove, update } from "../ports/write.js"

const DAY_MS = 24 * 60 * 60 * 1000

export const defaultRetention: Retention = { raw_request_days: null, audit_days: DEFAULT_AUDIT_DAYS }

/** A workspace's row has the workspace's id as its own: read by id. */
const settingsOf = (ws: WorkspaceId) => Effect.flatMap(Storage, (storage) => storage.get("retention_settings", ws, ws))

/** The workspace's retention: what it set, the defaults for the rest (raw requests kept; audit 6 years). */
export const getRetention = (ws: WorkspaceId): Effect.Effect<Retention, StorageError, Storage> =>
  Effect.map(settingsOf(ws), (found) =>
    Option.match(found, {
      onNone: () => defaultRetention,
      onSome: (r: RetentionRecord) => ({ raw_request_days: r.raw_request_days, audit_days: r.audit_days })
    })
  )

export interface RetentionChange {
  /** Days raw requests are kept; null keeps them. */
  readonly raw_request_days?: number | null | undefined
  readonly audit_days?: number | undefined
}

/** `PATCH /api/retention`'s body, checked and applied (`setRetention`). */
export const patchRetention = (ws: WorkspaceId, body: unknown) =>
  Effect.flatMap(
    Either.mapLeft(decodeRetentionPatch(body), (errors) => new InvalidUserInput({ errors })),
    (patch) => setRetention(ws, patch)
  )

/** Sets a workspace's retention; what is not given stays. The audit log is kept a year at least. */
export const setRetention = (ws: WorkspaceId, change: RetentionChange): Effect.Effect<Retention, InvalidUserInput | StorageError, Storage | Clock | Ids> =>
  Effect.gen(function* () {
    const issues: Array<FieldIssue> = []
    const raw = change.raw_request_days
    if (raw !== undefined && raw !== null && (!Number.isInteger(raw) || raw < 1)) {
      issues.push(new FieldIssue({ path: "raw_request_days", message: "must be a whole number of days, 1 or more (or keep)" }))
    }
    const audit = change.audit_days
    if (audit !== undefined && (!Number.isInteger(audit) || audit < MIN_AUDIT_DAYS)) {
      issues.push(new FieldIssue({ path: "audit_days", message: `must be a whole number of days, ${MIN_AUDIT_DAYS} or more` }))
    }
    if (issues.length > 0) return yield* new InvalidUserInput({ errors: issues })
    const current = yield* settingsOf(ws)
    const now = isoTime((yield* Clock).now())
    const next: Retention = {
      raw_request_days: raw === undefined ? Option.match(current, { onNone: () => null, onSome: (r) => r.raw_request_days }) : raw,
      audit_days: audit ?? Option.match(current, { onNone: () => DEFAULT_AUDIT_DAYS, onSome: (r) => r.audit_days })
    }
    if (Option.isSome(current)) {
      yield* commit({ operation: "setRetention", steps: [update("retention_settings", current.value.id, { workspace_id: ws }, { ...next, updated_at: now })] })
    } else {
      const record: RetentionRecord = { id: ws, workspace_id: ws, ...next, updated_at: now }
      const result = yield* commit({
        operation: "setRetention",
        steps: [insert("retention_settings", record, { unique: "workspace", refuse: () => "taken" as const })]
      })
      // Set at the same time by another: this change applies over it.
      if (result._tag === "Refused") return yield* setRetention(ws, change)
    }
    return next
  })

export interface PurgeReport {
  readonly workspace_id: WorkspaceId
  readonly dry_run: boolean
  readonly raw_request_days: number | null
  readonly audit_days: number
  /** Raw requests received before this time go (null: none go). */
  readonly raw_requests_before: string | null
  readonly audit_before: string
  readonly raw_requests: number
  readonly audit_entries: number
}

/** Rows removed per write. */
const PURGE_CHUNK = 500

/**
 * Removes (or with `dryRun` counts) what the workspace's retention no longer keeps: raw requests
 * received more than `raw_request_days` ago (their encounters stay), and audit entries older than
 * `audit_days`. The only removal of audit entries there is.
 */
export const purgeWorkspace = (ws: WorkspaceId, dryRun: boolean) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const now = (yield* Clock).now()
    const retention = yield* getRetention(ws)
    const rawBefore = retention.raw_request_days === null ? null : isoTime(now - retention.raw_request_days * DAY_MS)
    const auditBefore = isoTime(now - retention.audit_days * DAY_MS)
    let rawCount = 0
    if (rawBefore !== null) {
      // Strictly before: the scan starts below (rawBefore, every id).
      let position: Position = { dir: "next", key: [rawBefore, ""] }
      for (;;) {
        const rows = (yield* storage.listRawRequests(ws, { position, limit: PURGE_CHUNK })).slice(0, PURGE_CHUNK)
        if (rows.length === 0) break
        rawCount += rows.length
        if (!dryRun) yield* commit({ operation: "purgeRawRequests", steps: rows.map((r) => remove("raw_requests", r.id, { workspace_id: ws })) })
        const last = rows[rows.length - 1]!
        position = { dir: "next", key: [last.received_at, last.id] }
      }
    }
    let auditCount = 0
    let position: Position = { dir: "next", key: [auditBefore, ""] }
    for (;;) {
      const rows = (yield* storage.page("audit_log", ws, { position, limit: PURGE_CHUNK })).slice(0, PURGE_CHUNK)
      if (rows.length === 0) break
      auditCount += rows.length
      if (!dryRun) yield* commit({ operation: "purgeAudit", steps: rows.map((r) => remove("audit_log", r.id, { workspace_id: ws })) })
      const last = rows[rows.length - 1]!
      position = { dir: "next", key: [last.at, last.id] }
    }
    const report: PurgeReport = {
      workspace_id: ws,
      dry_run: dryRun,
      raw_request_days: retention.raw_request_days,
      audit_days: retention.audit_days,
      raw_requests_before: rawBefore,
      audit_before: auditBefore,
      raw_requests: rawCount,
      audit_entries: auditCount
    }
    return report
  })

/** Every workspace's purge, one after another (what the server runs daily). */
export const purgeAll = () =>
  Effect.gen(function* () {
    const workspaces = yield* (yield* Storage).listWorkspaces()
    const reports: Array<PurgeReport> = []
    for (const ws of workspaces) reports.push(yield* purgeWorkspace(ws.id, false))
    return reports
  })

export const PURGE_EVERY_MS = DAY_MS
