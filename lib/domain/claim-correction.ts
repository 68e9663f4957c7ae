import { Schema } from "effect"
import type { ClaimStatus } from "./claim-status.js"
import type { ClaimFrequencyCode, CorrectionAction } from "./encounter.js"

/**
 * Which corrections a claim's status takes (issue "a claim's second life"):
 * - `resubmit` (a new original, frequency 1) for a claim the payer never took into adjudication;
 * - `replace` (7), `void` (8) and `secondary` (a claim to the secondary payer) for one it adjudicated.
 * Any other status takes none.
 */
const NEVER_ADJUDICATED: ReadonlyArray<ClaimStatus> = ["rejected", "submission_bounced"]
const ADJUDICATED: ReadonlyArray<ClaimStatus> = [
  "paid",
  "paid_incorrectly",
  "denied",
  "era_received",
  "era_requires_review",
  "finalized_paid",
  "finalized_denied"
]

export const CorrectionsByStatus: ReadonlyArray<{ readonly statuses: ReadonlyArray<ClaimStatus>; readonly actions: ReadonlyArray<CorrectionAction> }> = [
  { statuses: NEVER_ADJUDICATED, actions: ["resubmit"] },
  { statuses: ADJUDICATED, actions: ["replace", "void", "secondary"] }
]

/** The corrections a claim in `status` takes (none for any other status). */
export const correctionsAllowed = (status: string): ReadonlyArray<CorrectionAction> =>
  CorrectionsByStatus.find((row) => (row.statuses as ReadonlyArray<string>).includes(status))?.actions ?? []

/** CLM05-3 of the claim a correction makes. */
export const frequencyOf = (action: CorrectionAction): ClaimFrequencyCode => (action === "replace" ? "7" : action === "void" ? "8" : "1")

/** How many claims one encounter may have: a correction past it is refused (its claims are read whole). */
export const MAX_CLAIMS_PER_ENCOUNTER = 100

/**
 * A correction the claim cannot take: not the latest claim, a status its action does not take, a
 * replacement or void without the payer's claim number, a secondary claim without a secondary
 * subscriber or a primary remittance. `allowed` is what the claim's status takes.
 */
export class InvalidCorrection extends Schema.TaggedError<InvalidCorrection>()("InvalidCorrection", {
  claim_id: Schema.String,
  status: Schema.String,
  action: Schema.String,
  allowed: Schema.Array(Schema.String),
  reason: Schema.String
}) {
  override get message() {
    const allowed = this.allowed.length === 0 ? "none" : this.allowed.join(", ")
    return `The claim (status ${this.status}) cannot take the correction ${this.action}: ${this.reason}; actions its status allows: ${allowed}`
  }
}
