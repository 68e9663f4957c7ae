import type { EncounterCreate } from "../domain/encounter-input.js"
import type { RemittanceDiscrepancy } from "../domain/remittance.js"
import type { Claim835 } from "./read/remit-835.js"
import { formatCents } from "./values.js"

/**
 * An 835's claim against the claim as billed: which billed line each paid line is, and what does
 * not agree. A paid line is its billed line when its REF*6R is the line's `external_id` (what the
 * 837P sent as REF*6R); else the first billed line not yet matched with the same procedure code
 * and date of service, whatever the modifiers (payers drop them). What does not agree is flagged:
 * a CLP03 other than the billed total, a line matched by its control number that names another
 * procedure, a line that matches no billed line.
 */

export interface RemittanceMatch {
  /** Per paid line (in the 835's order), the 0-based billed line it is, or undefined. */
  readonly matched: ReadonlyArray<number | undefined>
  readonly discrepancies: ReadonlyArray<RemittanceDiscrepancy>
}

const billedTotal = (p: EncounterCreate) => (p.service_lines ?? []).reduce((sum, l) => sum + (l.charge_amount_cents ?? 0), 0)

export const matchRemittance = (
  claim: Pick<Claim835, "charge_cents" | "service_lines">,
  payload: EncounterCreate
): RemittanceMatch => {
  const discrepancies: Array<RemittanceDiscrepancy> = []
  const billed = billedTotal(payload)
  // A reversal repeats the charge negated.
  if (Math.abs(claim.charge_cents) !== billed) {
    discrepancies.push({
      code: "charge_differs",
      line: null,
      detail: `CLP03 ${formatCents(claim.charge_cents)} is not the billed total ${formatCents(billed)}`
    })
  }
  const lines = payload.service_lines ?? []
  const taken = new Set<number>()
  const matched = claim.service_lines.map((paid, i): number | undefined => {
    const byControl = paid.line_control_number === undefined ? -1 : lines.findIndex((l) => l.external_id === paid.line_control_number)
    if (byControl >= 0) {
      taken.add(byControl)
      const line = lines[byControl]!
      if (line.procedure_code !== paid.procedure_code) {
        discrepancies.push({
          code: "line_procedure_differs",
          line: i,
          detail: `line ${paid.line_control_number} was billed as ${line.procedure_code} and paid as ${paid.procedure_code}`
        })
      }
      return byControl
    }
    const found = lines.findIndex(
      (l, n) =>
        !taken.has(n) &&
        l.procedure_code === paid.procedure_code &&
        (paid.service_date === undefined || (l.date_of_service ?? payload.date_of_service) === paid.service_date)
    )
    if (found >= 0) {
      taken.add(found)
      return found
    }
    discrepancies.push({
      code: "line_unmatched",
      line: i,
      detail: `paid line ${[paid.procedure_code, ...paid.modifiers].join(":")}${paid.service_date === undefined ? "" : ` of ${paid.service_date}`}${paid.line_control_number === undefined ? "" : ` (${paid.line_control_number})`} matches no billed line`
    })
    return undefined
  })
  return { matched, discrepancies }
}
