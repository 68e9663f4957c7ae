import type { ClaimStatus } from "../domain/claim-status.js"
import type { X12ResponseDetail, X12StatusDetail } from "../domain/x12-response.js"
import type { Ack999, SegmentError999, SetAck999 } from "./read/ack-999.js"
import type { BatchStatus277, Claim277, Line277, Status277, StatusCode277 } from "./read/ack-277ca.js"
import type { Adjustment835, Claim835 } from "./read/remit-835.js"
import { formatCents } from "./values.js"

/**
 * What a clearinghouse response means for one claim, as a pure decision: the import only applies
 * it (moving the claim along `ClaimTransitions`, or recording the acknowledgment).
 */
export type StatusAction =
  /** Acknowledged; `processing_started` sets the claim's processing_started_at (277CA A2). */
  | { readonly kind: "ack"; readonly processing_started: boolean; readonly note: string; readonly detail?: X12ResponseDetail }
  | { readonly kind: "move"; readonly to: ClaimStatus; readonly note: string; readonly detail?: X12ResponseDetail }
  /** Informational only (pending, forwarded, not our claim…): recorded, status unchanged. */
  | { readonly kind: "none"; readonly note: string; readonly detail?: X12ResponseDetail }

const noDetail: X12ResponseDetail = { set_error_codes: [], segment_errors: [], statuses: [] }

/**
 * The most entries of each list a decision carries as data and quotes in its note (segment errors,
 * element errors of one segment, statuses): a file may hold a million IK4s for one set, and every
 * claim of that set carries its decision, so the rest is counted, not copied.
 */
export const DETAIL_ENTRIES = 20

const firstEntries = <A>(items: ReadonlyArray<A>, most = DETAIL_ENTRIES): ReadonlyArray<A> => (items.length <= most ? items : items.slice(0, most))
const moreText = (items: ReadonlyArray<unknown>, what: string, most = DETAIL_ENTRIES): string =>
  items.length <= most ? "" : `; and ${items.length - most} more ${what}`

/** The errors a note quotes (each outcome, event and file list carries its note): the rest are in the detail. */
const NOTE_ENTRIES = 3

// ---- 277CA --------------------------------------------------------------------------------

/** Claim status category codes (STC01-1) that acknowledge a claim, and whether it entered adjudication. */
export const ACK_CATEGORIES_277: Readonly<Record<string, boolean>> = {
  A0: false, // forwarded to another entity
  A1: false, // received
  A2: true, // accepted into adjudication
  A5: true // split upon acceptance into adjudication
}

/** Categories that reject the claim: it must be corrected and sent again. */
export const REJECT_CATEGORIES_277: ReadonlyArray<string> = ["A3", "A4", "A6", "A7", "A8"]

const codeText = (c: StatusCode277) => [c.category, c.status, c.entity].filter((x) => x !== undefined && x !== "").join(":")
const statusText = (s: Status277) =>
  [`277CA ${s.codes.map(codeText).join(", ")}`, s.text, s.missing.length === 0 ? undefined : `(${s.missing.join(", ")} missing)`]
    .filter((x) => x !== undefined)
    .join(" ")
const lineName = (l: Line277) => `line ${[l.procedure_code, ...l.modifiers].join(":")}${l.line_control_number === undefined ? "" : ` (${l.line_control_number})`}`

/** One STC as data, at its level (`x12-response.ts`). */
export const statusDetail = (level: X12StatusDetail["level"], s: Status277, line?: Line277): X12StatusDetail => ({
  level,
  procedure_code: line?.procedure_code ?? null,
  line_control_number: line?.line_control_number ?? null,
  codes: s.codes.map((c) => ({ category: c.category, status: c.status, entity: c.entity ?? null })),
  date: s.date ?? null,
  action: s.action ?? null,
  amount_cents: s.amount_cents ?? null,
  text: s.text ?? null,
  missing: s.missing
})

/** One category code on its own. */
export const statusFrom277Category = (category: string, note: string): StatusAction => {
  if (REJECT_CATEGORIES_277.includes(category)) return { kind: "move", to: "rejected", note }
  const started = ACK_CATEGORIES_277[category]
  if (started !== undefined) return { kind: "ack", processing_started: started, note }
  return { kind: "none", note }
}

/**
 * A claim's whole 2200D loop with its lines (2220D): any rejecting status wins, a line's too (a
 * front-end edit accepts or rejects a claim whole); else the strongest acknowledgment (A2 over
 * A1); else nothing to do. The decision carries every status as data.
 */
