import { type ClaimRecord, type EncounterRow, latestClaimCopy, searchColumns } from "../domain/encounter.js"
import type { EncounterCreate } from "../domain/encounter-input.js"
import type { EventRecord } from "../domain/event.js"
import type { ClaimId, EncounterId, WorkspaceId } from "../domain/ids.js"
import { appendEvent, insert, type Step, update, type Write } from "../ports/write.js"

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

/**
 * The encounter's row of a claim that is not its latest: written with nothing set, which raises its
 * revision, because reads of the encounter that list every claim (compat) show this claim too.
 */
const earlierClaimChanged = (ws: WorkspaceId, ref: ClaimRef): Step<never> => update("encounters", ref.encounterId, { workspace_id: ws }, {})

/** Sets claim columns without an event (acknowledgments, the payer's control number, the exchange's identifiers, a status inquiry's answer). */
export const setClaimColumns = (
  ws: WorkspaceId,
  ref: ClaimRef,
  set: Partial<Pick<ClaimRecord, "payer_claim_control_number" | "processing_started_at" | "clearinghouse_transaction_ids" | "last_checked_at">>
): ReadonlyArray<Step<never>> => [
  update("claims", ref.claimId, { workspace_id: ws }, set),
  ref.latestClaimId === ref.claimId
    ? update("encounters", ref.encounterId, { workspace_id: ws, latest_claim_id: ref.claimId }, latestClaimCopy(set))
    : earlierClaimChanged(ws, ref)
]

/** A remittance of the claim arrived at `at`: the encounter's row notes it while the claim is the latest. */
export const remittanceArrived = (ws: WorkspaceId, ref: ClaimRef, at: string): ReadonlyArray<Step<never>> =>
  ref.latestClaimId === ref.claimId
    ? [update("encounters", ref.encounterId, { workspace_id: ws, latest_claim_id: ref.claimId }, { latest_claim_remittances_at: at })]
    : [earlierClaimChanged(ws, ref)]

/** The exchange gave the claim identifiers (`ids`, added to those it had: `claim`'s as read). */
export const transactionIdsAdded = (ws: WorkspaceId, ref: ClaimRef, claim: ClaimRecord, ids: ReadonlyArray<string>): ReadonlyArray<Step<never>> => {
  const added = [...new Set([...claim.clearinghouse_transaction_ids, ...ids])]
  return added.length === claim.clearinghouse_transaction_ids.length ? [] : setClaimColumns(ws, ref, { clearinghouse_transaction_ids: added })
}

/**
 * The write of a correction: a new claim of the encounter that becomes its latest, made from
 * `former` (the latest, compare-and-set on the status it was read with). The claim is
 * inserted (refused when its generated control number is taken: `"pcn"`); its StatusUpdated event
 * touches the encounter's row with the switch of `latest_claim_id` and the new claim's copy,
 * compare-and-set on the former latest claim (refused when another correction came first:
 * `"stale"`). With new `content`, the encounter's payload and the columns derived from it become
 * the new content in that same update, and every earlier claim that read the encounter's payload
 * (`payload` null, among `earlier`) keeps the old content as its own.
 */
export const claimAdded = (
  ws: WorkspaceId,
  encounter: { readonly id: EncounterId; readonly external_id: string; readonly latest_claim_id: ClaimId; readonly payload: EncounterCreate },
  former: ClaimRecord,
  claim: ClaimRecord,
  event: EventRecord,
  content: EncounterCreate | undefined,
  earlier: ReadonlyArray<ClaimRecord>
): Write<"stale" | "pcn"> => {
  const set: Partial<EncounterRow> = {
    ...latestClaimCopy(claim),
    latest_claim_id: claim.id,
    latest_claim_remittances_at: null,
    ...(content === undefined ? {} : { payload: content, ...searchColumns(content) })
  }
  return {
    operation: "correctClaim",
    // The claim it replaces is done with: its open tasks (a rejection to fix, a denial to appeal) close.
    closings: [
      {
        workspace_id: ws,
        claim_id: former.id,
        encounter_id: encounter.id,
        external_id: encounter.external_id,
        at: claim.created_at,
        reason: `claim ${claim.id} made from it (${claim.resubmission_action ?? "correction"})`
      }
    ],
    steps: [
      // The former latest claim must still have the status the correction was judged on (a move of it
      // since refuses the write, which is then judged again); the update changes nothing else.
      update<"claims", "stale" | "pcn">("claims", former.id, { workspace_id: ws, status: former.status }, { status: former.status }, "stale"),
      insert<"claims", "stale" | "pcn">("claims", claim, { unique: "patient_control_number", refuse: () => "pcn" }),
      ...(content === undefined
        ? []
        : earlier.filter((c) => c.payload === null).map((c) => update("claims", c.id, { workspace_id: ws }, { payload: encounter.payload }))),
      appendEvent<"stale" | "pcn">(event, encounter.id, { where: { latest_claim_id: encounter.latest_claim_id }, set, ifUnmatched: "stale" })
    ]
  }
}

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
