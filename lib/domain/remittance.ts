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
  charge_amount_cents: Schema.Number,
  paid_amount_cents: Schema.Number,
  adjustments: Schema.Array(RemittanceAdjustment)
}).annotations({ identifier: "RemittanceServiceLine" })

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
  service_lines: Schema.Array(RemittanceServiceLine)
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
  service_lines: r.service_lines
})

/**
 * Reads of a claim (an encounter, a page of encounters) carry its most recent remittances, at most
 * this many, and say whether it has more; all of them are paged on their own.
 */
export const REMITTANCES_SHOWN = 20

/** Oldest first: the order the files came in. */
export const byReceipt = (a: RemittanceRecord, b: RemittanceRecord): number =>
  a.received_at < b.received_at ? -1 : a.received_at > b.received_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
