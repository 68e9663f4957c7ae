import { Effect } from "effect"
import { canTransition, NOTE_MAX_LENGTH } from "../domain/claim-status.js"
import type { ClaimRecord } from "../domain/encounter.js"
import type { StorageError } from "../domain/errors.js"
import { type ClaimId, type EncounterId, EventId, type WorkspaceId } from "../domain/ids.js"
import type { RemittanceRecord } from "../domain/remittance.js"
import { type TaskCauseInput, taskTypeOfStatus } from "../domain/task.js"
import type { InboundClaimOutcome } from "../domain/x12-exchange.js"
import type { X12ResponseDetail } from "../domain/x12-response.js"
import { type ClaimKey, type ClaimWithEncounterKeys, Storage } from "../ports/storage.js"
import { insert, type Step } from "../ports/write.js"
import type { StatusAction } from "../x12/status-mapping.js"
import { statusUpdated } from "./change-claim-status.js"
import { paceBy } from "./x12-import-read.js"
import { remittanceArrived, setClaimColumns, statusMove, transactionIdsAdded } from "./claim-writes.js"

/** Claims looked up per read (each is a parameter of the query); the event loop runs between reads every few milliseconds. */
const LOOKUP_CHUNK = 250

/** A claim an inbound file names, with its status as the file's earlier entries left it. */
export interface Tracked {
  readonly encounterId: EncounterId
  readonly externalId: string
  /** The encounter's latest claim (its row copies that claim's columns). */
  readonly latestClaimId: ClaimId
  claim: ClaimRecord
}

/**
 * What one inbound file does, computed entry by entry: the outcome of each claim entry and the
 * steps of the one write that applies them all. A claim named twice (a reversal and its
 * correction in one 835) is judged the second time against the status the first entry left.
 */
