import { claimPayload, type EncounterWithClaim } from "../../lib/domain/encounter.js"
import type { EncounterCreate, ServiceLine } from "../../lib/domain/encounter-input.js"
import {
  type CompatAdditionalProvider,
  type CompatGuarantor,
  type CompatPatient,
  type CompatProvider,
  type CompatServiceFacility,
  type CompatSubscriber,
  pick,
  stableId,
  toGuarantor,
  toPatient,
  toProvider,
  toServiceFacility,
  toSubscriber,
  toTreatingProvider
} from "./parts.js"

/**
 * The `compat-version` read: a stored encounter as the vendor's v4 `Encounter` wire JSON
 * (snake_case). The vendor SDK (`candidhealth` 1.33.0) parses it in strict mode: no unknown key,
 * every required key present. One allowance: claim `status` may be `draft` or
 * `submission_bounced`, which the vendor's vocabulary lacks (its own client accepts them).
 * Pure: the same row always maps to the same JSON, generated ids included.
 */

type Payload = EncounterCreate
type Defined<T> = Exclude<T, undefined>

/** Optional create fields the response carries unchanged. */
export const ECHOED = [
  "prior_authorization_number",
  "referral_number",
  "epsdt_referral",
  "claim_supplemental_information",
  "secondary_payer_carrier_code",
  "related_causes_information",
  "property_casualty_claim_number",
  "property_casualty_patient_identifier",
  "accident_date",
  "date_of_service",
  "end_date_of_service",
  "appointment_type",
  "existing_medications",
  "interventions",
  "pay_to_address",
  "synchronicity",
  "vitals",
  "additional_information",
  "outside_lab",
  "outside_lab_charges_amount_cents",
  "purchased_service_provider_npi",
  "service_authorization_exception_code",
  "admission_date",
  "discharge_date",
  "onset_of_current_illness_or_symptom_date",
  "last_menstrual_period_date",
  "delay_reason_code"
] as const satisfies ReadonlyArray<keyof Payload>

export const LINE_KEYS = [
  "modifiers",
  "has_epsdt_indicator",
  "has_family_planning_indicator",
  "charge_amount_cents",
  "drug_identification",
  "place_of_service_code",
  "description",
  "end_date_of_service",
  "test_results",
  "note",
  "prior_authorization_number",
  "external_id"
] as const

/** The response names a line's diagnoses by id, in pointer order, at most four. */
export const DIAGNOSIS_ID_KEYS = ["diagnosis_id_zero", "diagnosis_id_one", "diagnosis_id_two", "diagnosis_id_three"] as const
type DiagnosisIdKey = (typeof DIAGNOSIS_ID_KEYS)[number]

export type CompatServiceLine =
  & Pick<ServiceLine, "procedure_code" | "quantity" | "units" | (typeof LINE_KEYS)[number]>
  & { readonly [K in DiagnosisIdKey]?: string }
  & {
    readonly service_line_id: string
    readonly claim_id: string
    readonly created_at: string
    readonly date_of_service: string
    readonly date_of_service_range: { readonly start_date: string; readonly end_date?: string }
    readonly ordering_provider?: CompatProvider
  }

/** A remittance in the vendor's words: one ERA (835) that named the claim. */
export interface CompatEra {
  readonly era_id: string
  readonly check_number: string
  readonly check_date: string
}

export interface CompatClaim {
  readonly claim_id: string
  readonly status: string
  readonly service_lines: ReadonlyArray<CompatServiceLine>
  readonly eras: ReadonlyArray<CompatEra>
}

type DiagnosisIn = Payload["diagnoses"][number]
export type CompatDiagnosis = DiagnosisIn & {
  readonly diagnosis_id: string
  readonly encounter_id: string
  readonly created_at: string
  readonly updated_at: string
}

type NoteIn = Defined<Payload["clinical_notes"]>[number]["notes"][number]
export interface CompatClinicalNoteCategory {
  readonly category: Defined<Payload["clinical_notes"]>[number]["category"]
  readonly notes: ReadonlyArray<string>
  readonly notes_structured: ReadonlyArray<NoteIn>
}

