import { Schema } from "effect"
import { SealedSecret } from "./webhook.js"
import { ClaimId, WorkspaceId } from "./ids.js"

/**
 * Claim status inquiries (X12 276 out, 277 in, 005010X212): one stored check per inquiry, with
 * what the payer answered and what that did to the claim; and a workspace's follow-up settings.
 */

export const StatusCheckTransports = ["file", "core"] as const
export const StatusCheckTransport = Schema.Literal(...StatusCheckTransports)
export type StatusCheckTransport = typeof StatusCheckTransport.Type

export const StatusCheckStates = ["queued", "sent", "answered", "failed"] as const
export const StatusCheckState = Schema.Literal(...StatusCheckStates)
export type StatusCheckState = typeof StatusCheckState.Type

export const CheckOutcomes = ["status_changed", "unchanged", "conflict", "unanswered"] as const
export const CheckOutcome = Schema.Literal(...CheckOutcomes)
export type CheckOutcome = typeof CheckOutcome.Type

/** One STC of a 277 answer, as stored and shown. */
export const CheckStatus = Schema.Struct({
  /** STC01-1, e.g. `F1`, `P1`, `A7`, `R3`. */
  category_code: Schema.String,
  /** STC01-2. */
  status_code: Schema.String,
  /** STC01-3. */
  entity_code: Schema.NullOr(Schema.String),
  /** What the category code means (`categoryMeaning`). */
  meaning: Schema.String,
  /** STC02, YYYY-MM-DD. */
  effective_date: Schema.NullOr(Schema.String),
  /** STC04. */
  charge_amount_cents: Schema.NullOr(Schema.Number),
  /** STC05. */
  paid_amount_cents: Schema.NullOr(Schema.Number),
  /** REF*1K of the claim loop. */
  payer_claim_control_number: Schema.NullOr(Schema.String),
  /** STC12. */
  text: Schema.NullOr(Schema.String)
}).annotations({ identifier: "StatusCheckStatus" })
export type CheckStatus = typeof CheckStatus.Type

/** What an answer did to the claim. */
export const CheckEffect = Schema.Struct({
  outcome: CheckOutcome,
  previous_status: Schema.String,
  status: Schema.String
}).annotations({ identifier: "StatusCheckEffect" })
export type CheckEffect = typeof CheckEffect.Type

/** Why a check was made: asked for (API, CLI, console) or by the follow-up schedule. */
export const CheckOrigin = Schema.Literal("request", "schedule")

/**
 * A stored check. `round_key` is unique per workspace: a requested check's own id, a scheduled
 * one's `claim|status_changed_at|n` (the n-th follow-up of the claim in that status), so two
 * instances deciding the same follow-up insert it once. The lease and attempt columns are the
 * `core` sender's (as webhook deliveries hold theirs).
 */
export const StatusCheckRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  claim_id: ClaimId,
  transport: StatusCheckTransport,
  status: StatusCheckState,
  /** TRN02 of the 276, what the 277 answers with: the check's own id. */
  trace_number: Schema.String,
  origin: CheckOrigin,
  round_key: Schema.String,
  created_at: Schema.String,
  sent_at: Schema.NullOr(Schema.String),
  answered_at: Schema.NullOr(Schema.String),
  statuses: Schema.Array(CheckStatus),
  effect: Schema.NullOr(CheckEffect),
  error: Schema.NullOr(Schema.String),
  attempts: Schema.Number,
  next_attempt_at: Schema.NullOr(Schema.String),
  lease_owner: Schema.NullOr(Schema.String),
  lease_expires_at: Schema.NullOr(Schema.String)
})
export type StatusCheckRecord = typeof StatusCheckRecord.Type

/** A check as the API shows it. */
export const StatusCheck = Schema.Struct({
  id: Schema.String,
  claim_id: Schema.String,
  transport: StatusCheckTransport,
  status: StatusCheckState,
  trace_number: Schema.String,
  created_at: Schema.String,
  sent_at: Schema.NullOr(Schema.String),
  answered_at: Schema.NullOr(Schema.String),
  statuses: Schema.Array(CheckStatus),
  effect: Schema.NullOr(CheckEffect),
  error: Schema.NullOr(Schema.String)
}).annotations({ identifier: "StatusCheck", description: "A claim status inquiry (276) and the payer's answer (277)" })
export type StatusCheck = typeof StatusCheck.Type

export const toStatusCheck = (r: StatusCheckRecord): StatusCheck => ({
  id: r.id,
  claim_id: r.claim_id,
  transport: r.transport,
  status: r.status,
  trace_number: r.trace_number,
  created_at: r.created_at,
  sent_at: r.sent_at,
  answered_at: r.answered_at,
  statuses: r.statuses,
  effect: r.effect,
  error: r.error
})