export const statusFrom277Claim = (claim: Pick<Claim277, "statuses"> & { readonly service_lines?: ReadonlyArray<Line277> }): StatusAction => {
  const lines = claim.service_lines ?? []
  const actions = [
    ...claim.statuses.flatMap((s) => s.codes.map((c) => statusFrom277Category(c.category, statusText(s)))),
    ...lines.flatMap((l) => l.statuses.flatMap((s) => s.codes.map((c) => statusFrom277Category(c.category, `${lineName(l)}: ${statusText(s)}`))))
  ]
  const detail: X12ResponseDetail = {
    ...noDetail,
    statuses: firstEntries([...claim.statuses.map((s) => statusDetail("claim", s)), ...lines.flatMap((l) => l.statuses.map((s) => statusDetail("line", s, l)))])
  }
  const chosen = actions.find((a) => a.kind === "move") ??
    actions.find((a) => a.kind === "ack" && a.processing_started) ??
    actions.find((a) => a.kind === "ack") ?? { kind: "none", note: claim.statuses.map(statusText).join("; ") || "277CA without status" }
  return { ...chosen, detail }
}

/**
 * A status above the claims (2200B for a batch, 2200C for a billing provider): a rejecting one
 * rejects every claim it covers; any other is about the batch and moves nothing (undefined).
 */
export const statusFrom277Batch = (b: BatchStatus277): StatusAction | undefined => {
  const rejecting = b.statuses.filter((s) => s.codes.some((c) => REJECT_CATEGORIES_277.includes(c.category)))
  if (rejecting.length === 0) return undefined
  const where = b.level === "information_receiver"
    ? `the whole transaction set${b.batch_reference === undefined ? "" : ` ${b.batch_reference}`}`
    : `billing provider ${b.identifier ?? b.provider_reference ?? "(unnamed)"}`
  return {
    kind: "move",
    to: "rejected",
    note: `${where} rejected: ${firstEntries(rejecting, NOTE_ENTRIES).map(statusText).join("; ")}${moreText(rejecting, "statuses", NOTE_ENTRIES)}`,
    detail: { ...noDetail, statuses: firstEntries(b.statuses).map((s) => statusDetail(b.level === "information_receiver" ? "batch" : "billing_provider", s)) }
  }
}

// ---- 835 ----------------------------------------------------------------------------------

/** CLP02 codes of a processed claim (primary, secondary, tertiary; and processed and forwarded). */
export const PROCESSED_CLP02: ReadonlyArray<string> = ["1", "2", "3", "19", "20", "21"]
export const DENIED_CLP02 = "4"
export const REVERSAL_CLP02 = "22"
/** CAS01 groups that deny money: contractual (CO), other (OA), payer initiated (PI). */
export const DENYING_GROUPS: ReadonlyArray<string> = ["CO", "OA", "PI"]

type Claim835Money = Pick<Claim835, "status_code" | "paid_cents" | "charge_cents" | "patient_responsibility_cents"> & {
  readonly adjustments?: ReadonlyArray<Pick<Adjustment835, "group" | "amount_cents">>
  readonly service_lines?: ReadonlyArray<{ readonly adjustments: ReadonlyArray<Pick<Adjustment835, "group" | "amount_cents">> }>
}

/**
 * A CLP's status. Processed with money: `paid`. Processed with nothing paid: `paid` when the
 * patient owes it all (every adjustment in group PR: a deductible, a coinsurance); `denied` when a
 * CO, OA or PI adjustment took it; `era_requires_review` when no adjustment says why. CLP02 4 is
 * `denied`, a reversal (22) or a negative payment `era_requires_review`; other codes change nothing.
 */
export const statusFrom835Claim = (claim: Claim835Money): StatusAction => {
  const note = `835 CLP02 ${claim.status_code}: paid ${formatCents(claim.paid_cents)} of ${formatCents(claim.charge_cents)}` +
    (claim.patient_responsibility_cents === undefined ? "" : `, patient responsibility ${formatCents(claim.patient_responsibility_cents)}`)
  if (claim.status_code === REVERSAL_CLP02) return { kind: "move", to: "era_requires_review", note }
  if (claim.status_code === DENIED_CLP02) return { kind: "move", to: "denied", note }
  if (PROCESSED_CLP02.includes(claim.status_code)) {
    if (claim.paid_cents > 0) return { kind: "move", to: "paid", note }
    // A negative payment outside a reversal is a correction someone has to look at.
    if (claim.paid_cents < 0) return { kind: "move", to: "era_requires_review", note }
    const adjustments = [...(claim.adjustments ?? []), ...(claim.service_lines ?? []).flatMap((l) => l.adjustments)].filter((a) => a.amount_cents !== 0)
    if (adjustments.some((a) => DENYING_GROUPS.includes(a.group))) return { kind: "move", to: "denied", note }
    if (adjustments.length > 0 && adjustments.every((a) => a.group === "PR")) {
      return { kind: "move", to: "paid", note: `${note} (nothing paid: the patient's responsibility)` }
    }
    return { kind: "move", to: "era_requires_review", note: `${note} (nothing paid, no adjustment says why)` }
  }
  return { kind: "none", note }
}

