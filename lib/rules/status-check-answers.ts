import { Effect, Option } from "effect"
import {
  categoryEffect,
  needsAttention,
  categoryMeaning,
  type CheckEffect,
  type CheckStatus,
  isUnanswered,
  type StatusCheckRecord
} from "../domain/status-check.js"
import type { WorkspaceId } from "../domain/ids.js"
import { Storage } from "../ports/storage.js"
import { type Step, update } from "../ports/write.js"
import type { ClaimAnswer277, StatusAnswer277, Status277Response } from "../x12/read/status-277.js"
import type { StatusAction } from "../x12/status-mapping.js"
import { formatCents } from "../x12/values.js"
import { setClaimColumns } from "./claim-writes.js"
import { followUpOf277 } from "./task-causes-x12.js"
import { lastOf, noted } from "./x12-import-bounds.js"
import type { ImportPlan, Tracked } from "./x12-import-plan.js"
import { DECIDE_PACE, pause } from "./x12-import-read.js"

/**
 * What a 277 (005010X212) does: each claim answer is matched to its check by the trace number
 * (TRN02, the check's id), else to its claim by the patient control number (REF*EJ) and that
 * claim's newest open check; every STC is recorded on the check; the claim moves as the category
 * table says (`categoryEffect`), through the import plan, so a refused move is a conflict and a
 * move has its event (and webhooks); an answer about the claim sets its `last_checked_at`.
 */

/** Each code of each STC, as a check records it. */
export const checkStatuses = (statuses: ReadonlyArray<StatusAnswer277>, payerControl: string | undefined): ReadonlyArray<CheckStatus> =>
  statuses.flatMap((s) =>
    s.codes.map((c) => ({
      category_code: c.category,
      status_code: c.status,
      entity_code: c.entity ?? null,
      meaning: categoryMeaning(c.category),
      effective_date: s.date ?? null,
      charge_amount_cents: s.amount_cents ?? null,
      paid_amount_cents: s.paid_cents ?? null,
      payer_claim_control_number: payerControl ?? null,
      text: s.text ?? null
    }))
  )

const codeText = (s: CheckStatus) => [s.category_code, s.status_code, s.entity_code].filter((x) => x !== null && x !== "").join(":")

/** The note of an answer's decision: its codes, the paid amount and the payer's text. */
export const answerNote = (statuses: ReadonlyArray<CheckStatus>): string => {
  if (statuses.length === 0) return "277 without status"
  const paid = statuses.find((s) => s.paid_amount_cents !== null)?.paid_amount_cents
  const text = statuses.map((s) => s.text).filter((t) => t !== null)
  return [`277 ${statuses.map(codeText).join(", ")}`, paid === undefined || paid === null ? undefined : `paid ${formatCents(paid)}`, ...text].filter((x) => x !== undefined).join("; ")
}

/**
 * One answer's decision: the first status that moves the claim (finalized paid or denied, not
 * accepted), else an acknowledgment when one says received or pending (processing started),
 * else nothing; `unanswered` when no status says anything about the claim (not found, errors).
 */
export const answerAction = (statuses: ReadonlyArray<CheckStatus>): { readonly action: StatusAction; readonly unanswered: boolean } => {
  const note = answerNote(statuses)
  const unanswered = isUnanswered(statuses)
  for (const s of statuses) {
    const e = categoryEffect(s.category_code)
    if (e.kind === "move") return { action: { kind: "move", to: e.to, note }, unanswered }
  }
  if (statuses.some((s) => categoryEffect(s.category_code).kind === "pending")) {
    return { action: { kind: "ack", processing_started: true, note }, unanswered }
  }
  return { action: { kind: "none", note }, unanswered }
}

/** The update that records an answer on its check (compare-and-set on the state it was read in). */
export const answeredCheck = (
  ws: WorkspaceId,
  check: StatusCheckRecord,
  at: string,
  statuses: ReadonlyArray<CheckStatus>,
  effect: CheckEffect
): Step<"stale"> =>
  update(
    "status_checks",
    check.id,
    { workspace_id: ws, status: check.status },
    {
      status: "answered",
      sent_at: check.sent_at ?? at,
      answered_at: at,
      statuses: [...statuses],
      effect,
      error: null,
      next_attempt_at: null,
      lease_owner: null,
      lease_expires_at: null
    },
    "stale"
  )

/** The newest check of a claim still waiting for its answer. */
const openCheckOf = (ws: WorkspaceId, claimId: string) =>
  Effect.gen(function* () {
    const rows = yield* (yield* Storage).page("status_checks", ws, { where: { claim_id: claimId as StatusCheckRecord["claim_id"] }, limit: 10 })
    return rows.find((c) => c.status === "sent" || c.status === "queued")
  })

/**
 * Applies one claim answer to the plan: its claim's effect (and `last_checked_at`), and the
 * answer on its check when one is found (`check` when the caller already knows it). Returns the
 * check it answered, if any.
 */
export const applyAnswer = (ws: WorkspaceId, plan: ImportPlan, at: string, answer: ClaimAnswer277, count: number, known?: StatusCheckRecord) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const byTrace = known ?? Option.getOrUndefined(yield* storage.get("status_checks", ws, answer.trace_number))
    let t: Tracked | undefined = byTrace === undefined ? undefined : yield* plan.byId(byTrace.claim_id)
    if (t === undefined && answer.patient_control_number !== undefined) t = yield* plan.byPcn(answer.patient_control_number)
    if (t === undefined) {
      plan.unmatched(answer.patient_control_number ?? null, noted(`no status check with trace number ${answer.trace_number} and no claim with patient control number ${answer.patient_control_number ?? "(none)"} (277 TRN02, REF*EJ)`, count))
      return undefined
    }
    const check = byTrace !== undefined && byTrace.claim_id === t.claim.id ? byTrace : yield* openCheckOf(ws, t.claim.id)
    const statuses = checkStatuses(answer.statuses, answer.payer_claim_control_number)
    const { action, unanswered } = answerAction(statuses)
    const before = plan.outcomes.length
    const previous = t.claim.status
    plan.payerControlNumber(t, answer.payer_claim_control_number)
    plan.apply(t, { ...action, note: noted(action.note, count) })
    // The payer asks for more information (R*): the claim needs a person, in the work queue.
    if (needsAttention(statuses)) plan.cause(t, followUpOf277(answer.statuses, check?.id))
    const recorded = plan.outcomes[before]
    const outcome = unanswered ? "unanswered" : recorded?.outcome === "status_changed" || recorded?.outcome === "conflict" ? recorded.outcome : "unchanged"
    if (!unanswered) plan.steps.push(...setClaimColumns(ws, { encounterId: t.encounterId, latestClaimId: t.latestClaimId, claimId: t.claim.id }, { last_checked_at: at }))
    if (check === undefined || check.status === "answered") return undefined
    plan.steps.push(answeredCheck(ws, check, at, statuses, { outcome, previous_status: previous, status: t.claim.status }))
    return check
  })

/** A 277 file: every claim answer, the last of each trace number deciding. */
export const plan277Status = (ws: WorkspaceId, plan: ImportPlan, response: Status277Response, at: string) =>
  Effect.gen(function* () {
    let i = 0
    for (const { entry, count } of lastOf(response.claims, (c) => c.trace_number).values()) {
      if (++i % DECIDE_PACE === 0) yield* pause
      yield* applyAnswer(ws, plan, at, entry, count)
      plan.done()
    }
  })
