import { Schema } from "effect"
import { requestDecoder } from "./field-issues.js"
import { WorkspaceId } from "./ids.js"

/**
 * A workspace's retention: how long raw requests (the intake log, bodies as received) are kept
 * (null: kept), and how long audit entries are kept (at least 6 years unless set).
 */
export const RetentionRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  raw_request_days: Schema.NullOr(Schema.Number),
  audit_days: Schema.Number,
  updated_at: Schema.String
})
export type RetentionRecord = typeof RetentionRecord.Type

/** What `retention show` and the purge report: the settings in force. */
export interface Retention {
  readonly raw_request_days: number | null
  readonly audit_days: number
}

/** The audit log may not be set to keep less than a year. */
export const MIN_AUDIT_DAYS = 366

/** What `GET /api/retention` answers. */
export const RetentionView = Schema.Struct({
  raw_request_days: Schema.NullOr(Schema.Number).annotations({ description: "Days raw requests are kept; null: kept" }),
  audit_days: Schema.Number.annotations({ description: "Days audit entries are kept (at least 366; default 6 years)" })
})

/** `PATCH /api/retention`: what is not given stays. */
export const RetentionPatch = Schema.Struct({
  raw_request_days: Schema.optional(Schema.NullOr(Schema.Number)).annotations({ description: "Whole days, 1 or more; null keeps raw requests" }),
  audit_days: Schema.optional(Schema.Number).annotations({ description: "Whole days, 366 or more" })
})
export const decodeRetentionPatch = requestDecoder(RetentionPatch)
