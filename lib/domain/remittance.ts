import { Schema } from "effect"
import { ClaimId, WorkspaceId } from "./ids.js"

/**
 * What an 835 said about one claim (one CLP), kept per claim and shown on the normalized claim as
 * `latest_claim.remittances`. Amounts are integer cents; an adjustment is one CAS triple.
 */
export const RemittanceAdjustment = Schema.Struct({
  /** CAS01: CO, PR, OA, PI, CR. */
  group: Schema.String,
  /** The claim adjustment reason code (CARC). */
  reason: Schema.String,
  amount_cents: Schema.Number
}).annotations({ identifier: "RemittanceAdjustment" })

export const RemittanceServiceLine = Schema.Struct({
  procedure_code: Schema.String,
  /** SVC01-3..: the modifiers the payer kept (often fewer than were billed). */
  modifiers: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  /** REF*6R: the line item control number we sent (the payload line's `external_id`). */
  line_control_number: Schema.optionalWith(Schema.String, { exact: true }),
  /** DTM*472: the line's date of service, YYYY-MM-DD. */
  service_date: Schema.optionalWith(Schema.String, { exact: true }),
  /** The billed line (0-based, in the payload's `service_lines`) this one was matched to, if any. */
  matched_line: Schema.optionalWith(Schema.Number, { exact: true }),
  charge_amount_cents: Schema.Number,
  paid_amount_cents: Schema.Number,
  adjustments: Schema.Array(RemittanceAdjustment)
}).annotations({ identifier: "RemittanceServiceLine" })

export const RemittanceDiscrepancyCodes = ["charge_differs", "line_procedure_differs", "line_unmatched"] as const

/**
 * What in a remittance does not agree with the claim as billed, flagged rather than silently taken:
 * `charge_differs` (CLP03 is not the billed total), `line_procedure_differs` (a line matched by its
 * control number, or by code and date, names another procedure or other modifiers),
 * `line_unmatched` (a line that matches no billed line).
 */
export const RemittanceDiscrepancy = Schema.Struct({
  code: Schema.Literal(...RemittanceDiscrepancyCodes),
  /** The remittance's line (0-based in `service_lines`), for a line's discrepancy. */
  line: Schema.NullOr(Schema.Number),
  detail: Schema.String
}).annotations({ identifier: "RemittanceDiscrepancy" })
export type RemittanceDiscrepancy = typeof RemittanceDiscrepancy.Type

const remittanceFields = {
  id: Schema.String,
  /** The inbound 835 file it came in. */
  file_id: Schema.String,
  /** TRN02: the check or EFT trace number. */
  check_number: Schema.String,
  /** BPR16, YYYY-MM-DD. */
  payment_date: Schema.String,
  /** CLP07. */
  payer_claim_control_number: Schema.NullOr(Schema.String),
  /** CLP03, CLP04, CLP05. */
  charge_amount_cents: Schema.Number,
  paid_amount_cents: Schema.Number,
  patient_responsibility_cents: Schema.NullOr(Schema.Number),
  adjustments: Schema.Array(RemittanceAdjustment),
  service_lines: Schema.Array(RemittanceServiceLine),
  discrepancies: Schema.Array(RemittanceDiscrepancy)
}

/** A remittance as the normalized claim shows it. */
export const Remittance = Schema.Struct(remittanceFields).annotations({ identifier: "Remittance" })
export type Remittance = typeof Remittance.Type

/** A stored remittance: the view plus its claim, workspace and when its file came in. */
export const RemittanceRecord = Schema.Struct({
  ...remittanceFields,
  workspace_id: WorkspaceId,
  claim_id: ClaimId,
  received_at: Schema.String
})
export type RemittanceRecord = typeof RemittanceRecord.Type

export const toRemittance = (r: RemittanceRecord): Remittance => ({
  id: r.id,
  file_id: r.file_id,
  check_number: r.check_number,
  payment_date: r.payment_date,
  payer_claim_control_number: r.payer_claim_control_number,
  charge_amount_cents: r.charge_amount_cents,
  paid_amount_cents: r.paid_amount_cents,
  patient_responsibility_cents: r.patient_responsibility_cents,
  adjustments: r.adjustments,
  service_lines: r.service_lines,
  discrepancies: r.discrepancies
})

/**
 * Reads of a claim (an encounter, a page of encounters) carry its most recent remittances, at most
 * this many, and say whether it has more; all of them are paged on their own.
 */
export const REMITTANCES_SHOWN = 20

/** Oldest first: the order the files came in. */
export const byReceipt = (a: RemittanceRecord, b: RemittanceRecord): number =>
  a.received_at < b.received_at ? -1 : a.received_at > b.received_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
