import { Schema } from "effect"
import { ClearinghouseSettings } from "./clearinghouse.js"
import { WorkspaceId } from "./ids.js"

/**
 * The stored records of the clearinghouse exchange: a workspace's settings (with the counter its
 * control numbers come from), the 837P batches sent, and the files received back.
 */

/**
 * A workspace's clearinghouse settings. `last_control_number` is the ISA13/GS06 of the latest
 * batch: a batch takes the next one with a compare-and-set on it, so numbers are unique and
 * increasing per workspace. The row's id is the workspace's id.
 */
export const ClearinghouseSettingsRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  settings: ClearinghouseSettings,
  last_control_number: Schema.Number,
  updated_at: Schema.String
})
export type ClearinghouseSettingsRecord = typeof ClearinghouseSettingsRecord.Type

/** Which claims one transaction set (ST02) of a batch holds: a 999 accepts or rejects whole sets. */
export const BatchTransactionSet = Schema.Struct({ control_number: Schema.String, claim_ids: Schema.Array(Schema.String) })

/** One 837P interchange as sent, byte for byte. */
export const X12BatchRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  created_at: Schema.String,
  interchange_control_number: Schema.Number,
  group_control_number: Schema.Number,
  claim_ids: Schema.Array(Schema.String),
  transaction_sets: Schema.Array(BatchTransactionSet),
  file: Schema.Uint8ArrayFromSelf
})
export type X12BatchRecord = typeof X12BatchRecord.Type

/** A batch as the API shows it (its file is read on its own). */
export const X12Batch = Schema.Struct({
  id: Schema.String,
  interchange_control_number: Schema.Number,
  group_control_number: Schema.Number,
  claim_ids: Schema.Array(Schema.String),
  created_at: Schema.String
}).annotations({ identifier: "X12Batch" })
export type X12Batch = typeof X12Batch.Type

export const toX12Batch = (b: X12BatchRecord): X12Batch => ({
  id: b.id,
  interchange_control_number: b.interchange_control_number,
  group_control_number: b.group_control_number,
  claim_ids: b.claim_ids,
  created_at: b.created_at
})

export const InboundKinds = ["999", "277CA", "835"] as const
export const InboundKind = Schema.Literal(...InboundKinds)
export type InboundKind = typeof InboundKind.Type

/** A stored file is one of the kinds imported, or `invalid`: kept as received, with why it was refused. */
export const StoredFileKind = Schema.Literal(...InboundKinds, "invalid")
export type StoredFileKind = typeof StoredFileKind.Type

export const ClaimOutcomes = ["status_changed", "unchanged", "unmatched", "conflict"] as const

/** What one inbound file did to one claim. */
export const InboundClaimOutcome = Schema.Struct({
  /** The claim's control number (null for a 999 set that matches no batch). */
  patient_control_number: Schema.NullOr(Schema.String),
  claim_id: Schema.NullOr(Schema.String),
  outcome: Schema.Literal(...ClaimOutcomes),
  previous_status: Schema.NullOr(Schema.String),
  /** The status after the file (the current one for a conflict). */
  status: Schema.NullOr(Schema.String),
  detail: Schema.String
}).annotations({ identifier: "InboundClaimOutcome" })
export type InboundClaimOutcome = typeof InboundClaimOutcome.Type

/**
 * A received file: the bytes exactly as received and what they did, written in the same
 * transaction as their effects. One per (workspace, sender, ISA13): the same interchange again
 * (or the same bytes, which carry the same ISA) is a duplicate. A malformed file is kept too, as
 * `invalid` with its `error`, and applies nothing.
 */
export const X12FileRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  received_at: Schema.String,
  key_id: Schema.NullOr(Schema.String),
  content_type: Schema.String,
  kind: StoredFileKind,
  /** ISA06, trimmed (null for an invalid file). */
  sender_id: Schema.NullOr(Schema.String),
  /** ISA13 (null for an invalid file). */
  interchange_control_number: Schema.NullOr(Schema.String),
  /** What makes an interchange a duplicate: `ISA06|ISA13`; an invalid file's own id, so it never is one. */
  interchange_key: Schema.String,
  /** SHA-256 of the bytes, hex. */
  sha256: Schema.String,
  body: Schema.Uint8ArrayFromSelf,
  claims: Schema.Array(InboundClaimOutcome),
  /** Why an invalid file was refused: the segment id and its 1-based position. */
  error: Schema.NullOr(Schema.String)
})
export type X12FileRecord = typeof X12FileRecord.Type

/** An inbound file as the API lists it. */
export const X12File = Schema.Struct({
  id: Schema.String,
  kind: StoredFileKind,
  received_at: Schema.String,
  sender_id: Schema.NullOr(Schema.String),
  interchange_control_number: Schema.NullOr(Schema.String),
  sha256: Schema.String,
  size: Schema.Number,
  claims: Schema.Array(InboundClaimOutcome),
  error: Schema.NullOr(Schema.String)
}).annotations({ identifier: "X12File" })
export type X12File = typeof X12File.Type

export const toX12File = (f: X12FileRecord): X12File => ({
  id: f.id,
  kind: f.kind,
  received_at: f.received_at,
  sender_id: f.sender_id,
  interchange_control_number: f.interchange_control_number,
  sha256: f.sha256,
  size: f.body.byteLength,
  claims: f.claims,
  error: f.error
})

/** The answer of an import: the file's id (the earlier one's for a duplicate) and what it did. */
export const InboundResult = Schema.Struct({
  id: Schema.String,
  kind: InboundKind,
  duplicate: Schema.Boolean,
  claims: Schema.Array(InboundClaimOutcome)
}).annotations({ identifier: "X12InboundResult" })
export type InboundResult = typeof InboundResult.Type
