import { Schema } from "effect"
import { Diagnosis, EncounterCreate, SchemaInstance, ServiceLine } from "../../lib/domain/encounter-input.js"
import { DateString, DateTimeString, NonEmpty, Npi, oneOf, opt, Str } from "../../lib/domain/primitives.js"
import * as V from "../../lib/domain/vocab.js"
import type * as Built from "./encounter.js"
import { ECHOED, LINE_KEYS } from "./encounter.js"
import type * as BuiltParts from "./parts.js"
import {
  AlwaysEmpty,
  CompatAdditionalProvider,
  CompatGuarantor,
  CompatInsuranceCard,
  CompatPatient,
  CompatProvider,
  CompatServiceFacility,
  CompatSubscriber,
  Id,
  LongAddress
} from "./schema-parts.js"

/**
 * The compat (vendor v4) Encounter response as a schema, for the API description: every key that
 * `toCompatEncounter` writes, with its type. The key sets are checked against the builder's types
 * at compile time (below); `test/http/openapi.test.ts` checks real responses against it.
 */

const optionalDiagnosisId = opt(Schema.String.annotations({ description: "A diagnosis_id of this encounter, in pointer order" }))

export const CompatServiceLine = Schema.Struct({
  service_line_id: Id,
  claim_id: Schema.String,
  created_at: Schema.String,
  ...ServiceLine.pick("procedure_code", "units", ...LINE_KEYS).fields,
  quantity: Schema.String.annotations({ description: "A decimal string, as the vendor writes it" }),
  diagnosis_id_zero: optionalDiagnosisId,
  diagnosis_id_one: optionalDiagnosisId,
  diagnosis_id_two: optionalDiagnosisId,
  diagnosis_id_three: optionalDiagnosisId,
  date_of_service: DateString,
  date_of_service_range: Schema.Struct({ start_date: DateString, end_date: opt(DateString) }),
  ordering_provider: opt(CompatProvider)
}).annotations({ identifier: "CompatServiceLine" })

export const CompatClaim = Schema.Struct({
  claim_id: Schema.String,
  status: Schema.String.annotations({ description: "The claim status (also draft or submission_bounced, which the vendor's list lacks)" }),
  service_lines: Schema.Array(CompatServiceLine),
  eras: Schema.Array(
    Schema.Struct({ era_id: Schema.String, check_number: Schema.String, check_date: DateString }).annotations({
      identifier: "CompatEra",
      description: "A remittance (835) that named the claim: its id, the check or EFT trace number and the payment date"
    })
  )
}).annotations({ identifier: "CompatClaim" })

export const CompatDiagnosis = Schema.Struct({
  diagnosis_id: Id,
  encounter_id: Schema.String,
  created_at: Schema.String,
  updated_at: Schema.String,
  ...Diagnosis.from.fields
}).annotations({ identifier: "CompatDiagnosis" })

const ClinicalNote = Schema.Struct({ text: Str, author_name: NonEmpty, timestamp: DateTimeString, author_npi: opt(Npi) })

export const CompatClinicalNoteCategory = Schema.Struct({
  category: oneOf("note category", V.NoteCategory),
  notes: Schema.Array(Schema.String).annotations({ description: "The notes' texts" }),
  notes_structured: Schema.Array(ClinicalNote)
}).annotations({ identifier: "CompatClinicalNoteCategory" })

export const CompatBillingNote = Schema.Struct({
  billing_note_id: Id,
  encounter_id: Schema.String,
  created_at: Schema.String,
  text: Schema.String
}).annotations({ identifier: "CompatBillingNote" })

const FollowUp = Schema.Struct({ id: NonEmpty, text: Str, response: opt(Str) })
const Question = Schema.Struct({
  id: NonEmpty,
  text: Str,
  responses: opt(Schema.Array(Schema.Struct({ response: opt(Str), follow_ups: opt(Schema.Array(FollowUp)) })))
})
export const PatientHistory = Schema.Struct({
  category: oneOf("history category", V.PatientHistoryCategory),
  questions: Schema.Array(Question)
}).annotations({ identifier: "PatientHistory" })

