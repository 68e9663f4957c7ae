import { Effect, Either, Option } from "effect"
import { NOTE_MAX_LENGTH } from "../domain/claim-status.js"
import { correctionsAllowed, frequencyOf, InvalidCorrection, MAX_CLAIMS_PER_ENCOUNTER } from "../domain/claim-correction.js"
import { type Claim, claimPayload, type ClaimRecord, type CorrectionAction, type EncounterWithClaim, toClaim } from "../domain/encounter.js"
import type { EncounterCreate } from "../domain/encounter-input.js"
import type { EventRecord } from "../domain/event.js"
import { ClaimNotFound, FieldIssue, InvalidEncounter, InvalidStatusChange } from "../domain/errors.js"
import { ClaimId, type EncounterId, EventId, isUuid, type WorkspaceId } from "../domain/ids.js"
import { validateEncounterCreate } from "../domain/validate.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { claimAdded } from "./claim-writes.js"
import { commit } from "./commit.js"
import { generatePcn } from "./create-encounter.js"

export interface CorrectionRequest {
  readonly action: CorrectionAction
  /** The corrected content: a full create payload with the encounter's external_id (not for `void`). */
  readonly encounter?: unknown
  /** Kept in the StatusUpdated event. */
  readonly note?: string | undefined
}

export interface CorrectionResult {
  /** The new claim, now the encounter's latest. */
  readonly claim: Claim
  readonly encounter_id: EncounterId
}

/**
 * Makes a new claim from the encounter's latest claim (issue "a claim's second life"): a
 * resubmission, a replacement (7), a void (8) or a claim to the secondary payer, as the claim's
 * status allows (`correctionsAllowed`). The new claim starts `draft` with a new control number and
 * becomes the latest in one write with its StatusUpdated event (previous_status: the former latest
 * claim's). The switch is a compare-and-set on the former latest claim, so of concurrent
 * corrections of one claim exactly one makes a claim; the others are judged again and refused
 * (`InvalidCorrection`: the claim is no longer the latest).
 */
export const correctClaim = (workspaceId: WorkspaceId, claimId: string, request: CorrectionRequest) =>
  Effect.gen(() => correctClaimGen(workspaceId, claimId, request))

function* correctClaimGen(ws: WorkspaceId, claimId: string, request: CorrectionRequest) {
  const storage = yield* Storage
  const clock = yield* Clock
  const ids = yield* Ids
  if (!isUuid(claimId)) return yield* new ClaimNotFound({ id: claimId })
  const { action, note } = request
  if (note !== undefined && note.length > NOTE_MAX_LENGTH) {
    return yield* new InvalidStatusChange({ errors: [new FieldIssue({ path: "note", message: `must be at most ${NOTE_MAX_LENGTH} characters` })] })
  }
  const content = request.encounter === undefined ? undefined : yield* checkedContent(action, request.encounter)
  for (;;) {
    const found = yield* storage.findClaim(ws, ClaimId.make(claimId))
    if (Option.isNone(found)) return yield* new ClaimNotFound({ id: claimId })
    const read = found.value
    const { encounter, claim } = read
    if (content !== undefined && content.external_id !== encounter.external_id) {
      return yield* new InvalidEncounter({
        errors: [new FieldIssue({ path: "encounter.external_id", message: `must be the encounter's external_id (${encounter.external_id})` })]
      })
    }
    const refusal = refusalOf(read, action, content)
    const earlier = refusal === undefined ? yield* storage.page("claims", ws, { where: { encounter_id: encounter.id }, limit: MAX_CLAIMS_PER_ENCOUNTER }) : []
    const reason = refusal ?? (earlier.length >= MAX_CLAIMS_PER_ENCOUNTER ? `the encounter has ${MAX_CLAIMS_PER_ENCOUNTER} claims, the most it may have` : undefined)
    if (reason !== undefined) {
      return yield* new InvalidCorrection({ claim_id: claim.id, status: claim.status, action, allowed: correctionsAllowed(claim.status), reason })
    }
    const at = isoTime(clock.now())
    const made = newClaim(ws, claim, action, at, ids.next)
    const event: EventRecord = {
      id: EventId.make(ids.next()),
      workspace_id: ws,
      event_type: "ExternalApi.Encounter.StatusUpdated",
      created_at: at,
      timestamp: at,
      payload: {
        encounter_id: encounter.id,
        external_id: encounter.external_id,
        claim_id: made.id,
        previous_status: claim.status,
        status: made.status,
        ...(note !== undefined ? { note } : {})
      }
    }
    const result = yield* commit(claimAdded(ws, encounter, claim, made, event, content, earlier))
    if (result._tag === "Written") {
      return { claim: toClaim(content ?? encounter.payload, made), encounter_id: encounter.id } satisfies CorrectionResult
    }
    // "stale": another correction or a move of the claim came first (judged again); "pcn": draw another number.
  }
}

/** The corrected content, validated as a create is (every problem at once, paths under `encounter`). */
const checkedContent = (action: CorrectionAction, body: unknown): Effect.Effect<EncounterCreate, InvalidEncounter> => {
  if (action === "void") {
    return Effect.fail(new InvalidEncounter({ errors: [new FieldIssue({ path: "encounter", message: "must be left out: a void carries the content of the claim it cancels" })] }))
  }
  const valid = validateEncounterCreate(body)
  return Either.isRight(valid)
    ? Effect.succeed(valid.right)
    : Effect.fail(new InvalidEncounter({ errors: valid.left.map((e) => new FieldIssue({ ...e, path: e.path === "$" ? "encounter" : `encounter.${e.path}` })) }))
}

/** Why the claim cannot take the correction, or undefined when it can. */
const refusalOf = ({ encounter, claim, remittances = [] }: EncounterWithClaim, action: CorrectionAction, content: EncounterCreate | undefined): string | undefined => {
  if (encounter.latest_claim_id !== claim.id) return `only the encounter's latest claim (${encounter.latest_claim_id}) can be corrected`
  if (!correctionsAllowed(claim.status).includes(action)) return `${action} does not take a claim in status ${claim.status}`
  if ((action === "replace" || action === "void") && claim.payer_claim_control_number === null) {
    return "the payer's claim control number is not known yet (a 277CA REF*1K or an 835 CLP07 names it)"
  }
  if (action === "secondary") {
    if (claim.primary_claim_id !== null) return "the claim is already billed to the secondary payer"
    if ((content ?? claimPayload(encounter.payload, claim)).subscriber_secondary === undefined) return "the encounter has no subscriber_secondary"
    if (remittances.length === 0) return "the primary payer's remittance (835) has not come in"
  }
  return undefined
}

/** The claim a correction makes from `from`: `draft`, a new control number, where it came from. */
const newClaim = (ws: WorkspaceId, from: ClaimRecord, action: CorrectionAction, at: string, nextId: () => string): ClaimRecord => ({
  id: ClaimId.make(nextId()),
  workspace_id: ws,
  encounter_id: from.encounter_id,
  created_at: at,
  status: "draft",
  status_changed_at: at,
  patient_control_number: generatePcn(),
  payer_claim_control_number: null,
  processing_started_at: null,
  last_checked_at: null,
  frequency_code: frequencyOf(action),
  resubmission_original_claim_id: from.id,
  resubmission_action: action,
  original_payer_claim_control_number: action === "replace" || action === "void" ? from.payer_claim_control_number : null,
  clearinghouse_transaction_ids: [],
  // A secondary claim carries its primary's adjudication; a correction of a secondary claim stays secondary.
  primary_claim_id: action === "secondary" ? from.id : from.primary_claim_id,
  payload: null
})