export interface CompatBillingNote {
  readonly billing_note_id: string
  readonly encounter_id: string
  readonly created_at: string
  readonly text: string
}

/** A type alias, not an interface, so it stays assignable to `Record<string, unknown>`. */
export type CompatEncounter =
  & Pick<
    Payload,
    | "external_id"
    | "patient_authorized_release"
    | "benefits_assigned_to_provider"
    | "provider_accepts_assignment"
    | "billable_status"
    | "responsible_party"
    | "place_of_service_code"
    | (typeof ECHOED)[number]
  >
  & {
    readonly encounter_id: string
    readonly created_at: string
    readonly url: string
    readonly patient_control_number: string
    readonly owner_of_next_action: "NONE"
    readonly submission_origin: "EXTERNAL"
    readonly claims: ReadonlyArray<CompatClaim>
    readonly patient: CompatPatient
    readonly billing_provider: CompatProvider
    readonly rendering_provider: CompatProvider
    readonly referring_provider?: CompatProvider
    readonly initial_referring_provider?: CompatProvider
    readonly supervising_provider?: CompatProvider
    readonly treating_provider?: CompatAdditionalProvider
    readonly service_facility: CompatServiceFacility
    readonly subscriber_primary?: CompatSubscriber
    readonly subscriber_secondary?: CompatSubscriber
    readonly subscriber_tertiary?: CompatSubscriber
    readonly guarantor?: CompatGuarantor
    readonly diagnoses: ReadonlyArray<CompatDiagnosis>
    readonly clinical_notes: ReadonlyArray<CompatClinicalNoteCategory>
    readonly billing_notes?: ReadonlyArray<CompatBillingNote>
    readonly patient_histories: Defined<Payload["patient_histories"]>
    readonly patient_payments: ReadonlyArray<never>
    readonly tags: ReadonlyArray<never>
    readonly schema_instances: Defined<Payload["schema_instances"]>
  }

/** `{ key: f(value) }` when the value is present, else `{}`: absent stays absent. */
const optional = <K extends string, A, B>(key: K, value: A | undefined, f: (a: A) => B): { readonly [P in K]?: B } => {
  const out: { [P in K]?: B } = {}
  if (value !== undefined) out[key] = f(value)
  return out
}

/**
 * A line's dates: its own, else the encounter's, else the day the encounter was recorded (the
 * response requires a date of service; create does not). Start and end come from the same
 * source, so a line's own start is never paired with the encounter's end.
 */
const lineDates = (line: ServiceLine, p: Payload, createdAt: string): CompatServiceLine["date_of_service_range"] => {
  const [start, end] = line.date_of_service !== undefined
    ? [line.date_of_service, line.end_date_of_service]
    : p.date_of_service !== undefined
    ? [p.date_of_service, p.end_date_of_service]
    : [createdAt.slice(0, 10), undefined]
  return end === undefined ? { start_date: start } : { start_date: start, end_date: end }
}

