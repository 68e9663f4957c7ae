import { Effect, Option } from "effect"
import { allowedTransitions, type ClaimStatus } from "../domain/claim-status.js"
import { type Claim, toClaim } from "../domain/encounter.js"
import { ClaimNotFound, InvalidTransition, type StorageError } from "../domain/errors.js"
import { ClaimId, EncounterId, EventId, WorkspaceId } from "../domain/ids.js"
import { isUuid } from "../domain/ids.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"

export interface StatusChangeResult {
  readonly claim: Claim
  readonly encounter_id: EncounterId
  /** False when the claim already had the status: no change, no event. */
  readonly changed: boolean
}

/**
 * Moves a claim to `status` if the transition table allows it, writing in one transaction the new
 * status, the encounter's `last_event_at` and one StatusUpdated event. The write is a
 * compare-and-set on the status read, so two concurrent moves from one status cannot both win: the
 * loser re-reads and is judged against the new status (a no-op if it is already there).
 */
export const changeClaimStatus = (
  workspaceId: WorkspaceId,
  claimId: string,
  status: ClaimStatus,
  note?: string
): Effect.Effect<StatusChangeResult, ClaimNotFound | InvalidTransition | StorageError, Storage | Clock | Ids> =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    const ids = yield* Ids
    if (!isUuid(claimId)) return yield* new ClaimNotFound({ id: claimId })
    for (;;) {
      const found = yield* storage.findClaim(workspaceId, ClaimId.make(claimId))
      if (Option.isNone(found)) return yield* new ClaimNotFound({ id: claimId })
      const { encounter, claim } = found.value
      if (claim.status === status) {
        return { claim: toClaim(encounter.payload, claim), encounter_id: encounter.id, changed: false }
      }
      const allowed = allowedTransitions(claim.status)
      if (!allowed.includes(status)) {
        return yield* new InvalidTransition({ claim_id: claim.id, from: claim.status, to: status, allowed })
      }
      const at = isoTime(clock.now())
      const applied = yield* storage.changeClaimStatus(workspaceId, {
        claim_id: claim.id,
        encounter_id: encounter.id,
        expected: claim.status,
        next: status,
        at,
        event: {
          id: EventId.make(ids.next()),
          workspace_id: workspaceId,
          event_type: "ExternalApi.Encounter.StatusUpdated",
          created_at: at,
          timestamp: at,
          payload: {
            encounter_id: encounter.id,
            external_id: encounter.external_id,
            claim_id: claim.id,
            previous_status: claim.status,
            status,
            ...(note !== undefined ? { note } : {})
          }
        }
      })
      if (applied) {
        const updated = { ...claim, status, status_changed_at: at }
        return { claim: toClaim(encounter.payload, updated), encounter_id: encounter.id, changed: true }
      }
    }
  })
