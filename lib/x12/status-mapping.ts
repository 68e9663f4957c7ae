import type { ClaimStatus } from "../domain/claim-status.js"
import type { Ack999, SetAck999 } from "./read/ack-999.js"
import type { Claim277, Status277, StatusCode277 } from "./read/ack-277ca.js"
import type { Claim835 } from "./read/remit-835.js"
import { formatCents } from "./values.js"

/**
 * What a clearinghouse response means for one claim, as a pure decision: the import only applies
 * it (moving the claim along `ClaimTransitions`, or recording the acknowledgment).
 */
export type StatusAction =
  /** Acknowledged; `processing_started` sets the claim's processing_started_at (277CA A2). */
  | { readonly kind: "ack"; readonly processing_started: boolean; readonly note: string }
  | { readonly kind: "move"; readonly to: ClaimStatus; readonly note: string }
  /** Informational only (pending, forwarded, not our claim…): recorded, status unchanged. */
  | { readonly kind: "none"; readonly note: string }

// ---- 277CA --------------------------------------------------------------------------------

/** Claim status category codes (STC01-1) that acknowledge a claim, and whether it entered adjudication. */
export const ACK_CATEGORIES_277: Readonly<Record<string, boolean>> = {
  A0: false, // forwarded to another entity
  A1: false, // received
  A2: true, // accepted into adjudication
  A5: true // split upon acceptance into adjudication
}

/** Categories that reject the claim: it must be corrected and sent again. */
export const REJECT_CATEGORIES_277: ReadonlyArray<string> = ["A3", "A4", "A6", "A7", "A8"]

const codeText = (c: StatusCode277) => [c.category, c.status, c.entity].filter((x) => x !== undefined && x !== "").join(":")
const statusText = (s: Status277) => [`277CA ${s.codes.map(codeText).join(", ")}`, s.text].filter((x) => x !== undefined).join(" ")

/** One category code on its own. */
export const statusFrom277Category = (category: string, note: string): StatusAction => {
  if (REJECT_CATEGORIES_277.includes(category)) return { kind: "move", to: "rejected", note }
  const started = ACK_CATEGORIES_277[category]
  if (started !== undefined) return { kind: "ack", processing_started: started, note }
  return { kind: "none", note }
}

/**
 * A claim's whole 2200D loop: any rejecting status wins; else the strongest acknowledgment
 * (A2 over A1); else nothing to do.
 */
export const statusFrom277Claim = (claim: Pick<Claim277, "statuses">): StatusAction => {
  const actions = claim.statuses.flatMap((s) => s.codes.map((c) => statusFrom277Category(c.category, statusText(s))))
  return (
    actions.find((a) => a.kind === "move") ??
    actions.find((a) => a.kind === "ack" && a.processing_started) ??
    actions.find((a) => a.kind === "ack") ?? { kind: "none", note: claim.statuses.map(statusText).join("; ") || "277CA without status" }
  )
}

// ---- 835 ----------------------------------------------------------------------------------

/** CLP02 codes of a processed claim: paid when money came, denied when none did. */
export const PROCESSED_CLP02: ReadonlyArray<string> = ["1", "2", "3", "19", "20", "21"]
export const DENIED_CLP02 = "4"
export const REVERSAL_CLP02 = "22"

export const statusFrom835Claim = (
  claim: Pick<Claim835, "status_code" | "paid_cents" | "charge_cents" | "patient_responsibility_cents">
): StatusAction => {
  const note = `835 CLP02 ${claim.status_code}: paid ${formatCents(claim.paid_cents)} of ${formatCents(claim.charge_cents)}` +
    (claim.patient_responsibility_cents === undefined ? "" : `, patient responsibility ${formatCents(claim.patient_responsibility_cents)}`)
  if (claim.status_code === REVERSAL_CLP02) return { kind: "move", to: "era_requires_review", note }
  if (claim.status_code === DENIED_CLP02) return { kind: "move", to: "denied", note }
  if (PROCESSED_CLP02.includes(claim.status_code)) {
    if (claim.paid_cents > 0) return { kind: "move", to: "paid", note }
    // A negative payment outside a reversal is a correction someone has to look at.
    if (claim.paid_cents < 0) return { kind: "move", to: "era_requires_review", note }
    return { kind: "move", to: "denied", note }
  }
  return { kind: "none", note }
}

// ---- 999 ----------------------------------------------------------------------------------

/** A transaction set the 999 rejected bounces every claim it held; an accepted one is acknowledged. */
export const statusFrom999Set = (set: Pick<SetAck999, "accepted" | "code" | "control_number" | "error_codes">): StatusAction => {
  const codes = set.error_codes.length === 0 ? "" : ` (${set.error_codes.join(", ")})`
  return set.accepted
    ? { kind: "ack", processing_started: false, note: `999 ${set.code}: transaction set ${set.control_number} accepted` }
    : { kind: "move", to: "submission_bounced", note: `999 ${set.code}: transaction set ${set.control_number} rejected${codes}` }
}

export interface Action999 {
  readonly group_control_number: string
  /** ST02 of the set; `undefined` when the 999 judged the whole group without AK2 detail: every set of it. */
  readonly transaction_set_control_number: string | undefined
  readonly action: StatusAction
}

/** Every decision a 999 carries, per transaction set (or per group when it gives no set detail). */
export const actionsFrom999 = (ack: Ack999): ReadonlyArray<Action999> =>
  ack.groups.flatMap((g): ReadonlyArray<Action999> => {
    if (g.transaction_sets.length > 0) {
      return g.transaction_sets.map((set) => ({
        group_control_number: g.group_control_number,
        transaction_set_control_number: set.control_number,
        action: statusFrom999Set(set)
      }))
    }
    const note = `999 ${g.code}: functional group ${g.group_control_number}`
    // Partially accepted without saying which sets: nothing can be concluded per claim.
    const action: StatusAction =
      g.status === "rejected"
        ? { kind: "move", to: "submission_bounced", note: `${note} rejected` }
        : g.status === "accepted"
          ? { kind: "ack", processing_started: false, note: `${note} accepted` }
          : { kind: "none", note: `${note} partially accepted, without transaction set detail` }
    return [{ group_control_number: g.group_control_number, transaction_set_control_number: undefined, action }]
  })