// ---- 999 ----------------------------------------------------------------------------------

const segmentErrorText = (e: SegmentError999) =>
  `${e.segment_id} at ${e.position}${e.loop === "" ? "" : ` (loop ${e.loop})`} error ${e.code}` +
  // IK404 (a copy of the bad value) stays with the file's outcome: it may be patient data, and a note travels in events.
  firstEntries(e.elements, NOTE_ENTRIES).map((el) => `; element ${el.position} error ${el.code}`).join("") +
  moreText(e.elements, "element errors", NOTE_ENTRIES)

/**
 * A transaction set the 999 rejected bounces every claim it held; an accepted one is acknowledged.
 * The note quotes the IK3/IK4 errors; the decision carries them as data.
 */
export const statusFrom999Set = (
  set: Pick<SetAck999, "accepted" | "code" | "control_number" | "error_codes"> & { readonly segment_errors?: ReadonlyArray<SegmentError999> }
): StatusAction => {
  const codes = set.error_codes.length === 0 ? "" : ` (${set.error_codes.join(", ")})`
  const segmentErrors = set.segment_errors ?? []
  const errors = segmentErrors.length === 0 ? "" : `: ${firstEntries(segmentErrors, NOTE_ENTRIES).map(segmentErrorText).join("; ")}${moreText(segmentErrors, "segment errors", NOTE_ENTRIES)}`
  const detail: X12ResponseDetail = set.error_codes.length === 0 && segmentErrors.length === 0 ? noDetail : {
    set_error_codes: firstEntries(set.error_codes),
    segment_errors: firstEntries(segmentErrors).map((e) => ({ ...e, elements: firstEntries(e.elements).map((el) => ({ ...el })) })),
    statuses: []
  }
  return set.accepted
    ? { kind: "ack", processing_started: false, note: `999 ${set.code}: transaction set ${set.control_number} accepted${errors}`, detail }
    : { kind: "move", to: "submission_bounced", note: `999 ${set.code}: transaction set ${set.control_number} rejected${codes}${errors}`, detail }
}

export interface Action999 {
  readonly group_control_number: string
  /** ST02 of the set; `undefined` when the 999 judged the whole group without AK2 detail: every set of it. */
  readonly transaction_set_control_number: string | undefined
  readonly action: StatusAction
}

/** Every decision a 999 carries, per transaction set (or per group when it gives no set detail). */
export const actionsFrom999 = (ack: Ack999): ReadonlyArray<Action999> =>
  ack.groups.flatMap((g): ReadonlyArray<Action999> => {
    if (g.transaction_sets.length > 0) {
      return g.transaction_sets.map((set) => ({
        group_control_number: g.group_control_number,
        transaction_set_control_number: set.control_number,
        action: statusFrom999Set(set)
      }))
    }
    const note = `999 ${g.code}: functional group ${g.group_control_number}`
    // Partially accepted without saying which sets: nothing can be concluded per claim.
    const action: StatusAction =
      g.status === "rejected"
        ? { kind: "move", to: "submission_bounced", note: `${note} rejected` }
        : g.status === "accepted"
          ? { kind: "ack", processing_started: false, note: `${note} accepted` }
          : { kind: "none", note: `${note} partially accepted, without transaction set detail` }
    return [{ group_control_number: g.group_control_number, transaction_set_control_number: undefined, action }]
  })

/**
 * A claim covered by a batch- or provider-level status and, maybe, by a 2200D loop of its own: a
 * rejection of its own wins (its words are the more precise); otherwise the batch's rejection
 * does. The decision carries the statuses of every level.
 */
export const withBatchStatus = (claim: StatusAction | undefined, batch: StatusAction | undefined): StatusAction | undefined => {
  if (batch === undefined || claim === undefined) return claim ?? batch
  const detail: X12ResponseDetail = {
    ...noDetail,
    statuses: firstEntries([...(batch.detail?.statuses ?? []), ...(claim.detail?.statuses ?? [])])
  }
  return claim.kind === "move" ? { ...claim, detail } : { ...batch, note: `${batch.note}; ${claim.note}`, detail }
}
