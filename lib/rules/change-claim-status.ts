import { Effect, Option } from "effect"
import { statusMove } from "./claim-writes.js"
import { commit } from "./commit.js"
import { allowedTransitions, type ClaimStatus, NOTE_MAX_LENGTH } from "../domain/claim-status.js"
import { type Claim, type ClaimRecord, toClaim } from "../domain/encounter.js"
import type { EventRecord } from "../domain/event.js"
import { ClaimNotFound, FieldIssue, InvalidStatusChange, InvalidTransition, type StorageError } from "../domain/errors.js"
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
): Effect.Effect<StatusChangeResult, ClaimNotFound | InvalidStatusChange | InvalidTransition | StorageError, Storage | Clock | Ids> =>
  Effect.gen(() => changeClaimStatusGen(workspaceId, claimId, status, note))

function* changeClaimStatusGen(workspaceId: WorkspaceId, claimId: string, status: ClaimStatus, note?: string) {
  const storage = yield* Storage
  const clock = yield* Clock
  const ids = yield* Ids
  if (!isUuid(claimId)) return yield* new ClaimNotFound({ id: claimId })
  if (note !== undefined && note.length > NOTE_MAX_LENGTH) {
    return yield* new InvalidStatusChange({ errors: [new FieldIssue({ path: "note", message: `must be at most ${NOTE_MAX_LENGTH} characters` })] })
  }
  for (;;) {
    const found = yield* storage.findClaimToChange(workspaceId, ClaimId.make(claimId))
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
    const event = statusUpdated(workspaceId, EventId.make(ids.next()), encounter, claim, status, at, note)
    const result = yield* commit(statusMove(workspaceId, encounter, claim, status, at, event))
    if (result._tag === "Written") {
      const updated = { ...claim, status, status_changed_at: at }
      return { claim: toClaim(encounter.payload, updated), encounter_id: encounter.id, changed: true }
    }
  }
}

/** The StatusUpdated event of moving `claim` (of `encounter`) to `next` at `at`. */
export const statusUpdated = (
  ws: WorkspaceId,
  id: EventId,
  encounter: { readonly id: EncounterId; readonly external_id: string },
  claim: ClaimRecord,
  next: string,
  at: string,
  note?: string
): EventRecord => ({
  id,
  workspace_id: ws,
  event_type: "ExternalApi.Encounter.StatusUpdated",
  created_at: at,
  timestamp: at,
  payload: {
    encounter_id: encounter.id,
    external_id: encounter.external_id,
    claim_id: claim.id,
    previous_status: claim.status,
    status: next,
    ...(note !== undefined ? { note } : {})
  }
})
