import { Schema } from "effect"

/**
 * Claim statuses: the spec's eleven plus the vendor's others. Stored status stays an open string
 * (spec: "the vocabulary may hold further statuses"); requests name one of these.
 */
export const ClaimStatuses = [
  "draft",
  "biller_received",
  "coded",
  "submitted_to_payer",
  "missing_information",
  "submission_bounced",
  "not_billable",
  "waiting_for_provider",
  "rejected",
  "denied",
  "paid",
  "paid_incorrectly",
  "era_received",
  "era_requires_review",
  "held_by_customer",
  "finalized_paid",
  "finalized_denied"
] as const
export const ClaimStatus = Schema.Literal(...ClaimStatuses).annotations({ identifier: "ClaimStatus" })
export type ClaimStatus = typeof ClaimStatus.Type

/** The five statuses the normalized list filter accepts (spec: GET /encounters). */
export const FilterableClaimStatuses = [
  "draft",
  "submitted_to_payer",
  "missing_information",
  "submission_bounced",
  "not_billable"
] as const
export const FilterableClaimStatus = Schema.Literal(...FilterableClaimStatuses).annotations({
  identifier: "FilterableClaimStatus"
})
export type FilterableClaimStatus = typeof FilterableClaimStatus.Type

export const isClaimStatus = (s: string): s is ClaimStatus => (ClaimStatuses as ReadonlyArray<string>).includes(s)

/**
 * Which status may follow which. Spec: "Transitions: not shown"; this table is the product's rule.
 * A status missing from the keys, or mapped to `[]`, is terminal.
 */
export const ClaimTransitions: { readonly [S in ClaimStatus]: ReadonlyArray<ClaimStatus> } = {
  draft: ["biller_received", "coded", "submitted_to_payer", "missing_information", "not_billable", "held_by_customer"],
  biller_received: ["coded", "submitted_to_payer", "missing_information", "not_billable", "waiting_for_provider", "held_by_customer"],
  coded: ["submitted_to_payer", "missing_information", "not_billable", "waiting_for_provider", "held_by_customer"],
  waiting_for_provider: ["draft", "biller_received", "coded", "missing_information"],
  held_by_customer: ["draft", "biller_received", "coded", "submitted_to_payer"],
  submitted_to_payer: ["submission_bounced", "rejected", "denied", "paid", "paid_incorrectly", "era_received"],
  submission_bounced: ["draft", "submitted_to_payer", "missing_information"],
  rejected: ["draft", "submitted_to_payer", "missing_information"],
  missing_information: ["draft", "biller_received", "submitted_to_payer"],
  not_billable: ["draft"],
  denied: ["submitted_to_payer", "era_received", "era_requires_review", "finalized_denied"],
  paid: ["era_received", "era_requires_review", "finalized_paid"],
  paid_incorrectly: ["submitted_to_payer", "era_received", "era_requires_review", "finalized_paid"],
  era_received: ["paid", "denied", "era_requires_review", "finalized_paid", "finalized_denied"],
  era_requires_review: ["paid", "paid_incorrectly", "denied", "finalized_paid", "finalized_denied"],
  finalized_paid: [],
  finalized_denied: []
}

/** The statuses a claim in `from` may move to (empty for terminal or unknown statuses). */
export const allowedTransitions = (from: string): ReadonlyArray<ClaimStatus> =>
  isClaimStatus(from) ? ClaimTransitions[from] : []

export const canTransition = (from: string, to: ClaimStatus): boolean => allowedTransitions(from).includes(to)

/** The longest note a status move keeps (in its StatusUpdated event), in characters. */
export const NOTE_MAX_LENGTH = 2000
