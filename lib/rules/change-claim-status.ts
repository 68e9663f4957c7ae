import { Effect, Option } from "effect"
import { allowedTransitions, type ClaimStatus } from "../domain/claim-status.js"
import { type Claim, type ClaimRecord, toClaim } from "../domain/encounter.js"
import type { EventRecord } from "../domain/event.js"
import { ClaimNotFound, InvalidTransition, type StorageError } from "../domain/errors.js"
import { ClaimId, EncounterId, EventId, WorkspaceId } from "../domain/ids.js"
import { isUuid } from "../domain/ids.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { appendEvent, type Insert, update, type Write } from "../ports/write.js"
import { notifyDeliveries } from "../webhooks/signal.js"
import { deliveriesFor } from "./webhook-outbox.js"

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
  Effect.gen(() => changeClaimStatusGen(workspaceId, claimId, status, note))

function* changeClaimStatusGen(workspaceId: WorkspaceId, claimId: string, status: ClaimStatus, note?: string) {
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
    const event = statusUpdated(workspaceId, EventId.make(ids.next()), encounter, claim, status, at, note)
    // The outbox, read just before the write (see webhook-outbox.ts).
    const deliveries = deliveriesFor(yield* storage.enabledWebhookEndpoints(workspaceId), event, ids.next)
    const result = yield* storage.write(statusMove(workspaceId, encounter, claim, status, at, event, deliveries))
    const applied = result._tag === "Written"
    if (applied) {
      if (deliveries.length > 0) yield* notifyDeliveries
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

/**
 * The write of one status move: the claim's status, compare-and-set on the status it was read
 * with (refused when another move came first); its StatusUpdated event, whose recorded time
 * becomes the encounter's `last_event_at`; while this claim is the encounter's latest, the copy of
 * its status on the encounter's row, in the same update as the time (compare-and-set on the
 * latest claim, refused if another claim has become the latest since the read); and the event's
 * outbox deliveries.
 */
export const statusMove = (
  ws: WorkspaceId,
  encounter: { readonly id: EncounterId; readonly latest_claim_id: ClaimId },
  claim: ClaimRecord,
  next: string,
  at: string,
  event: EventRecord,
  deliveries: ReadonlyArray<Insert<"webhook_deliveries", never>> = []
): Write<"stale"> => ({
  operation: "changeClaimStatus",
  steps: [
    update("claims", claim.id, { workspace_id: ws, status: claim.status }, { status: next, status_changed_at: at }, "stale"),
    encounter.latest_claim_id === claim.id
      ? appendEvent<"stale">(event, encounter.id, {
          where: { latest_claim_id: claim.id },
          set: { latest_claim_status: next, latest_claim_status_changed_at: at },
          ifUnmatched: "stale"
        })
      : appendEvent(event, encounter.id),
    ...deliveries
  ]
})
