import { randomInt } from "node:crypto"
import { commit } from "./commit.js"
import { Effect, Either, Option } from "effect"
import { type ClaimRecord, type EncounterRecord, initialClaimStatus, type RawOutcome, type RawRequestRecord, toEncounterRow } from "../domain/encounter.js"
import type { EncounterCreate } from "../domain/encounter-input.js"
import { FieldIssue, InvalidEncounter, PatientControlNumberTaken } from "../domain/errors.js"
import { parseJsonBody } from "../domain/json.js"
import type { EventRecord } from "../domain/event.js"
import { ClaimId, EncounterId, EventId, RawRequestId, WorkspaceId } from "../domain/ids.js"
import { validateEncounterCreate } from "../domain/validate.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { appendEvent, insert, type Write } from "../ports/write.js"
import { ValidBodies } from "./valid-bodies.js"

export interface IntakeRequest {
  readonly workspace_id: WorkspaceId
  /** The API key that sent it, when there is one (null for embedded callers). */
  readonly key_id?: string | null
  readonly content_type?: string
  /** The body exactly as received. */
  readonly body: Uint8Array
  /** How the encounter arrived: `api` over HTTP; embedders may pass their own label. */
  readonly source?: string
}

export interface IntakeResult {
  readonly encounter_id: EncounterId
  readonly duplicate: boolean
  readonly raw_request_id: RawRequestId
}

const PCN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
export const generatePcn = (): string => {
  let s = ""
  for (let i = 0; i < 12; i++) s += PCN_ALPHABET[randomInt(PCN_ALPHABET.length)]
  return s
}

/**
 * Intake of one create request. The body is parsed and validated, then the raw request is stored
 * with its outcome in one write: with the encounter, its first claim and the Created event, in
 * one transaction, when accepted; alone when rejected or a replay. Nothing is answered before
 * that write is durable. Idempotent on (workspace, external_id): a replay answers the existing id
 * with `duplicate: true` and writes no event.
 */
export const intakeEncounter = (req: IntakeRequest) => Effect.gen(() => intakeEncounterGen(req))

function* intakeEncounterGen(req: IntakeRequest) {
  const storage = yield* Storage
  const clock = yield* Clock
  const ids = yield* Ids
  const ws = req.workspace_id
  const received = {
    id: RawRequestId.make(ids.next()),
    workspace_id: ws,
    key_id: req.key_id ?? null,
    received_at: isoTime(clock.now()),
    content_type: req.content_type ?? "application/json",
    body: req.body
  }
  /** The raw request as stored, with its outcome (and the external id, when the body had one). */
  const raw = (result: RawOutcome, external_id: string | null): RawRequestRecord => ({
    ...received,
    external_id,
    outcome: result.outcome,
    result
  })
  const reject = (errors: ReadonlyArray<FieldIssue>, external_id: string | null) =>
    commit({ operation: "rejectEncounter", refusal: true, steps: [insert("raw_requests", raw({ outcome: "rejected", errors }, external_id))] })
  const duplicate = (encounter_id: EncounterId, external_id: string) =>
    commit({ operation: "replayEncounter", steps: [insert("raw_requests", raw({ outcome: "duplicate", encounter_id }, external_id))] })
      .pipe(Effect.as({ encounter_id, duplicate: true, raw_request_id: received.id } satisfies IntakeResult))

  // A replay of bytes that passed validation before skips parsing and validating them again.
  const validBodies = yield* Effect.serviceOption(ValidBodies)
  const digest = Option.isSome(validBodies) ? validBodies.value.digest(req.body) : undefined
  const knownExt = digest === undefined || Option.isNone(validBodies) ? undefined : validBodies.value.externalId(digest)
  if (knownExt !== undefined) {
    const replayed = yield* storage.findEncounterIdByExternalId(ws, knownExt)
    if (Option.isSome(replayed)) return yield* duplicate(replayed.value, knownExt)
  }

  const parsed = parseJsonBody(req.body)
  if (Either.isLeft(parsed)) {
    yield* reject([new FieldIssue({ path: "$", message: parsed.left.message })], null)
    return yield* parsed.left
  }
  const valid = validateEncounterCreate(parsed.right)
  if (Either.isLeft(valid)) {
    yield* reject(valid.left, externalIdOf(parsed.right))
    return yield* new InvalidEncounter({ errors: valid.left })
  }
  const payload = valid.right
  const ext = payload.external_id
  if (digest !== undefined && Option.isSome(validBodies)) validBodies.value.remember(digest, ext)

  // Cheap path for replays; the unique key still decides when two creates race.
  const known = yield* storage.findEncounterIdByExternalId(ws, ext)
  if (Option.isSome(known)) return yield* duplicate(known.value, ext)

  for (let attempt = 0; ; attempt++) {
    const created = newEncounter(ws, payload, req.source ?? "api", clock.now(), ids.next)
    const result = yield* commit(creation(created, raw({ outcome: "accepted", encounter_id: created.encounter.id }, ext)))
    if (result._tag === "Written") {
      return { encounter_id: created.encounter.id, duplicate: false, raw_request_id: received.id } satisfies IntakeResult
    }
    const refusal = result.refusal
    if (refusal._tag === "Duplicate") return yield* duplicate(refusal.encounter_id, ext)
    // A generated number collided (vanishingly rare): draw another. A caller's own number is theirs to fix.
    if (payload.patient_control_number !== undefined || attempt >= 3) {
      const pcn = created.claim.patient_control_number
      const error = new FieldIssue({ path: "patient_control_number", message: "is already used in this workspace" })
      yield* reject([error], ext)
      return yield* new PatientControlNumberTaken({ patient_control_number: pcn })
    }
  }
}

