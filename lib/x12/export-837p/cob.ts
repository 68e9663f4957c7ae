import type { EncounterCreate, ServiceLine, Subscriber } from "../../domain/encounter-input.js"
import type { Remittance } from "../../domain/remittance.js"
import { ExportProblem } from "../errors.js"
import { type Segment, segment } from "../segment.js"
import { cleanText, formatCents, formatDate } from "../values.js"
import { address, nm1, nm1Organization } from "./parties.js"

/**
 * Coordination of benefits on a claim billed to the secondary payer (005010X222A1): loop 2320 (the
 * primary payer, its claim-level adjustments and what it paid), 2330A/2330B (the primary's
 * subscriber and payer) and, for each service line the primary adjudicated, 2430 (SVD, CAS,
 * DTP*573). Amounts come from the primary's remittance (835) as stored.
 */

type RemittanceAdjustment = Remittance["adjustments"][number]
type RemittanceServiceLine = Remittance["service_lines"][number]

/** What a secondary claim carries of its primary: the primary subscriber and the primary payer's remittance. */
export interface PrimaryAdjudication {
  readonly subscriber: Subscriber
  readonly remittance: Remittance
}

/** CAS segments: the adjustments grouped by group code, at most six reason triples per segment. */
const casSegments = (adjustments: ReadonlyArray<RemittanceAdjustment>): ReadonlyArray<Segment> => {
  const byGroup = new Map<string, Array<RemittanceAdjustment>>()
  for (const a of adjustments) byGroup.set(a.group, [...(byGroup.get(a.group) ?? []), a])
  const out: Array<Segment> = []
  for (const [group, list] of byGroup) {
    for (let i = 0; i < list.length; i += 6) {
      out.push(segment("CAS", group, ...list.slice(i, i + 6).flatMap((a) => [a.reason, formatCents(a.amount_cents), ""]).slice(0, -1)))
    }
  }
  return out
}

const sum = (adjustments: ReadonlyArray<RemittanceAdjustment>) => adjustments.reduce((s, a) => s + a.amount_cents, 0)

/**
 * The primary's remittance line for each service line of the claim: the line at the same place
 * when its procedure matches, else the first unused line with the procedure.
 */
export const matchedLines = (lines: ReadonlyArray<ServiceLine>, remitted: ReadonlyArray<RemittanceServiceLine>): ReadonlyArray<RemittanceServiceLine | undefined> => {
  const used = new Set<number>()
  return lines.map((line, i) => {
    const at = remitted[i]?.procedure_code === line.procedure_code && !used.has(i) ? i : remitted.findIndex((r, j) => !used.has(j) && r.procedure_code === line.procedure_code)
    if (at < 0) return undefined
    used.add(at)
    return remitted[at]
  })
}

/** Loops 2320, 2330A and 2330B of a secondary claim: the primary payer as the other payer. */
export const primaryPayerLoops = (p: EncounterCreate, cob: PrimaryAdjudication): ReadonlyArray<Segment> => {
  const s = cob.subscriber
  const card = s.insurance_card
  return [
    segment("SBR", "P", s.patient_relationship_to_subscriber_code === "18" ? "18" : "", card.group_number, "", "", "", "", "", card.plan_type ?? "ZZ"),
    ...casSegments(cob.remittance.adjustments),
    segment("AMT", "D", formatCents(cob.remittance.paid_amount_cents)),
    segment("OI", "", "", p.benefits_assigned_to_provider ? "Y" : "N", "", "", p.patient_authorized_release ? "Y" : "I"),
    nm1("IL", s, "MI", card.member_id),
    ...(s.address === undefined ? [] : address(s.address)),
    nm1Organization("PR", card.payer_name, "PI", card.payer_id),
    ...(cob.remittance.payer_claim_control_number === null ? [] : [segment("REF", "F8", cleanText(cob.remittance.payer_claim_control_number, 50))])
  ]
}

/** Loop 2430 of one service line: what the primary paid for it, its adjustments, when it adjudicated. */
export const lineAdjudication = (cob: PrimaryAdjudication, line: ServiceLine, remitted: RemittanceServiceLine | undefined): ReadonlyArray<Segment> =>
  remitted === undefined
    ? []
    : [
        segment("SVD", cob.subscriber.insurance_card.payer_id, formatCents(remitted.paid_amount_cents), ["HC", line.procedure_code, ...(line.modifiers ?? [])], "", line.quantity),
        ...casSegments(remitted.adjustments),
        segment("DTP", "573", "D8", formatDate(cob.remittance.payment_date))
      ]

/**
 * Why the primary's adjudication cannot be carried: the guide requires, per adjudicated line,
 * charge = paid + line adjustments, and for the claim, charge = paid + claim and line adjustments.
 */
export const cobProblems = (p: EncounterCreate, cob: PrimaryAdjudication): ReadonlyArray<ExportProblem> => {
  const problems: Array<ExportProblem> = []
  const lines = p.service_lines ?? []
  const matched = matchedLines(lines, cob.remittance.service_lines)
  let lineAdjustments = 0
  matched.forEach((r, i) => {
    if (r === undefined) return
    lineAdjustments += sum(r.adjustments)
    const charge = lines[i]?.charge_amount_cents ?? 0
    if (r.paid_amount_cents + sum(r.adjustments) !== charge) {
      problems.push(new ExportProblem({ field: `service_lines[${i}]`, message: `the primary's paid amount and adjustments (2430) do not add up to the line's charge ${formatCents(charge)}` }))
    }
  })
  const charge = lines.reduce((s, l) => s + (l.charge_amount_cents ?? 0), 0)
  if (cob.remittance.paid_amount_cents + sum(cob.remittance.adjustments) + lineAdjustments !== charge) {
    problems.push(new ExportProblem({ field: "subscriber_primary", message: `the primary's paid amount and adjustments (2320, 2430) do not add up to the claim's charge ${formatCents(charge)}` }))
  }
  return problems
}
