import { Either } from "effect"
import type { ClearinghouseSettings } from "../../domain/clearinghouse.js"
import type { EncounterCreate } from "../../domain/encounter-input.js"
import { totalChargeCents } from "../../domain/encounter.js"
import { envelope, interchangeControlNumber, transactionSetControlNumber } from "../envelope.js"
import { ClaimsNotExportable, ExportProblem, InvalidExportRequest, type X12WriteError } from "../errors.js"
import { demographics, nm1, nm1Organization } from "../export-837p/parties.js"
import { type Segment, segment, serialize } from "../segment.js"
import { formatCents, formatDate, isX12Safe, stamp } from "../values.js"

/**
 * The claim status inquiry (276, 005010X212): one interchange, one functional group (GS01 `HR`),
 * one transaction set. Its HL tree is information source (20, the payer), information receiver
 * (21, the submitter), service provider (19, the billing provider), subscriber (22) and, when the
 * patient is not the subscriber, dependent (23); the claim's 2200D/E loop carries the trace number
 * the 277 answers with.
 */

export const IMPLEMENTATION_GUIDE_276 = "005010X212"

/** One claim asked about. */
export interface Inquiry276 {
  /** TRN02: made per inquiry; the 277 names it. */
  readonly trace_number: string
  readonly claim_id: string
  readonly patient_control_number: string
  /** REF*1K, when a response named it. */
  readonly payer_claim_control_number: string | null
  readonly payload: EncounterCreate
  /** DTP*472 RD8: the service date window, YYYY-MM-DD. */
  readonly service_from: string
  readonly service_to: string
}

export interface Export276Input {
  readonly settings: ClearinghouseSettings
  readonly interchange_control_number: number
  readonly group_control_number: number
  readonly created_at: Date
  readonly inquiries: ReadonlyArray<Inquiry276>
}

export type Export276Error = InvalidExportRequest | ClaimsNotExportable | X12WriteError

const MAX_CONTROL = 999_999_999

const problems = (q: Inquiry276, seen: Set<string>): ReadonlyArray<ExportProblem> => {
  const out: Array<ExportProblem> = []
  const add = (field: string, message: string) => out.push(new ExportProblem({ field, message }))
  if (!isX12Safe(q.trace_number) || q.trace_number.length > 50) add("trace_number", "must be 1 to 50 printable characters without * ~ : ^ (TRN02)")
  if (seen.has(q.trace_number)) add("trace_number", "is used by another inquiry of this file")
  seen.add(q.trace_number)
  if (!isX12Safe(q.patient_control_number)) add("patient_control_number", "must be printable without * ~ : ^ (REF*EJ)")
  const s = q.payload.subscriber_primary
  if (s === undefined) add("subscriber_primary", "is required: a status inquiry goes to the primary payer")
  else {
    if (!isX12Safe(s.insurance_card.payer_id)) add("subscriber_primary.insurance_card.payer_id", "must be printable without * ~ : ^")
    if (!isX12Safe(s.insurance_card.member_id)) add("subscriber_primary.insurance_card.member_id", "must be printable without * ~ : ^")
  }
  if (!isX12Safe(q.payload.billing_provider.npi)) add("billing_provider.npi", "must be printable without * ~ : ^")
  return out
}

/** 2200D/E: the claim asked about. */
const claimLoop = (q: Inquiry276): ReadonlyArray<Segment> => [
  segment("TRN", "1", q.trace_number),
  ...(q.payer_claim_control_number !== null && isX12Safe(q.payer_claim_control_number) ? [segment("REF", "1K", q.payer_claim_control_number)] : []),
  segment("REF", "EJ", q.patient_control_number),
  segment("AMT", "T3", formatCents(totalChargeCents(q.payload.service_lines))),
  q.service_from === q.service_to
    ? segment("DTP", "472", "D8", formatDate(q.service_from))
    : segment("DTP", "472", "RD8", `${formatDate(q.service_from)}-${formatDate(q.service_to)}`)
]

