import { Effect } from "effect"
import type { EncounterCreate } from "../domain/encounter-input.js"
import type { WorkspaceId } from "../domain/ids.js"
import { Storage } from "../ports/storage.js"
import type { Remittance835 } from "../x12/read/remit-835.js"
import { matchRemittance } from "../x12/remittance-match.js"
import { statusFrom835Claim } from "../x12/status-mapping.js"
import type { ImportPlan } from "./x12-import-plan.js"
import { paceBy } from "./x12-import-read.js"
import { detailsOf835 } from "./task-causes-x12.js"

/** Encounters read per query when an 835's CLPs are checked against their claims' payloads; the event loop runs between reads every few milliseconds. */
const PAYLOAD_CHUNK = 100

/**
 * An 835 decides per CLP: each is a remittance of its claim, judged against the status the
 * claim's previous CLP left (a reversal, then its correction). A claim has at most
 * `MAX_CLAIM_PAYMENTS_PER_FILE` of them (x12-import-read.ts), so at most that many outcomes.
 */
export const plan835 = (ws: WorkspaceId, plan: ImportPlan, remit: Remittance835, fileId: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const pcns = [...new Set(remit.payments.flatMap((p) => p.claims.map((c) => c.patient_control_number)))]
    yield* plan.lookUp("patient_control_number", pcns)
    // The payloads of the claims paid, to check each CLP against the claim as billed: read for the
    // next PAYLOAD_CHUNK CLPs at a time, and let go after them (a claim named again later is read again).
    const clps = remit.payments.flatMap((payment) => payment.claims.map((c) => ({ payment, c })))
    const payloads = new Map<string, EncounterCreate>()
    const pace = paceBy()
    for (let k = 0; k < clps.length; k += PAYLOAD_CHUNK) {
      yield* pace
      const window = clps.slice(k, k + PAYLOAD_CHUNK)
      const encounterIds = new Set<string>()
      for (const { c } of window) {
        const t = yield* plan.byPcn(c.patient_control_number)
        if (t !== undefined) encounterIds.add(t.encounterId)
      }
      payloads.clear()
      if (encounterIds.size > 0) for (const e of yield* storage.findEncounters(ws, [...encounterIds])) payloads.set(e.id, e.payload)
      for (const { payment, c } of window) {
        const t = yield* plan.byPcn(c.patient_control_number)
        if (t === undefined) {
          plan.unmatched(c.patient_control_number, `no claim with patient control number ${c.patient_control_number} (835 CLP01)`)
          plan.done()
          continue
        }
        plan.payerControlNumber(t, c.payer_claim_control_number)
        const payload = payloads.get(t.encounterId)
        const match = payload === undefined ? { matched: [], discrepancies: [] } : matchRemittance(c, payload)
        plan.remittance(t, {
          file_id: fileId,
          check_number: payment.trace_number,
          payment_date: payment.payment_date,
          payer_claim_control_number: c.payer_claim_control_number ?? null,
          charge_amount_cents: c.charge_cents,
          paid_amount_cents: c.paid_cents,
          patient_responsibility_cents: c.patient_responsibility_cents ?? null,
          adjustments: c.adjustments.map(({ group, reason, amount_cents }) => ({ group, reason, amount_cents })),
          service_lines: c.service_lines.map((l, n) => {
            const matched = match.matched[n]
            return {
              procedure_code: l.procedure_code,
              ...(l.modifiers.length === 0 ? {} : { modifiers: l.modifiers }),
              ...(l.line_control_number === undefined ? {} : { line_control_number: l.line_control_number }),
              ...(l.service_date === undefined ? {} : { service_date: l.service_date }),
              ...(matched === undefined ? {} : { matched_line: matched }),
              charge_amount_cents: l.charge_cents,
              paid_amount_cents: l.paid_cents,
              adjustments: l.adjustments.map(({ group, reason, amount_cents }) => ({ group, reason, amount_cents }))
            }
          }),
          discrepancies: match.discrepancies
        })
        const { detail, typed } = detailsOf835(c, fileId, payment.trace_number)
        plan.apply(t, statusFrom835Claim(c), detail)
        for (const d of typed) plan.cause(t, d)
        plan.done()
      }
    }
  })