export const makeImportPlan = (ws: WorkspaceId, at: string, nextId: () => string) => {
  const steps: Array<Step<"stale">> = []
  const causes: Array<TaskCauseInput> = []
  const outcomes: Array<InboundClaimOutcome> = []
  const tracked = new Map<string, Tracked>()

  /** What a lookup found by id and by control number; `null` for a value that names no claim. */
  const byKey = { id: new Map<string, Tracked | null>(), patient_control_number: new Map<string, Tracked | null>() }

  const track = ({ encounter, claim }: ClaimWithEncounterKeys): Tracked => {
    const known = tracked.get(claim.id)
    if (known !== undefined) return known
    const t: Tracked = { encounterId: encounter.id, externalId: encounter.external_id, latestClaimId: encounter.latest_claim_id, claim }
    tracked.set(claim.id, t)
    byKey.id.set(claim.id, t)
    byKey.patient_control_number.set(claim.patient_control_number, t)
    return t
  }

  /**
   * Looks up the claims named by these ids or control numbers that are not known yet, some
   * hundreds per read: a file naming many claims costs a few reads, not one per claim.
   */
  const lookUp = (key: ClaimKey, values: Iterable<string>) =>
    Effect.gen(function* () {
      const storage = yield* Storage
      const known = byKey[key]
      const missing = [...new Set(values)].filter((v) => !known.has(v))
      const pace = paceBy()
      for (let i = 0; i < missing.length; i += LOOKUP_CHUNK) {
        yield* pace
        const chunk = missing.slice(i, i + LOOKUP_CHUNK)
        for (const found of yield* storage.findClaims(ws, key, chunk)) track(found)
        for (const v of chunk) if (!known.has(v)) known.set(v, null)
      }
    })

  const lookedUp = (key: ClaimKey, value: string): Effect.Effect<Tracked | undefined, StorageError, Storage> => {
    const known = byKey[key].get(value)
    if (known !== undefined) return Effect.succeed(known ?? undefined)
    return Effect.map(lookUp(key, [value]), () => byKey[key].get(value) ?? undefined)
  }
  const byPcn = (pcn: string) => lookedUp("patient_control_number", pcn)
  const byId = (id: string) => lookedUp("id", id)

  const ref = (t: Tracked) => ({ encounterId: t.encounterId, latestClaimId: t.latestClaimId, claimId: t.claim.id })

  /** Sets claim columns (and their copies on the encounter's row while this claim is its latest). */
  const setClaim = (t: Tracked, set: { readonly payer_claim_control_number?: string; readonly processing_started_at?: string }) => {
    steps.push(...setClaimColumns(ws, ref(t), set))
    t.claim = { ...t.claim, ...set }
  }

  const payerControlNumber = (t: Tracked, value: string | undefined) => {
    if (value !== undefined && value !== t.claim.payer_claim_control_number) setClaim(t, { payer_claim_control_number: value })
  }

  /** Identifiers the exchange gave the claim (a 277CA's clearinghouse trace number). */
  const transactionIds = (t: Tracked, ids: ReadonlyArray<string>) => {
    steps.push(...transactionIdsAdded(ws, ref(t), t.claim, ids))
    t.claim = { ...t.claim, clearinghouse_transaction_ids: [...new Set([...t.claim.clearinghouse_transaction_ids, ...ids])] }
  }

  const remittance = (t: Tracked, r: Omit<RemittanceRecord, "id" | "workspace_id" | "claim_id" | "received_at">) => {
    steps.push(insert("remittances", { ...r, id: nextId(), workspace_id: ws, claim_id: t.claim.id, received_at: at }))
    steps.push(...remittanceArrived(ws, ref(t), at))
  }

  // Outcome details quote the file (a 277CA status's free text): kept as long as event notes.
  const record = (outcome: InboundClaimOutcome) => outcomes.push({ ...outcome, detail: outcome.detail.slice(0, NOTE_MAX_LENGTH) })

  const unmatched = (pcn: string | null, detail: string, response: X12ResponseDetail | null = null) =>
    record({ patient_control_number: pcn, claim_id: null, outcome: "unmatched", previous_status: null, status: null, detail, response })

  const unchanged = (t: Tracked, detail: string, response: X12ResponseDetail | null) =>
    record({
      patient_control_number: t.claim.patient_control_number,
      claim_id: t.claim.id,
      outcome: "unchanged",
      previous_status: t.claim.status,
      status: t.claim.status,
      detail,
      response
    })

  /** A cause of work on the claim (`TaskCause`): the details of its move's task, or, with a type, a task by itself. */
  const cause = (t: Tracked, c: TaskDetail) =>
    causes.push({ ...c, workspace_id: ws, claim_id: t.claim.id, encounter_id: t.encounterId, external_id: t.externalId, at })

  /**
   * Applies a status decision: a move the table allows, an acknowledgment, or nothing. `detail`
   * is what the file says about it (codes, text): the details of the task the move makes, or
   * added to the claim's open task when the file repeats a status the claim already has.
   */
  const apply = (t: Tracked, action: StatusAction, detail?: TaskDetail) => {
    const from = t.claim.status
    const response = action.detail ?? null
    if (detail !== undefined && action.kind === "move") {
      const repeat = from === action.to ? taskTypeOfStatus(from) : undefined
      if (repeat !== undefined) cause(t, { ...detail, type: repeat })
      else if (canTransition(from, action.to)) cause(t, detail)
    }
    if (action.kind === "ack") {
      if (action.processing_started && t.claim.processing_started_at === null) setClaim(t, { processing_started_at: at })
      return unchanged(t, action.note, response)
    }
    if (action.kind === "none") return unchanged(t, action.note, response)
    const to = action.to
    if (from === to) return unchanged(t, `already ${to}: ${action.note}`, response)
    if (!canTransition(from, to)) {
      return record({
        patient_control_number: t.claim.patient_control_number,
        claim_id: t.claim.id,
        outcome: "conflict",
        previous_status: from,
        status: from,
        detail: `asked for ${to}, which the transition table does not allow from ${from}: ${action.note}`,
        response
      })
    }
    const note = action.note.slice(0, NOTE_MAX_LENGTH)
    steps.push(
      ...statusMove(
        ws,
        { id: t.encounterId, latest_claim_id: t.latestClaimId },
        t.claim,
        to,
        at,
        statusUpdated(ws, EventId.make(nextId()), { id: t.encounterId, external_id: t.externalId }, t.claim, to, at, note)
      ).steps
    )
    t.claim = { ...t.claim, status: to, status_changed_at: at }
    record({
      patient_control_number: t.claim.patient_control_number,
      claim_id: t.claim.id,
      outcome: "status_changed",
      previous_status: from,
      status: to,
      detail: action.note,
      response
    })
  }

  /**
   * Where the file's writes may be cut: after each entry (a claim the file decides on), how many
   * outcomes, steps and causes the entries so far made. An entry makes one outcome whatever the
   * claim's status, so the count of outcomes names the same place in a plan made again later.
   */
  const marks: Array<PlanMark> = []
  const done = () => {
    // An entry that decided nothing (a 277CA loop without a status) goes with the next one.
    if (outcomes.length > (marks[marks.length - 1]?.outcomes ?? 0)) marks.push({ outcomes: outcomes.length, steps: steps.length, causes: causes.length })
  }

  return { steps, causes, outcomes, marks, done, lookUp, byPcn, byId, apply, cause, unmatched, payerControlNumber, transactionIds, remittance }
}

/** A place after an entry of the file (`ImportPlan.marks`). */
export interface PlanMark {
  readonly outcomes: number
  readonly steps: number
  readonly causes: number
}

/** What a file says about a claim's work: the cause without its claim and time. */
export type TaskDetail = Omit<TaskCauseInput, "workspace_id" | "claim_id" | "encounter_id" | "external_id" | "at">

export type ImportPlan = ReturnType<typeof makeImportPlan>