/** The claim status category codes (STC01-1, code source 507) this service tells apart. */
const CATEGORY_MEANINGS: Readonly<Record<string, string>> = {
  A0: "Acknowledgement: forwarded to another entity",
  A1: "Acknowledgement: received",
  A2: "Acknowledgement: accepted into adjudication",
  A3: "Acknowledgement: returned as unprocessable",
  A4: "Acknowledgement: not found",
  A5: "Acknowledgement: split claim",
  A6: "Acknowledgement: rejected for missing information",
  A7: "Acknowledgement: rejected for invalid information",
  A8: "Acknowledgement: rejected for relational field in error",
  P0: "Pending: adjudication or details",
  P1: "Pending: in process",
  P2: "Pending: payer review",
  P3: "Pending: provider requested information",
  P4: "Pending: patient requested information",
  P5: "Pending: payer administrative or system hold",
  F0: "Finalized",
  F1: "Finalized: payment",
  F2: "Finalized: denial",
  F3: "Finalized: revised",
  F3F: "Finalized: forwarded",
  F3N: "Finalized: not forwarded",
  F4: "Finalized: adjudication complete, no payment forthcoming",
  D0: "Data search unsuccessful",
  E0: "Response not possible: error on submitted request data",
  E1: "Response not possible: system status",
  E2: "Information holder is not responding",
  E3: "Correction required: relational fields in error",
  E4: "Trading partner agreement specific requirement not met"
}

/** What a category code means; `R*` codes ask for more information. */
export const categoryMeaning = (category: string): string =>
  CATEGORY_MEANINGS[category] ?? (category.startsWith("R") ? "Requests additional information" : "Other status category")

/**
 * What a category does to the claim (the table): a move, an acknowledgment that sets
 * `processing_started_at`, something a person should look at, no answer about the claim at all,
 * or nothing.
 */
export type CategoryEffect =
  | { readonly kind: "move"; readonly to: "paid" | "denied" | "rejected" }
  | { readonly kind: "pending" }
  | { readonly kind: "attention" }
  | { readonly kind: "unanswered" }
  | { readonly kind: "none" }

const REJECTING = ["A3", "A4", "A6", "A7", "A8"]
const PENDING = ["A0", "A1", "A2", "P0", "P1", "P2", "P3", "P4", "P5"]
const ATTENTION = ["F0", "F3", "F3F", "F3N", "F4"]
const UNANSWERED = ["D0", "E0", "E1", "E2", "E3", "E4"]

export const categoryEffect = (category: string): CategoryEffect => {
  if (category === "F1") return { kind: "move", to: "paid" }
  if (category === "F2") return { kind: "move", to: "denied" }
  if (REJECTING.includes(category)) return { kind: "move", to: "rejected" }
  if (PENDING.includes(category)) return { kind: "pending" }
  if (ATTENTION.includes(category) || /^R\d+$/.test(category)) return { kind: "attention" }
  if (UNANSWERED.includes(category)) return { kind: "unanswered" }
  return { kind: "none" }
}

/** True when an answer holds a status a person should act on (finalized otherwise, `R*` information requested). */
export const needsAttention = (statuses: ReadonlyArray<Pick<CheckStatus, "category_code">>): boolean =>
  statuses.some((s) => categoryEffect(s.category_code).kind === "attention")

/** True when an answer said nothing about the claim (not found, errors): the check counts as unanswered. */
export const isUnanswered = (statuses: ReadonlyArray<Pick<CheckStatus, "category_code">>): boolean =>
  statuses.every((s) => categoryEffect(s.category_code).kind === "unanswered")

/** Statuses whose claims wait on the payer: the schedule follows them up. */
export const AWAITING_PAYER: ReadonlyArray<string> = ["submitted_to_payer"]

/** Statuses from which a claim was never sent: no check is made for them. */
export const NEVER_SUBMITTED: ReadonlyArray<string> = ["draft", "not_billable"]

// ---- settings -------------------------------------------------------------------------------

/** The `core` transport's connection, as stored: the password sealed (see `lib/webhooks/secret-box.ts`). */
export const CoreConnectionRecord = Schema.Struct({
  url: Schema.String,
  sender_id: Schema.String,
  receiver_id: Schema.String,
  username: Schema.String,
  password: SealedSecret
})

/** A workspace's follow-up settings as stored. */
export const StoredStatusCheckSettings = Schema.Struct({
  enabled: Schema.Boolean,
  first_after_days: Schema.Number,
  every_days: Schema.Number,
  max_checks: Schema.Number,
  window_days: Schema.Number,
  transport: StatusCheckTransport,
  core: Schema.NullOr(CoreConnectionRecord)
})
export type StoredStatusCheckSettings = typeof StoredStatusCheckSettings.Type

/** The settings' row (one JSON column, as the clearinghouse settings); its id is the workspace's id. */
export const StatusCheckSettingsRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  settings: StoredStatusCheckSettings,
  updated_at: Schema.String
})
export type StatusCheckSettingsRecord = typeof StatusCheckSettingsRecord.Type

export const STATUS_CHECK_DEFAULTS = { first_after_days: 7, every_days: 7, max_checks: 6, window_days: 7 } as const
/** The service-date window is capped at this many days either side. */
export const MAX_WINDOW_DAYS = 30