export const CompatEncounter = Schema.Struct({
  encounter_id: Schema.String,
  created_at: Schema.String,
  url: Schema.String.annotations({ description: "This encounter under the server's public URL" }),
  patient_control_number: Schema.String,
  ...EncounterCreate.pick(
    "external_id",
    "patient_authorized_release",
    "benefits_assigned_to_provider",
    "provider_accepts_assignment",
    "billable_status",
    "responsible_party",
    "place_of_service_code",
    ...ECHOED
  ).fields,
  pay_to_address: opt(LongAddress),
  owner_of_next_action: Schema.Literal("NONE"),
  submission_origin: Schema.Literal("EXTERNAL"),
  claims: Schema.Array(CompatClaim).annotations({ description: "One entry: the latest claim" }),
  patient: CompatPatient,
  billing_provider: CompatProvider,
  rendering_provider: CompatProvider,
  referring_provider: opt(CompatProvider),
  initial_referring_provider: opt(CompatProvider),
  supervising_provider: opt(CompatProvider),
  treating_provider: opt(CompatAdditionalProvider),
  service_facility: CompatServiceFacility,
  subscriber_primary: opt(CompatSubscriber),
  subscriber_secondary: opt(CompatSubscriber),
  subscriber_tertiary: opt(CompatSubscriber),
  guarantor: opt(CompatGuarantor),
  diagnoses: Schema.Array(CompatDiagnosis),
  clinical_notes: Schema.Array(CompatClinicalNoteCategory),
  billing_notes: opt(Schema.Array(CompatBillingNote)),
  patient_histories: Schema.Array(PatientHistory),
  patient_payments: AlwaysEmpty,
  tags: AlwaysEmpty,
  schema_instances: Schema.Array(SchemaInstance)
}).annotations({
  identifier: "CompatEncounter",
  description: "The claims vendor's v4 Encounter wire shape (snake_case), with the latest claim in claims[0]"
})

/** True when both types name exactly the same keys. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false
type Row<T> = T extends ReadonlyArray<infer E> ? E : T

type Assert<T extends true> = T

// A key the builder writes and the schema lacks (or the reverse) fails the type check here.
export type KeysMatchBuilder = [
  Assert<SameKeys<Built.CompatEncounter, typeof CompatEncounter.Type>>,
  Assert<SameKeys<Built.CompatClaim, typeof CompatClaim.Type>>,
  Assert<SameKeys<Built.CompatServiceLine, typeof CompatServiceLine.Type>>,
  Assert<SameKeys<Built.CompatDiagnosis, typeof CompatDiagnosis.Type>>,
  Assert<SameKeys<Built.CompatClinicalNoteCategory, typeof CompatClinicalNoteCategory.Type>>,
  Assert<SameKeys<Built.CompatBillingNote, typeof CompatBillingNote.Type>>,
  Assert<SameKeys<Row<Built.CompatEncounter["patient_histories"]>, typeof PatientHistory.Type>>,
  Assert<SameKeys<BuiltParts.CompatProvider, typeof CompatProvider.Type>>,
  Assert<SameKeys<BuiltParts.CompatAdditionalProvider, typeof CompatAdditionalProvider.Type>>,
  Assert<SameKeys<BuiltParts.CompatPatient, typeof CompatPatient.Type>>,
  Assert<SameKeys<BuiltParts.CompatInsuranceCard, typeof CompatInsuranceCard.Type>>,
  Assert<SameKeys<BuiltParts.CompatSubscriber, typeof CompatSubscriber.Type>>,
  Assert<SameKeys<BuiltParts.CompatGuarantor, typeof CompatGuarantor.Type>>,
  Assert<SameKeys<BuiltParts.CompatServiceFacility, typeof CompatServiceFacility.Type>>
]
