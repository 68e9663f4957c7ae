import type { Diagnosis, EncounterCreate, ServiceLine, Subscriber } from "../../domain/encounter-input.js"
import { type Segment, segment } from "../segment.js"
import { cleanText, formatCents, formatDate, formatDecimal, isX12Safe } from "../values.js"
import { accidentDate, delayReason, drugLoop, orderingLoop, referringLoop, relatedCauses, supervisingLoop } from "./claim-extras.js"
import { lineAdjudication, matchedLines, type PrimaryAdjudication, primaryPayerLoops } from "./cob.js"
import { address, demographics, nm1, nm1Organization, patientRelationship } from "./parties.js"

/** One claim of an export: the stored claim's id and PCN, and the content it is billed from. */
export interface ExportClaim {
  readonly claim_id: string
  readonly patient_control_number: string
  readonly payload: EncounterCreate
  /** CLM05-3: `1` (the default) an original, `7` a replacement, `8` a void. */
  readonly frequency_code?: string | undefined
  /** REF*F8 of a replacement or void: the payer's number of the claim it cancels. */
  readonly original_payer_claim_control_number?: string | null | undefined
  /** A claim billed to the secondary payer: the primary's adjudication (COB, see `cob.ts`). */
  readonly primary?: PrimaryAdjudication | undefined
}

/** The subscriber whose payer the claim bills (2000B): the secondary for a claim with a `primary`, else the primary. */
export const billedSubscriberOf = (claim: ExportClaim): Subscriber | undefined =>
  claim.primary === undefined ? claim.payload.subscriber_primary : claim.payload.subscriber_secondary

/**
 * HI lists the principal diagnosis first (the first ABK of the payload, else its first code),
 * then the others in payload order. `position[i]` is the 1-based HI position of payload
 * diagnosis `i`, which is what SV107 points at (the payload's pointers are zero-based).
 */
export const diagnosisOrder = (diagnoses: ReadonlyArray<Diagnosis>) => {
  const principal = Math.max(0, diagnoses.findIndex((d) => d.code_type === "ABK"))
  const order = [principal, ...diagnoses.map((_, i) => i).filter((i) => i !== principal)]
  const position = new Map(order.map((payloadIndex, i) => [payloadIndex, i + 1]))
  return { order, position }
}

const optionalRef = (qualifier: string, value: string | undefined, max = 50): ReadonlyArray<Segment> =>
  value !== undefined && isX12Safe(value) && value.length <= max ? [segment("REF", qualifier, value)] : []

const date = (qualifier: string, value: string | undefined): ReadonlyArray<Segment> =>
  value === undefined ? [] : [segment("DTP", qualifier, "D8", formatDate(value))]

const yesNo = (b: boolean) => (b ? "Y" : "N")

/** SBR09: the card's source of payment code, or ZZ (mutually defined) when the card has none. */
const subscriberInfo = (responsibility: string, relationship: string, s: Subscriber): Segment => {
  const card = s.insurance_card
  const groupName = card.group_number === undefined && card.payer_plan_group_name !== undefined
    ? cleanText(card.payer_plan_group_name, 60)
    : ""
  return segment("SBR", responsibility, relationship, card.group_number, groupName, "", "", "", "", card.plan_type ?? "ZZ")
}

const payer = (s: Subscriber): ReadonlyArray<Segment> => [
  nm1Organization("PR", s.insurance_card.payer_name, "PI", s.insurance_card.payer_id),
  ...(s.insurance_card.payer_address === undefined ? [] : address(s.insurance_card.payer_address))
]

/** Loops 2320/2330A/2330B: the secondary payer, so the primary can coordinate benefits. */
const otherSubscriber = (p: EncounterCreate, s: Subscriber): ReadonlyArray<Segment> => {
  const relationship = s.patient_relationship_to_subscriber_code === "18" ? "18" : patientRelationship(s.patient_relationship_to_subscriber_code)
  return [
    subscriberInfo("S", relationship, s),
    segment("OI", "", "", yesNo(p.benefits_assigned_to_provider), "", "", p.patient_authorized_release ? "Y" : "I"),
    nm1("IL", s, "MI", s.insurance_card.member_id),
    ...(s.address === undefined ? [] : address(s.address)),
    ...payer(s)
  ]
}

const serviceLine = (p: EncounterCreate, line: ServiceLine, n: number, position: Map<number, number>): ReadonlyArray<Segment> => {
  const start = line.date_of_service ?? p.date_of_service ?? ""
  const end = line.end_date_of_service ?? (line.date_of_service === undefined ? p.end_date_of_service : undefined)
  const dtp = end === undefined || end === start
    ? segment("DTP", "472", "D8", formatDate(start))
    : segment("DTP", "472", "RD8", `${formatDate(start)}-${formatDate(end)}`)
  const placeOfService = line.place_of_service_code !== undefined && line.place_of_service_code !== p.place_of_service_code
    ? line.place_of_service_code
    : ""
  return [
    segment("LX", String(n)),
    segment(
      "SV1",
      ["HC", line.procedure_code, ...(line.modifiers ?? [])],
      formatCents(line.charge_amount_cents ?? 0),
      line.units,
      formatDecimal(line.quantity),
      placeOfService,
      "",
      line.diagnosis_pointers.map((i) => String(position.get(i) ?? i + 1)),
      "",
      "",
      "",
      line.has_epsdt_indicator === true ? "Y" : "",
      line.has_family_planning_indicator === true ? "Y" : ""
    ),
    dtp,
    ...optionalRef("G1", line.prior_authorization_number),
    // The line item control number comes back in the 835 (REF*6R) to match paid lines.
    ...optionalRef("6R", line.external_id),
    ...drugLoop(line),
    ...orderingLoop(line)
  ]
}