/** Inquiries of one payer and one billing provider share their 20/21/19 levels. */
const groupKey = (q: Inquiry276) => JSON.stringify([q.payload.subscriber_primary?.insurance_card.payer_id, q.payload.billing_provider.npi])

/** Builds one 276 interchange; every inquiry must be writable and its trace number unique in the file. */
export const build276 = (input: Export276Input): Either.Either<{ readonly text: string; readonly control_number: string }, Export276Error> => {
  for (const [field, n] of [["interchange_control_number", input.interchange_control_number], ["group_control_number", input.group_control_number]] as const) {
    if (!Number.isInteger(n) || n < 1 || n > MAX_CONTROL) return Either.left(new InvalidExportRequest({ field, reason: `must be an integer from 1 to ${MAX_CONTROL}` }))
  }
  if (input.inquiries.length === 0) return Either.left(new InvalidExportRequest({ field: "inquiries", reason: "must hold at least one inquiry" }))
  const seen = new Set<string>()
  const refused = input.inquiries
    .map((q) => ({ claim_id: q.claim_id, problems: problems(q, seen) }))
    .filter((r) => r.problems.length > 0)
  if (refused.length > 0) return Either.left(new ClaimsNotExportable({ claims: refused }))

  const { settings } = input
  const at = stamp(input.created_at)
  const control = transactionSetControlNumber(1)
  const body: Array<Segment> = [segment("BHT", "0010", "13", `${interchangeControlNumber(input.interchange_control_number)}-${control}`, at.ccyymmdd, at.hhmm)]
  const groups = new Map<string, Array<Inquiry276>>()
  for (const q of input.inquiries) {
    const key = groupKey(q)
    groups.set(key, [...(groups.get(key) ?? []), q])
  }
  let hl = 1
  for (const inquiries of groups.values()) {
    const first = inquiries[0]!
    const card = first.payload.subscriber_primary!.insurance_card
    const provider = first.payload.billing_provider
    const source = hl++
    body.push(segment("HL", String(source), "", "20", "1"), nm1Organization("PR", card.payer_name, "PI", card.payer_id))
    const receiver = hl++
    body.push(segment("HL", String(receiver), String(source), "21", "1"), nm1Organization("41", settings.submitter.name, "46", settings.submitter.id))
    const providerHl = hl++
    body.push(
      segment("HL", String(providerHl), String(receiver), "19", "1"),
      provider.organization_name === undefined ? nm1("1P", provider, "XX", provider.npi) : nm1Organization("1P", provider.organization_name, "XX", provider.npi)
    )
    for (const q of inquiries) {
      const s = q.payload.subscriber_primary!
      const self = s.patient_relationship_to_subscriber_code === "18"
      const subscriberHl = hl++
      const birth = s.date_of_birth ?? (self ? q.payload.patient.date_of_birth : undefined)
      body.push(
        segment("HL", String(subscriberHl), String(providerHl), "22", self ? "0" : "1"),
        ...(birth === undefined ? [] : [demographics(birth, s.gender)]),
        nm1("IL", s, "MI", s.insurance_card.member_id)
      )
      if (self) body.push(...claimLoop(q))
      else {
        body.push(
          segment("HL", String(hl++), String(subscriberHl), "23"),
          demographics(q.payload.patient.date_of_birth, q.payload.patient.gender),
          nm1("QC", q.payload.patient),
          ...claimLoop(q)
        )
      }
    }
  }
  const segments = envelope({
    settings,
    interchange_control_number: input.interchange_control_number,
    group_control_number: input.group_control_number,
    created_at: input.created_at,
    functional_id: "HR",
    transaction_set_id: "276",
    version: IMPLEMENTATION_GUIDE_276,
    transaction_sets: [{ control_number: control, segments: body }]
  })
  return Either.map(serialize(segments), (text) => ({ text, control_number: control }))
}