type CreationRefusal = { readonly _tag: "Duplicate"; readonly encounter_id: EncounterId } | { readonly _tag: "PatientControlNumberTaken" }

/**
 * The write of an accepted create: the encounter (refused when its external id is already taken in
 * the workspace: the holder is the winner of a race, and this request is its replay), its first
 * claim (refused when the control number is taken), the Created event and the raw request (the
 * commit path adds the event's outbox deliveries).
 */
const creation = ({ encounter, claim, event }: ReturnType<typeof newEncounter>, raw: RawRequestRecord): Write<CreationRefusal> => ({
  operation: "createEncounter",
  steps: [
    insert("encounters", toEncounterRow(encounter, claim, raw.id), {
      unique: "external_id",
      refuse: (holder) => ({ _tag: "Duplicate", encounter_id: EncounterId.make(holder) })
    }),
    insert("claims", claim, { unique: "patient_control_number", refuse: () => ({ _tag: "PatientControlNumberTaken" }) }),
    appendEvent(event, encounter.id),
    insert("raw_requests", raw)
  ]
})

/** The external id of a body that failed validation, when it has a usable one (for the intake log). */
const externalIdOf = (body: unknown): string | null => {
  if (typeof body !== "object" || body === null || !("external_id" in body)) return null
  const ext = body.external_id
  return typeof ext === "string" && ext.length > 0 && ext.length <= 255 ? ext : null
}

const newEncounter = (
  ws: WorkspaceId,
  payload: EncounterCreate,
  source: string,
  nowMs: number,
  nextId: () => string
): { encounter: EncounterRecord; claim: ClaimRecord; event: EventRecord } => {
  const at = isoTime(nowMs)
  const encounterId = EncounterId.make(nextId())
  const claimId = ClaimId.make(nextId())
  const status = initialClaimStatus(payload)
  const pcn = payload.patient_control_number ?? generatePcn()
  return {
    encounter: {
      id: encounterId,
      workspace_id: ws,
      external_id: payload.external_id,
      created_at: at,
      source,
      payload,
      latest_claim_id: claimId,
      initial_claim_status: status,
      initial_patient_control_number: pcn,
      last_event_at: at
    },
    claim: {
      id: claimId,
      workspace_id: ws,
      encounter_id: encounterId,
      created_at: at,
      status,
      status_changed_at: at,
      patient_control_number: pcn,
      payer_claim_control_number: null,
      processing_started_at: null,
      last_checked_at: null,
      frequency_code: "1",
      resubmission_original_claim_id: null,
      resubmission_action: null,
      original_payer_claim_control_number: null,
      clearinghouse_transaction_ids: [],
      primary_claim_id: null,
      payload: null
    },
    event: {
      id: EventId.make(nextId()),
      workspace_id: ws,
      event_type: "ExternalApi.Encounter.Created",
      created_at: at,
      timestamp: at,
      payload: { encounter_id: encounterId, external_id: payload.external_id, claim_id: claimId, status }
    }
  }
}

const encoder = new TextEncoder()

/** Intake for embedders holding a payload object: its JSON text is stored as the raw request. */
export const createEncounter = (
  workspaceId: WorkspaceId,
  payload: unknown,
  options?: { readonly source?: string; readonly key_id?: string | null }
) =>
  intakeEncounter({
    workspace_id: workspaceId,
    key_id: options?.key_id ?? null,
    content_type: "application/json",
    body: encoder.encode(JSON.stringify(payload) ?? "null"),
    source: options?.source ?? "library"
  })
