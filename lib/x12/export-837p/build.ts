import { Either } from "effect"
import type { ClearinghouseSettings } from "../../domain/clearinghouse.js"
import type { EncounterCreate, Subscriber } from "../../domain/encounter-input.js"
import { envelope, interchangeControlNumber, type TransactionSetBody, transactionSetControlNumber } from "../envelope.js"
import { ClaimsNotExportable, ExportProblem, InvalidExportRequest, type X12WriteError } from "../errors.js"
import { type Segment, segment, serialize } from "../segment.js"
import { stamp } from "../values.js"
import { billedSubscriberOf, claimLoops, type ExportClaim } from "./claim.js"
import { cobProblems } from "./cob.js"
import { exportability } from "./exportability.js"
import { payToLoop } from "./claim-extras.js"
import { address, nm1, nm1Organization } from "./parties.js"

/** The 837P (005010X222A1) export: one interchange, one functional group, one or more transaction sets. */

export const IMPLEMENTATION_GUIDE_837P = "005010X222A1"

export interface Export837PInput {
  readonly settings: ClearinghouseSettings
  /** ISA13/IEA02. */
  readonly interchange_control_number: number
  /** GS06/GE02. */
  readonly group_control_number: number
  /** ST02 of the first transaction set; the following ones count up from it. */
  readonly first_transaction_set_control_number: number
  readonly created_at: Date
  readonly claims: ReadonlyArray<ExportClaim>
  /** Claims per transaction set (1 to 5000, the guide's limit); defaults to 5000. */
  readonly claims_per_transaction_set?: number
}

export interface Export837PResult {
  readonly text: string
  /** Which claims each transaction set holds, in file order: a 999 accepts or rejects whole sets. */
  readonly transaction_sets: ReadonlyArray<{ readonly control_number: string; readonly claim_ids: ReadonlyArray<string> }>
}

export type Export837PError = InvalidExportRequest | ClaimsNotExportable | X12WriteError


const MAX_CONTROL = 999_999_999
const controlNumber = (field: string, n: number): InvalidExportRequest | undefined =>
  Number.isInteger(n) && n >= 1 && n <= MAX_CONTROL ? undefined : new InvalidExportRequest({ field, reason: `must be an integer from 1 to ${MAX_CONTROL}` })

const PCN = /^[\x21-\x7E]{1,20}$/
const pcnProblems = (pcn: string): ReadonlyArray<ExportProblem> =>
  PCN.test(pcn) && !/[*~:^]/.test(pcn)
    ? []
    : [new ExportProblem({ field: "patient_control_number", message: "must be 1 to 20 printable characters without * ~ : ^ (CLM01)" })]

/** Claims of one billing provider share one 2000A loop; the key is everything that loop writes (its pay-to address too). */
const billingKey = (p: EncounterCreate) => {
  const b = p.billing_provider
  return JSON.stringify([b.npi, b.tax_id, b.taxonomy_code, b.organization_name, b.last_name, b.first_name, b.address, payToLoop(p)])
}

const billingProviderLoop = (p: EncounterCreate, hl: number): ReadonlyArray<Segment> => {
  const b = p.billing_provider
  return [
  segment("HL", String(hl), "", "20", "1"),
  ...(b.taxonomy_code === undefined ? [] : [segment("PRV", "BI", "PXC", b.taxonomy_code)]),
  // An organization name wins over person names: the billing provider is usually a group.
  b.organization_name === undefined ? nm1("85", b, "XX", b.npi) : nm1Organization("85", b.organization_name, "XX", b.npi),
  ...address(b.address),
  segment("REF", "EI", b.tax_id),
  ...payToLoop(p)
]
}

/** A claim that passed the checks, with the primary subscriber it was checked to have. */
interface ReadyClaim {
  readonly claim: ExportClaim
  readonly subscriber: Subscriber
}

