import { Schema } from "effect"
import { WorkspaceId } from "./ids.js"

/**
 * What a clearinghouse connection carries: the uploads of batch files to it and the files picked
 * up from it, and how both show in the connection's activity.
 */

/** One batch file to drop, and how far its upload got. */
export const ClearinghouseUploadRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  connection_id: Schema.String,
  /** "837P" (and "276" once status inquiries are batched). */
  batch_kind: Schema.String,
  batch_id: Schema.String,
  /** GS06 of the batch: a 999 names it. */
  group_control_number: Schema.NullOr(Schema.Number),
  file_name: Schema.String,
  size: Schema.Number,
  sha256: Schema.String,
  status: Schema.Literal("pending", "uploaded"),
  attempts: Schema.Number,
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Schema.NullOr(Schema.String),
  uploaded_at: Schema.NullOr(Schema.String),
  /** When a 999 picked up on the connection named the batch. */
  acknowledged_at: Schema.NullOr(Schema.String),
  created_at: Schema.String
})
export type ClearinghouseUploadRecord = typeof ClearinghouseUploadRecord.Type

export const PickupStatus = Schema.Literal("pending", "imported", "duplicate", "failed")
export type PickupStatus = typeof PickupStatus.Type

/**
 * One file seen in the inbound folder, by name, size and modification time (`seen_key`): a file
 * changed in place is another pickup. `pending` until its import is recorded; `failed` files
 * are kept on the server and not tried again until they change or are retried by hand.
 */
export const ClearinghousePickupRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  connection_id: Schema.String,
  file_name: Schema.String,
  size: Schema.Number,
  mtime: Schema.Number,
  seen_key: Schema.String,
  status: PickupStatus,
  sha256: Schema.NullOr(Schema.String),
  /** The imported file (`/api/x12/files/{id}`); for a duplicate, the earlier import's. */
  file_id: Schema.NullOr(Schema.String),
  kind: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  attempts: Schema.Number,
  archived_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type ClearinghousePickupRecord = typeof ClearinghousePickupRecord.Type

/** One entry of a connection's activity, newest first. */
export const ConnectionActivity = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("upload"),
    id: Schema.String,
    at: Schema.String,
    batch_kind: Schema.String,
    batch_id: Schema.String,
    file_name: Schema.String,
    size: Schema.Number,
    sha256: Schema.String,
    status: Schema.Literal("pending", "uploaded"),
    attempts: Schema.Number,
    last_error: Schema.NullOr(Schema.String),
    uploaded_at: Schema.NullOr(Schema.String),
    next_attempt_at: Schema.NullOr(Schema.String)
  }),
  Schema.Struct({
    type: Schema.Literal("pickup"),
    id: Schema.String,
    at: Schema.String,
    file_name: Schema.String,
    size: Schema.Number,
    sha256: Schema.NullOr(Schema.String),
    status: PickupStatus,
    kind: Schema.NullOr(Schema.String),
    file_id: Schema.NullOr(Schema.String),
    error: Schema.NullOr(Schema.String),
    attempts: Schema.Number,
    archived_at: Schema.NullOr(Schema.String)
  })
).annotations({ identifier: "ClearinghouseConnectionActivity" })
export type ConnectionActivity = typeof ConnectionActivity.Type

export const uploadActivity = (u: ClearinghouseUploadRecord): ConnectionActivity => ({
  type: "upload",
  id: u.id,
  at: u.created_at,
  batch_kind: u.batch_kind,
  batch_id: u.batch_id,
  file_name: u.file_name,
  size: u.size,
  sha256: u.sha256,
  status: u.status,
  attempts: u.attempts,
  last_error: u.last_error,
  uploaded_at: u.uploaded_at,
  next_attempt_at: u.next_attempt_at
})

export const pickupActivity = (p: ClearinghousePickupRecord): ConnectionActivity => ({
  type: "pickup",
  id: p.id,
  at: p.created_at,
  file_name: p.file_name,
  size: p.size,
  sha256: p.sha256,
  status: p.status,
  kind: p.kind,
  file_id: p.file_id,
  error: p.error,
  attempts: p.attempts,
  archived_at: p.archived_at
})
