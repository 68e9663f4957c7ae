import { Schema } from "effect"
import { ClearinghouseSettings } from "./clearinghouse.js"
import { WorkspaceId } from "./ids.js"
import { X12ResponseDetail } from "./x12-response.js"

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

export const InboundKinds = ["999", "277CA", "835", "277"] as const
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
  detail: Schema.String,
  /** The codes behind `detail` (999 IK3/IK4, 277CA STC); null for an 835 or an unmatched entry. */
  response: Schema.NullOr(X12ResponseDetail)
}).annotations({ identifier: "InboundClaimOutcome" })
export type InboundClaimOutcome = typeof InboundClaimOutcome.Type

/** How many claim outcomes a file had, in all and of each kind. */
export const OutcomeSummary = Schema.Struct({
  total: Schema.Number,
  status_changed: Schema.Number,
  unchanged: Schema.Number,
  unmatched: Schema.Number,
  conflict: Schema.Number
}).annotations({ identifier: "X12OutcomeSummary", description: "How many claim outcomes the file had, in all and of each kind" })
export type OutcomeSummary = typeof OutcomeSummary.Type

export const summarize = (outcomes: ReadonlyArray<Pick<InboundClaimOutcome, "outcome">>): OutcomeSummary => {
  const counts = { status_changed: 0, unchanged: 0, unmatched: 0, conflict: 0 }
  for (const o of outcomes) counts[o.outcome]++
  return { total: outcomes.length, ...counts }
}

/**
 * A file's record keeps its first outcomes (the list of files shows them); all of them are
 * stored one by one (`X12FileOutcomeRecord`) and paged on their own.
 */
export const FILE_OUTCOMES_SHOWN = 20
/** An import's answer lists its first outcomes (all of a file naming up to this many claims). */
export const IMPORT_OUTCOMES_SHOWN = 1000

const x12FileFields = {
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
  /** `ISA06|ISA13` of the first envelope (`invalid|<id>` for an invalid file); not unique: control numbers get reused. */
  interchange_key: Schema.String,
  /**
   * What makes a file a duplicate: the SHA-256 of its segments (`content:<hex>`), whatever its line
   * breaks; an invalid file's own id, so it never is one. Unique in a workspace.
   */
  content_key: Schema.String,
  /** The earlier file with the same sender and ISA13 but other content, when there is one. */
  reused_control_number_of: Schema.NullOr(Schema.String),
  /** SHA-256 of the bytes, hex. */
  sha256: Schema.String,
  /** The bytes' length (the bytes are `X12FileBodyRecord`). */
  size: Schema.Number,
  /** The first `FILE_OUTCOMES_SHOWN` outcomes, in file order. */
  claims: Schema.Array(InboundClaimOutcome),
  summary: OutcomeSummary,
  /** Why an invalid file was refused: the segment id and its 1-based position. */
  error: Schema.NullOr(Schema.String),
  /**
   * A file naming many claims is applied in several writes (x12-import.ts): `importing` until the
   * last, with its claims and summary so far; `imported` once it has done everything.
   */
  import_state: Schema.Literal("importing", "imported"),
  /** While importing: how many of the file's entries' outcomes are applied (where the next write resumes). */
  import_resume_at: Schema.NullOr(Schema.Number)
}

/**
 * A received file and what it did, written in the same transaction as its effects. One per
 * (workspace, sender, ISA13): the same interchange again (or the same bytes, which carry the same
 * ISA) is a duplicate. A malformed file is kept too, as `invalid` with its `error`, and applies
 * nothing. Its bytes, exactly as received, are a record of their own (`X12FileBodyRecord`), so
 * that no read of files reads them.
 */
export const X12FileRecord = Schema.Struct(x12FileFields)
export type X12FileRecord = typeof X12FileRecord.Type

/** A received file's bytes, exactly as received (its id is the file's). */
export const X12FileBodyRecord = Schema.Struct({ id: Schema.String, workspace_id: WorkspaceId, body: Schema.Uint8ArrayFromSelf })
export type X12FileBodyRecord = typeof X12FileBodyRecord.Type

/** One outcome of a file, stored on its own: `position` is its place among the file's outcomes (0 first). */
export const X12FileOutcomeRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  file_id: Schema.String,
  position: Schema.Number,
  ...InboundClaimOutcome.fields
})
export type X12FileOutcomeRecord = typeof X12FileOutcomeRecord.Type

export const toOutcome = (r: X12FileOutcomeRecord): InboundClaimOutcome => ({
  patient_control_number: r.patient_control_number,
  claim_id: r.claim_id,
  outcome: r.outcome,
  previous_status: r.previous_status,
  status: r.status,
  detail: r.detail,
  response: r.response
})

/** An inbound file as the API lists it. */
export const X12File = Schema.Struct({
  id: Schema.String,
  kind: StoredFileKind,
  received_at: Schema.String,
  sender_id: Schema.NullOr(Schema.String),
  interchange_control_number: Schema.NullOr(Schema.String),
  sha256: Schema.String,
  size: Schema.Number,
  claims: Schema.Array(InboundClaimOutcome).annotations({
    description: `The file's first ${FILE_OUTCOMES_SHOWN} claim outcomes (all of them when summary.total is at most ${FILE_OUTCOMES_SHOWN}); every one is at /api/x12/files/{id}/outcomes`
  }),
  summary: OutcomeSummary,
  error: Schema.NullOr(Schema.String),
  reused_control_number: Schema.Boolean.annotations({
    description: "Whether an earlier file of this workspace came with the same sender and ISA13 but other content (a control number the sender reused)"
  }),
  reused_control_number_of: Schema.NullOr(Schema.String).annotations({ description: "That earlier file's id" })
}).annotations({ identifier: "X12File" })
export type X12File = typeof X12File.Type

export const toX12File = (f: X12FileRecord): X12File => ({
  id: f.id,
  kind: f.kind,
  received_at: f.received_at,
  sender_id: f.sender_id,
  interchange_control_number: f.interchange_control_number,
  sha256: f.sha256,
  size: f.size,
  claims: f.claims,
  summary: f.summary,
  error: f.error,
  reused_control_number: f.reused_control_number_of !== null,
  reused_control_number_of: f.reused_control_number_of
})

/** The answer of an import: the file's id (the earlier one's for a duplicate) and what it did. */
export const InboundResult = Schema.Struct({
  id: Schema.String,
  kind: InboundKind,
  duplicate: Schema.Boolean,
  /** The file was imported, though an earlier one had its sender and ISA13 (see `X12File`). */
  reused_control_number: Schema.Boolean,
  claims: Schema.Array(InboundClaimOutcome).annotations({
    description: `What the file did to each claim it names, in file order: the first ${IMPORT_OUTCOMES_SHOWN} (all of them when summary.total is at most ${IMPORT_OUTCOMES_SHOWN}); every one is at /api/x12/files/{id}/outcomes`
  }),
  summary: OutcomeSummary
}).annotations({ identifier: "X12InboundResult" })
export type InboundResult = typeof InboundResult.Type