const transactionSet = (input: Export837PInput, controlNumber: string, claims: ReadonlyArray<ReadyClaim>) => {
  const { settings } = input
  const at = stamp(input.created_at)
  const submitter = settings.submitter
  const header: Array<Segment> = [
    segment("BHT", "0019", "00", `${interchangeControlNumber(input.interchange_control_number)}-${controlNumber}`, at.ccyymmdd, at.hhmm, "CH"),
    nm1Organization("41", submitter.name, "46", submitter.id),
    segment(
      "PER",
      "IC",
      submitter.contact_name,
      ...(submitter.contact_phone === undefined ? [] : ["TE", submitter.contact_phone]),
      ...(submitter.contact_email === undefined ? [] : ["EM", submitter.contact_email])
    ),
    nm1Organization("40", settings.receiver.name, "46", settings.receiver.id)
  ]
  const groups = new Map<string, { provider: EncounterCreate; claims: Array<ReadyClaim> }>()
  for (const ready of claims) {
    const provider = ready.claim.payload
    const key = billingKey(provider)
    const group = groups.get(key) ?? { provider, claims: [] }
    group.claims.push(ready)
    groups.set(key, group)
  }
  const body = [...header]
  const order: Array<string> = []
  let hl = 1
  for (const group of groups.values()) {
    const billingHl = hl++
    body.push(...billingProviderLoop(group.provider, billingHl))
    for (const { claim, subscriber } of group.claims) {
      const loops = claimLoops(claim, subscriber, hl, billingHl)
      hl += loops.hlCount
      body.push(...loops.segments)
      order.push(claim.claim_id)
    }
  }
  const set: TransactionSetBody = { control_number: controlNumber, segments: body }
  return { set, claim_ids: order }
}

/** A claim billed to the secondary payer needs that subscriber, and the primary's amounts must balance. */
const secondaryProblems = (claim: ExportClaim): ReadonlyArray<ExportProblem> =>
  claim.primary === undefined
    ? []
    : claim.payload.subscriber_secondary === undefined
      ? [new ExportProblem({ field: "subscriber_secondary", message: "is required to bill the secondary payer" })]
      : cobProblems(claim.payload, claim.primary)

/**
 * Builds one 837P interchange. Every claim must pass `exportability` and carry a distinct PCN
 * (responses are matched on it); otherwise nothing is built and every problem is returned.
 */
export const build837P = (input: Export837PInput): Either.Either<Export837PResult, Export837PError> => {
  const perSet = input.claims_per_transaction_set ?? 5000
  const invalid =
    controlNumber("interchange_control_number", input.interchange_control_number) ??
    controlNumber("group_control_number", input.group_control_number) ??
    controlNumber("first_transaction_set_control_number", input.first_transaction_set_control_number) ??
    (Number.isInteger(perSet) && perSet >= 1 && perSet <= 5000
      ? undefined
      : new InvalidExportRequest({ field: "claims_per_transaction_set", reason: "must be an integer from 1 to 5000" })) ??
    (input.claims.length === 0 ? new InvalidExportRequest({ field: "claims", reason: "must hold at least one claim" }) : undefined)
  if (invalid !== undefined) return Either.left(invalid)
  const setCount = Math.ceil(input.claims.length / perSet)
  if (input.first_transaction_set_control_number + setCount - 1 > MAX_CONTROL) {
    return Either.left(new InvalidExportRequest({ field: "first_transaction_set_control_number", reason: `leaves no room for ${setCount} transaction sets` }))
  }

  const seen = new Set<string>()
  const refused: Array<{ claim_id: string; problems: ReadonlyArray<ExportProblem> }> = []
  const ready: Array<ReadyClaim> = []
  for (const claim of input.claims) {
    const duplicate = seen.has(claim.patient_control_number)
      ? [new ExportProblem({ field: "patient_control_number", message: "is used by another claim of this export" })]
      : []
    seen.add(claim.patient_control_number)
    const problems = [...pcnProblems(claim.patient_control_number), ...duplicate, ...exportability(claim.payload), ...secondaryProblems(claim)]
    const subscriber = billedSubscriberOf(claim)
    if (problems.length > 0 || subscriber === undefined) refused.push({ claim_id: claim.claim_id, problems })
    else ready.push({ claim, subscriber })
  }
  if (refused.length > 0) return Either.left(new ClaimsNotExportable({ claims: refused }))

  const sets = Array.from({ length: setCount }, (_, i) =>
    transactionSet(
      input,
      transactionSetControlNumber(input.first_transaction_set_control_number + i),
      ready.slice(i * perSet, (i + 1) * perSet)
    )
  )
  const segments = envelope({
    settings: input.settings,
    interchange_control_number: input.interchange_control_number,
    group_control_number: input.group_control_number,
    created_at: input.created_at,
    functional_id: "HC",
    transaction_set_id: "837",
    version: IMPLEMENTATION_GUIDE_837P,
    transaction_sets: sets.map((s) => s.set)
  })
  return Either.map(serialize(segments), (text) => ({
    text,
    transaction_sets: sets.map((s) => ({ control_number: s.set.control_number, claim_ids: s.claim_ids }))
  }))
}
