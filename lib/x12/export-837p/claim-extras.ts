import type { AddressLongZip, EncounterCreate, ServiceLine } from "../../domain/encounter-input.js"
import { type Element, type Segment, segment } from "../segment.js"
import { formatDate, formatDecimal } from "../values.js"
import { address, nm1 } from "./parties.js"

/**
 * The 837P's places for what a claim may carry beyond the basics (005010X222A1): the pay-to
 * address (2010AB), related causes and the accident (CLM11, DTP*439), the delay reason (CLM20),
 * the referring (2310A) and supervising (2310D) providers, a line's drug (2410) and ordering
 * provider (2420E). `exportability` lists what of these an 837P cannot hold; these only write.
 */

/** CLM11-1 and CLM11-2 in 005010X222A1: auto accident, employment, other accident. */
export const RELATED_CAUSES_837P: ReadonlyArray<string> = ["AA", "EM", "OA"]
/** CLM20 in 005010X222A1. */
export const DELAY_REASONS_837P: ReadonlyArray<string> = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "15"]
/** Causes that make DTP*439 (accident date) required, and without which it is not sent. */
export const ACCIDENT_CAUSES: ReadonlyArray<string> = ["AA", "OA"]

/** An NDC as 2410 LIN03 takes it: 11 digits, in 5-4-2 form, without hyphens. */
export const ndc11 = (code: string): string => code.replaceAll("-", "")

/** 2010AB: the pay-to address, when it is not the billing provider's. */
export const payToLoop = (p: EncounterCreate): ReadonlyArray<Segment> => {
  const to = p.pay_to_address
  if (to === undefined || sameAddress(to, p.billing_provider.address)) return []
  return [segment("NM1", "87", "2"), ...address(to)]
}

const sameAddress = (a: AddressLongZip, b: AddressLongZip) =>
  a.address1 === b.address1 && a.address2 === b.address2 && a.city === b.city && a.state === b.state &&
  a.zip_code === b.zip_code && a.zip_plus_four_code === b.zip_plus_four_code

/** CLM11: related causes, with the auto accident's state (CLM11-4); empty when the claim has none. */
export const relatedCauses = (p: EncounterCreate): Element => {
  const r = p.related_causes_information
  if (r === undefined) return ""
  return [r.related_causes_code_1, r.related_causes_code_2 ?? "", "", r.state_or_province_code ?? ""]
}

/** CLM20: the delay reason code. */
export const delayReason = (p: EncounterCreate): string => p.delay_reason_code ?? ""

/** DTP*439: the accident date, sent with an accident's related cause only. */
export const accidentDate = (p: EncounterCreate): ReadonlyArray<Segment> => {
  const r = p.related_causes_information
  const accident = r !== undefined && [r.related_causes_code_1, r.related_causes_code_2].some((c) => c !== undefined && ACCIDENT_CAUSES.includes(c))
  return accident && p.accident_date !== undefined ? [segment("DTP", "439", "D8", formatDate(p.accident_date))] : []
}

interface SecondaryId {
  readonly reference_identification: string
  readonly reference_identification_qualifier?: string | undefined
}
const secondaryRef = (id: SecondaryId | undefined): ReadonlyArray<Segment> =>
  id === undefined || id.reference_identification_qualifier === undefined ? [] : [segment("REF", id.reference_identification_qualifier, id.reference_identification)]

/** 2310A: the referring provider (NM1*DN, a person) and its secondary id. */
export const referringLoop = (p: EncounterCreate): ReadonlyArray<Segment> => {
  const r = p.referring_provider
  return r === undefined ? [] : [nm1("DN", r, "XX", r.npi), ...secondaryRef(r.secondary_identification)]
}

/** 2310D: the supervising provider (NM1*DQ, a person) and its secondary id. */
export const supervisingLoop = (p: EncounterCreate): ReadonlyArray<Segment> => {
  const s = p.supervising_provider
  return s === undefined ? [] : [nm1("DQ", s, "XX", s.npi), ...secondaryRef(s.secondary_identification)]
}

/** 2410: the line's drug as an NDC (LIN*N4), its quantity and unit (CTP), its prescription or link number. */
export const drugLoop = (line: ServiceLine): ReadonlyArray<Segment> => {
  const d = line.drug_identification
  if (d === undefined) return []
  const ref = d.pharmacy_prescription_number !== undefined && d.pharmacy_prescription_number !== ""
    ? [segment("REF", "XZ", d.pharmacy_prescription_number)]
    : d.link_sequence_number !== undefined && d.link_sequence_number !== ""
      ? [segment("REF", "VY", d.link_sequence_number)]
      : []
  return [
    segment("LIN", "", d.service_id_qualifier, ndc11(d.national_drug_code)),
    segment("CTP", "", "", "", formatDecimal(d.national_drug_unit_count), [d.measurement_unit_code]),
    ...ref
  ]
}

/** 2420E: the ordering provider (NM1*DK), with its address when the payload has one. */
export const orderingLoop = (line: ServiceLine): ReadonlyArray<Segment> => {
  const o = line.ordering_provider
  return o === undefined ? [] : [nm1("DK", o, "XX", o.npi), ...(o.address === undefined ? [] : address(o.address))]
}