export const toCompatEncounter = ({ encounter: e, claim, remittances = [], all_claims }: EncounterWithClaim, baseUrl: string): CompatEncounter => {
  const p = e.payload
  const id = (kind: string, index = 0) => stableId(e.id, kind, index)
  const billingAddress = p.billing_provider.address
  const provider = (kind: string) => (x: Parameters<typeof toProvider>[0]) => toProvider(x, id(kind), billingAddress)

  const diagnoses: ReadonlyArray<CompatDiagnosis> = p.diagnoses.map((d, i) => ({
    diagnosis_id: id("diagnosis", i),
    encounter_id: e.id,
    created_at: e.created_at,
    updated_at: e.created_at,
    ...d
  }))

  // Each claim's lines are those of the content it was billed from (its own, or the encounter's).
  const serviceLinesOf = (p: Payload, claimId: string) => (p.service_lines ?? []).map((l, i): CompatServiceLine => {
    // Pointers are zero-based indexes into `diagnoses`; intake rejects out-of-range ones.
    const pointed: { [K in DiagnosisIdKey]?: string } = {}
    l.diagnosis_pointers.forEach((ptr, n) => {
      const key = DIAGNOSIS_ID_KEYS[n]
      const target = diagnoses[ptr]
      if (key !== undefined && target !== undefined) pointed[key] = target.diagnosis_id
    })
    const range = lineDates(l, p, e.created_at)
    return {
      service_line_id: id("service_line", i),
      claim_id: claimId,
      created_at: e.created_at,
      procedure_code: l.procedure_code,
      quantity: l.quantity,
      units: l.units,
      ...pick(l, LINE_KEYS),
      ...pointed,
      date_of_service: range.start_date,
      date_of_service_range: range,
      ...optional("ordering_provider", l.ordering_provider, provider(`ordering_provider/${i}`))
    }
  })

  return {
    encounter_id: e.id,
    external_id: e.external_id,
    created_at: e.created_at,
    url: `${baseUrl.replace(/\/+$/, "")}/api/encounters/${e.id}`,
    // The claim's number, not the payload's key (absent when the service generated one).
    patient_control_number: claim.patient_control_number,
    patient_authorized_release: p.patient_authorized_release,
    benefits_assigned_to_provider: p.benefits_assigned_to_provider,
    provider_accepts_assignment: p.provider_accepts_assignment,
    billable_status: p.billable_status,
    responsible_party: p.responsible_party,
    place_of_service_code: p.place_of_service_code,
    // Nothing is pending on anyone in this service's model, and every encounter came from an API caller.
    owner_of_next_action: "NONE",
    submission_origin: "EXTERNAL",
    // Every claim, oldest first, when the read has them (`all_claims`); else the latest, the only one.
    claims: (all_claims ?? [{ claim, remittances }]).map((c) => ({
      claim_id: c.claim.id,
      status: c.claim.status,
      service_lines: serviceLinesOf(claimPayload(p, c.claim), c.claim.id),
      eras: c.remittances.map((r) => ({ era_id: r.id, check_number: r.check_number, check_date: r.payment_date }))
    })),
    patient: toPatient(p.patient, id("patient")),
    billing_provider: provider("billing_provider")(p.billing_provider),
    rendering_provider: provider("rendering_provider")(p.rendering_provider),
    ...optional("referring_provider", p.referring_provider, provider("referring_provider")),
    ...optional("initial_referring_provider", p.initial_referring_provider, provider("initial_referring_provider")),
    ...optional("supervising_provider", p.supervising_provider, provider("supervising_provider")),
    ...optional("treating_provider", p.treating_provider, (t) => toTreatingProvider(t, id("treating_provider"))),
    service_facility: toServiceFacility(p, id("service_facility")),
    ...optional("subscriber_primary", p.subscriber_primary, (s) =>
      toSubscriber(s, id("subscriber_primary"), id("insurance_card/primary"))),
    ...optional("subscriber_secondary", p.subscriber_secondary, (s) =>
      toSubscriber(s, id("subscriber_secondary"), id("insurance_card/secondary"))),
    ...optional("subscriber_tertiary", p.subscriber_tertiary, (s) =>
      toSubscriber(s, id("subscriber_tertiary"), id("insurance_card/tertiary"))),
    ...optional("guarantor", p.guarantor, (g) => toGuarantor(g, id("guarantor"))),
    diagnoses,
    clinical_notes: (p.clinical_notes ?? []).map((c) => ({
      category: c.category,
      notes: c.notes.map((n) => n.text),
      notes_structured: c.notes
    })),
    ...optional("billing_notes", p.billing_notes, (notes) =>
      notes.map((n, i) => ({
        billing_note_id: id("billing_note", i),
        encounter_id: e.id,
        created_at: e.created_at,
        text: n.text
      }))),
    patient_histories: p.patient_histories ?? [],
    // No payments, tags or remittances are kept by this service; `tag_ids` name tags it cannot expand.
    patient_payments: [],
    tags: [],
    schema_instances: p.schema_instances ?? [],
    ...pick(p, ECHOED)
  }
}
