import { causeCode, denialCodes, meaningOfCauseCode } from "../domain/code-meanings.js"
import type { SetAck999 } from "../x12/read/ack-999.js"
import type { Claim277, Status277 } from "../x12/read/ack-277ca.js"
import type { Claim835 } from "../x12/read/remit-835.js"
import { DETAIL_ENTRIES, REVERSAL_CLP02 } from "../x12/status-mapping.js"
import { formatCents } from "../x12/values.js"
import type { TaskDetail } from "./x12-import-plan.js"

/**
 * What an inbound file says about a claim's work, as task details: its codes (`list:code`, the most
 * specific first, so the category comes from them) and a text naming where in the file they
 * are. Values the file quotes (an IK4's bad value) are left out: they may be patient data.
 */

const withMeaning = (code: string) => {
  const meaning = meaningOfCauseCode(code)
  return meaning === undefined ? code : `${code} (${meaning.text})`
}

/** A rejected 999 transaction set: its element errors (IK4), then segment errors (IK3), then the set's (IK5). */
export const detailOf999Set = (set: Pick<SetAck999, "error_codes" | "segment_errors">, note: string, fileId: string): TaskDetail => {
  const ik4 = set.segment_errors.flatMap((s) => s.elements.map((e) => causeCode("ik4", e.code)))
  const ik3 = set.segment_errors.map((s) => causeCode("ik3", s.code))
  const ik5 = set.error_codes.map((c) => causeCode("ik5", c))
  // The text quotes the first errors (`DETAIL_ENTRIES`), as the note does: every claim of the set carries it.
  const where = set.segment_errors.slice(0, DETAIL_ENTRIES).map(
    (s) =>
      `${s.segment_id} at segment ${s.position}${s.loop === "" ? "" : ` (loop ${s.loop})`}: ${withMeaning(causeCode("ik3", s.code))}` +
      s.elements.slice(0, DETAIL_ENTRIES).map((e) => `; element ${e.position}: ${withMeaning(causeCode("ik4", e.code))}`).join("")
  )
  return { kind: "999", file_id: fileId, codes: unique([...ik4, ...ik3, ...ik5]), text: [note, ...where].join(". ") }
}

const statusCodes = (statuses: ReadonlyArray<Status277>) =>
  unique([
    ...statuses.flatMap((s) => s.codes.map((c) => causeCode("stc_status", c.status))),
    ...statuses.flatMap((s) => s.codes.map((c) => causeCode("stc_category", c.category)))
  ])

/** A 277CA's statuses of a claim: status codes (what is wrong) before categories (how it was judged). */
export const detailOf277 = (claim: Pick<Claim277, "statuses">, fileId: string): TaskDetail => {
  const codes = statusCodes(claim.statuses)
  const text = claim.statuses
    .map((s) => [s.codes.map((c) => `${c.category}:${c.status}${c.entity === undefined ? "" : `:${c.entity}`}`).join(", "), s.text].filter((x) => x !== undefined && x !== "").join(" "))
    .join("; ")
  return { kind: "277CA", file_id: fileId, codes, text: `277CA ${text}: ${codes.map(withMeaning).join("; ")}` }
}

/**
 * A claim status response (277, 005010X212) asking for more information (`R*`): a follow-up of the
 * claim, its category from the STC codes, tied to the status check it answered.
 */
export const followUpOf277 = (statuses: ReadonlyArray<Status277>, checkId: string | undefined): TaskDetail => {
  const codes = statusCodes(statuses)
  const text = statuses.map((s) => [s.codes.map((c) => `${c.category}:${c.status}`).join(", "), s.text].filter((x) => x !== undefined && x !== "").join(" ")).join("; ")
  return { type: "claim_follow_up", kind: "277", ...(checkId === undefined ? {} : { check_id: checkId }), codes, text: `277 ${text}: ${codes.map(withMeaning).join("; ")}` }
}

const adjustmentText = (a: { readonly group: string; readonly reason: string; readonly amount_cents: number }) =>
  `${withMeaning(causeCode("carc", `${a.group}-${a.reason}`))} ${formatCents(a.amount_cents)}`

/**
 * An 835 claim's details: the claim's and its lines' adjustments. With them, the typed causes it
 * makes by itself: a reversal to review (even when its correction follows in the same file), and
 * each line denied on a claim otherwise paid.
 */
export const detailsOf835 = (
  c: Claim835,
  fileId: string,
  checkId: string
): { readonly detail: TaskDetail; readonly typed: ReadonlyArray<TaskDetail> } => {
  const all = [...c.adjustments, ...c.service_lines.flatMap((l) => l.adjustments)]
  const base = { kind: "835", file_id: fileId, check_id: checkId }
  const detail: TaskDetail = {
    ...base,
    codes: unique(denialCodes(all)),
    text: `835 CLP02 ${c.status_code}, paid ${formatCents(c.paid_cents)} of ${formatCents(c.charge_cents)}` + (all.length === 0 ? "" : `: ${all.map(adjustmentText).join("; ")}`)
  }
  const typed: Array<TaskDetail> = []
  if (c.status_code === REVERSAL_CLP02) typed.push({ ...detail, type: "payment_review", category: "payment_review", text: `reversal: ${detail.text}` })
  if (c.paid_cents > 0) {
    for (const l of c.service_lines) {
      if (l.paid_cents !== 0 || l.charge_cents <= 0) continue
      typed.push({
        ...base,
        type: "denial_resolution",
        codes: unique(denialCodes(l.adjustments)),
        text: `line ${l.procedure_code} denied, ${formatCents(l.charge_cents)} charged` + (l.adjustments.length === 0 ? "" : `: ${l.adjustments.map(adjustmentText).join("; ")}`)
      })
    }
  }
  return { detail, typed }
}

const unique = (codes: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(codes)]
