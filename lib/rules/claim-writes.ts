import { type ClaimRecord, latestClaimCopy } from "../domain/encounter.js"
import type { EventRecord } from "../domain/event.js"
import type { ClaimId, EncounterId, WorkspaceId } from "../domain/ids.js"
import { appendEvent, type Step, update, type Write } from "../ports/write.js"

/**
 * Every write of a claim's columns, in one place: the claim's row, and the copy of those columns
 * on its encounter's row while the claim is the encounter's latest (`latestClaimCopy`). Reading an
 * encounter is one row because of that copy; no rule writes a claim any other way.
 */

/** A claim as these writes need it: its id, and its encounter's id and latest claim. */
export interface ClaimRef {
  readonly encounterId: EncounterId
  readonly latestClaimId: ClaimId
  readonly claimId: ClaimId
}

/** Sets claim columns without an event (acknowledgments, the payer's control number, a status inquiry's answer). */
export const setClaimColumns = (
  ws: WorkspaceId,
  ref: ClaimRef,
  set: Partial<Pick<ClaimRecord, "payer_claim_control_number" | "processing_started_at" | "last_checked_at">>
): ReadonlyArray<Step<never>> => [
  update("claims", ref.claimId, { workspace_id: ws }, set),
  ...(ref.latestClaimId === ref.claimId ? [update("encounters", ref.encounterId, { workspace_id: ws, latest_claim_id: ref.claimId }, latestClaimCopy(set))] : [])
]

/** A remittance of the claim arrived at `at`: the encounter's row notes it while the claim is the latest. */
export const remittanceArrived = (ws: WorkspaceId, ref: ClaimRef, at: string): ReadonlyArray<Step<never>> =>
  ref.latestClaimId === ref.claimId
    ? [update("encounters", ref.encounterId, { workspace_id: ws, latest_claim_id: ref.claimId }, { latest_claim_remittances_at: at })]
    : []

/**
 * The write of one status move: the claim's status, compare-and-set on the status it was read
 * with (refused when another move came first); its StatusUpdated event, whose recorded time
 * becomes the encounter's `last_event_at`; while this claim is the encounter's latest, the copy of
 * its status on the encounter's row, in the same update as the time (compare-and-set on the
 * latest claim, refused if another claim has become the latest since the read). The commit path
 * adds the event's outbox deliveries.
 */
export const statusMove = (
  ws: WorkspaceId,
  encounter: { readonly id: EncounterId; readonly latest_claim_id: ClaimId },
  claim: ClaimRecord,
  next: string,
  at: string,
  event: EventRecord
): Write<"stale"> => ({
  operation: "changeClaimStatus",
  steps: [
    update("claims", claim.id, { workspace_id: ws, status: claim.status }, { status: next, status_changed_at: at }, "stale"),
    encounter.latest_claim_id === claim.id
      ? appendEvent<"stale">(event, encounter.id, {
          where: { latest_claim_id: claim.id },
          set: latestClaimCopy({ status: next, status_changed_at: at }),
          ifUnmatched: "stale"
        })
      : appendEvent(event, encounter.id)
  ]
})