/**
 * Loops 2000B (subscriber, payer), 2000C (patient, when not the subscriber), 2300 (claim),
 * 2310A-D (referring, rendering, service facility, supervising), 2320 (secondary payer) and 2400
 * (lines, with their drug, 2410, and ordering provider, 2420E).
 * `s` is the primary subscriber; `hl` is this claim's subscriber HL id and the patient HL, when
 * written, is `hl + 1`.
 */
export const claimLoops = (
  claim: ExportClaim,
  s: Subscriber,
  hl: number,
  parentHl: number
): { segments: ReadonlyArray<Segment>; hlCount: number } => {
  const p = claim.payload
  const self = s.patient_relationship_to_subscriber_code === "18"
  const subscriberAddress = s.address ?? (self ? p.patient.address : undefined)
  const subscriberBirth = s.date_of_birth ?? (self ? p.patient.date_of_birth : undefined)
  const subscriber: Array<Segment> = [
    segment("HL", String(hl), String(parentHl), "22", self ? "0" : "1"),
    subscriberInfo(claim.primary === undefined ? "P" : "S", self ? "18" : "", s),
    nm1("IL", s, "MI", s.insurance_card.member_id),
    ...(subscriberAddress === undefined ? [] : address(subscriberAddress)),
    ...(subscriberBirth === undefined ? [] : [demographics(subscriberBirth, s.gender)]),
    ...payer(s)
  ]
  const patient: ReadonlyArray<Segment> = self
    ? []
    : [
        segment("HL", String(hl + 1), String(hl), "23", "0"),
        segment("PAT", patientRelationship(s.patient_relationship_to_subscriber_code)),
        nm1("QC", p.patient),
        ...address(p.patient.address),
        demographics(p.patient.date_of_birth, p.patient.gender)
      ]

  const lines = p.service_lines ?? []
  const adjudicated = claim.primary === undefined ? undefined : { primary: claim.primary, lines: matchedLines(lines, claim.primary.remittance.service_lines) }
  const total = lines.reduce((sum, l) => sum + (l.charge_amount_cents ?? 0), 0)
  const { order, position } = diagnosisOrder(p.diagnoses)
  const hi = order.map((i, k) => [k === 0 ? "ABK" : "ABF", (p.diagnoses[i]?.code ?? "").replaceAll(".", "")])
  const rp = p.rendering_provider
  const facility = p.service_facility
  const claimSegments: ReadonlyArray<Segment> = [
    segment(
      "CLM",
      claim.patient_control_number,
      formatCents(total),
      "",
      "",
      [p.place_of_service_code, "B", claim.frequency_code ?? "1"],
      "Y",
      p.provider_accepts_assignment ? "A" : "C",
      yesNo(p.benefits_assigned_to_provider),
      p.patient_authorized_release ? "Y" : "I",
      "",
      relatedCauses(p),
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      delayReason(p)
    ),
    // 2300's DTP and REF segments in the guide's order.
    ...date("431", p.onset_of_current_illness_or_symptom_date),
    ...accidentDate(p),
    ...date("484", p.last_menstrual_period_date),
    ...date("435", p.admission_date),
    ...date("096", p.discharge_date),
    ...optionalRef("4N", p.service_authorization_exception_code),
    ...optionalRef("9F", p.referral_number),
    ...optionalRef("G1", p.prior_authorization_number),
    ...(claim.frequency_code === "7" || claim.frequency_code === "8" ? optionalRef("F8", claim.original_payer_claim_control_number ?? undefined) : []),
    segment("HI", ...hi),
    ...referringLoop(p),
    // 2310B only when the rendering provider is not the billing provider (the guide's rule).
    ...(rp.npi === p.billing_provider.npi
      ? []
      : [nm1("82", rp, "XX", rp.npi), ...(rp.taxonomy_code === undefined ? [] : [segment("PRV", "PE", "PXC", rp.taxonomy_code)])]),
    ...(facility === undefined
      ? []
      : [
          nm1Organization("77", facility.organization_name, facility.npi === undefined ? undefined : "XX", facility.npi),
          ...address(facility.address)
        ]),
    ...supervisingLoop(p),
    ...(claim.primary !== undefined
      ? primaryPayerLoops(p, claim.primary)
      : p.subscriber_secondary === undefined ? [] : otherSubscriber(p, p.subscriber_secondary)),
    ...lines.flatMap((line, i) => [...serviceLine(p, line, i + 1, position), ...(adjudicated === undefined ? [] : lineAdjudication(adjudicated.primary, line, adjudicated.lines[i]))])
  ]
  return { segments: [...subscriber, ...patient, ...claimSegments], hlCount: self ? 1 : 2 }
}
