import { Schema } from "effect"
import {
  Bool,
  Cents,
  DateString,
  DateTimeString,
  DiagnosisPointer,
  Email,
  List,
  NonEmpty,
  Npi,
  Num,
  oneOf,
  opt,
  Quantity,
  Str,
  TaxId,
  Zip4,
  Zip5
} from "./primitives.js"
import * as V from "./vocab.js"

/**
 * The create payload of `POST /api/encounters`: the vendor's v4 `EncounterCreate` wire shape
 * (snake_case), every field typed, with this service's stricter formats (NPI, tax id, zip, dates).
 * Required keys follow the vendor's serializer; optional keys may be absent or null.
 */

/** The limits of the lists the cross-field rules walk (`crossFieldIssues` skips a list past its limit). */
export const MAX_DIAGNOSES = 50
export const MAX_SERVICE_LINES = 200
export const MAX_DIAGNOSIS_POINTERS = 4

const AddressFields = {
  address1: NonEmpty,
  address2: opt(Str),
  city: NonEmpty,
  state: oneOf("two-letter state code", V.State),
  zip_code: Zip5
}
/** Patient, subscriber and guarantor addresses: the plus-four code is optional. */
export const AddressShortZip = Schema.Struct({ ...AddressFields, zip_plus_four_code: opt(Zip4) })
/** Provider, facility and payer addresses: the plus-four code is required. */
export const AddressLongZip = Schema.Struct({ ...AddressFields, zip_plus_four_code: Zip4 })
export type AddressShortZip = typeof AddressShortZip.Type
export type AddressLongZip = typeof AddressLongZip.Type

const PhoneNumber = Schema.Struct({ number: NonEmpty, type: oneOf("phone type", V.PhoneNumberType) })

const NameFields = { first_name: opt(Str), last_name: opt(Str), organization_name: opt(Str) }

const secondaryId = <A extends readonly [string, ...Array<string>]>(qualifiers: A, qualifierRequired: boolean) =>
  Schema.Struct({
    reference_identification: NonEmpty,
    reference_identification_qualifier: qualifierRequired
      ? oneOf("qualifier", qualifiers)
      : opt(oneOf("qualifier", qualifiers))
  })

export const BillingProvider = Schema.Struct({
  address: AddressLongZip,
  tax_id: TaxId,
  npi: Npi,
  taxonomy_code: opt(Str),
  provider_commercial_license_type: opt(oneOf("license type", V.BillingProviderCommercialLicenseType)),
  secondary_identification: opt(secondaryId(V.BillingSecondaryIdQualifier, false)),
  ...NameFields
})

export const RenderingProvider = Schema.Struct({
  npi: Npi,
  taxonomy_code: opt(Str),
  address: opt(AddressLongZip),
  secondary_identification: opt(secondaryId(V.ProviderSecondaryIdQualifier, false)),
  ...NameFields
})

const ReferringProvider = Schema.Struct({
  npi: Npi,
  taxonomy_code: opt(Str),
  address: opt(AddressLongZip),
  secondary_identification: opt(secondaryId(V.ReferringSecondaryIdQualifier, true)),
  ...NameFields
})

const InitialReferringProvider = Schema.Struct({
  ...ReferringProvider.fields,
  qualifier: opt(oneOf("qualifier code", V.QualifierCode))
})

const SupervisingProvider = Schema.Struct({
  ...ReferringProvider.fields,
  secondary_identification: opt(secondaryId(V.ProviderSecondaryIdQualifier, true))
})

const OrderingProvider = Schema.Struct({
  npi: Npi,
  taxonomy_code: opt(Str),
  address: opt(AddressLongZip),
  ...NameFields
})

const TreatingProvider = Schema.Struct({
  first_name: NonEmpty,
  last_name: NonEmpty,
  npi: opt(Npi),
  taxonomy_code: opt(Str),
  address: opt(AddressLongZip),
  license_type: opt(oneOf("license type", V.LicenseType))
})

const ClinicalTrialInfo = Schema.Struct({ clinical_trial_id: NonEmpty, clinical_trial_arm: opt(Str) })
const NonInsurancePayerInfo = Schema.Struct({
  non_insurance_payer_id: NonEmpty,
  member_id: opt(Str),
  clinical_trial_info: opt(List(ClinicalTrialInfo))
})

export const Patient = Schema.Struct({
  external_id: NonEmpty,
  date_of_birth: DateString,
  address: AddressShortZip,
  first_name: NonEmpty,
  last_name: NonEmpty,
  gender: oneOf("gender", V.Gender),
  phone_numbers: opt(List(PhoneNumber, 20)),
  phone_consent: opt(Bool),
  email: opt(Email),
  non_insurance_payers: opt(List(Str)),
  non_insurance_payers_info: opt(List(NonInsurancePayerInfo)),
  email_consent: opt(Bool),
  auto_charge_consent: opt(Bool)
})
export type Patient = typeof Patient.Type

const ICD10 = /^[A-Z][0-9][0-9AB]\.?[A-Z0-9]{0,4}$/
const ICD10_TYPES: ReadonlyArray<string> = ["ABK", "ABF", "ABJ", "APR"]

export const Diagnosis = Schema.Struct({
  code_type: oneOf("diagnosis code type", V.DiagnosisTypeCode),
  code: NonEmpty,
  name: opt(NonEmpty),
  present_on_admission_indicator: opt(oneOf("indicator", V.YesNoIndicator))
}).pipe(
  Schema.filter((d) =>
    ICD10_TYPES.includes(d.code_type) && !ICD10.test(d.code)
      ? { path: ["code"], message: "must be an ICD-10 code (for example J01.90 or J0190)" }
      : undefined
  )
)
export type Diagnosis = typeof Diagnosis.Type

const DrugIdentification = Schema.Struct({
  service_id_qualifier: oneOf("service id qualifier", V.ServiceIdQualifier),
  national_drug_code: NonEmpty,
  national_drug_unit_count: NonEmpty,
  measurement_unit_code: oneOf("measurement unit", V.MeasurementUnitCode),
  link_sequence_number: opt(Str),
  pharmacy_prescription_number: opt(Str),
  conversion_formula: opt(Str),
  drug_description: opt(Str)
})

const TestResult = Schema.Struct({ value: Num, result_type: oneOf("test result type", V.TestResultType) })

export const ServiceLine = Schema.Struct({
  diagnosis_pointers: List(DiagnosisPointer, MAX_DIAGNOSIS_POINTERS),
  procedure_code: NonEmpty,
  quantity: Quantity,
  units: oneOf("unit", V.ServiceLineUnits),
  modifiers: opt(List(oneOf("procedure modifier", V.ProcedureModifier), 4)),
  has_epsdt_indicator: opt(Bool),
  has_family_planning_indicator: opt(Bool),
  charge_amount_cents: opt(Cents),
  drug_identification: opt(DrugIdentification),
  place_of_service_code: opt(oneOf("place of service code", V.FacilityTypeCode)),
  description: opt(Str),
  date_of_service: opt(DateString),
  end_date_of_service: opt(DateString),
  ordering_provider: opt(OrderingProvider),
  test_results: opt(List(TestResult, 5)),
  note: opt(Str),
  prior_authorization_number: opt(Str),
  external_id: opt(NonEmpty)
})
export type ServiceLine = typeof ServiceLine.Type

export const ServiceFacility = Schema.Struct({
  organization_name: NonEmpty,
  address: AddressLongZip,
  npi: opt(Npi),
  secondary_identification: opt(Str),
  mammography_certification_number: opt(Str)
})
export type ServiceFacility = typeof ServiceFacility.Type

export const InsuranceCard = Schema.Struct({
  member_id: NonEmpty,
  payer_name: NonEmpty,
  payer_id: NonEmpty,
  rx_bin: opt(Str),
  rx_pcn: opt(Str),
  image_url_front: opt(Str),
  image_url_back: opt(Str),
  emr_payer_crosswalk: opt(oneOf("payer crosswalk", V.EmrPayerCrosswalk)),
  payer_plan_group_name: opt(Str),
  group_number: opt(Str),
  plan_name: opt(Str),
  plan_type: opt(oneOf("plan type (source of payment code)", V.SourceOfPaymentCode)),
  insurance_type: opt(oneOf("insurance type code", V.InsuranceTypeCode)),
  payer_plan_group_id: opt(Str),
  payer_address: opt(AddressLongZip)
})

export const Subscriber = Schema.Struct({
  insurance_card: InsuranceCard,
  patient_relationship_to_subscriber_code: oneOf("relationship code", V.PatientRelationshipCode),
  first_name: NonEmpty,
  last_name: NonEmpty,
  gender: oneOf("gender", V.Gender),
  date_of_birth: opt(DateString),
  address: opt(AddressShortZip)
})
export type Subscriber = typeof Subscriber.Type

const ClinicalNote = Schema.Struct({
  text: Str,
  author_name: NonEmpty,
  timestamp: DateTimeString,
  author_npi: opt(Npi)
})
const ClinicalNoteCategory = Schema.Struct({
  category: oneOf("note category", V.NoteCategory),
  notes: List(ClinicalNote)
})

const IntakeFollowUp = Schema.Struct({ id: NonEmpty, text: Str, response: opt(Str) })
const IntakeResponse = Schema.Struct({ response: opt(Str), follow_ups: opt(List(IntakeFollowUp)) })
const IntakeQuestion = Schema.Struct({ id: NonEmpty, text: Str, responses: opt(List(IntakeResponse)) })
const PatientHistory = Schema.Struct({
  category: oneOf("history category", V.PatientHistoryCategory),
  questions: List(IntakeQuestion)
})

const Guarantor = Schema.Struct({
  first_name: NonEmpty,
  last_name: NonEmpty,
  external_id: NonEmpty,
  address: AddressShortZip,
  phone_numbers: opt(List(PhoneNumber, 20)),
  phone_consent: opt(Bool),
  email: opt(Email),
  email_consent: opt(Bool),
  auto_charge_consent: opt(Bool),
  date_of_birth: opt(DateString)
})

const ExternalClaimSubmission = Schema.Struct({
  claim_created_at: DateTimeString,
  patient_control_number: NonEmpty,
  submission_records: List(
    Schema.Struct({
      submitted_at: DateTimeString,
      claim_frequency_code: opt(oneOf("claim frequency code", V.TypeOfBillFrequencyCode)),
      payer_responsibility: opt(oneOf("payer responsibility", V.PayerResponsibility)),
      intended_submission_medium: opt(oneOf("submission medium", V.IntendedSubmissionMedium))
    })
  )
})

export const SchemaInstance = Schema.Struct({
  schema_id: NonEmpty,
  content: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    message: () => "must be an object"
  })
})
export type SchemaInstance = typeof SchemaInstance.Type

const Medication = Schema.Struct({
  name: NonEmpty,
  rx_cui: opt(Str),
  dosage: opt(Str),
  dosage_form: opt(Str),
  frequency: opt(Str),
  as_needed: opt(Bool)
})

const Intervention = Schema.Struct({
  name: NonEmpty,
  category: oneOf("intervention category", V.InterventionCategory),
  description: opt(Str),
  medication: opt(Medication),
  labs: opt(List(Schema.Struct({ name: NonEmpty, code: opt(Str), code_type: opt(oneOf("lab", V.LabCodeType)) })))
})

const Vitals = Schema.Struct({
  height_in: opt(Num),
  weight_lbs: opt(Num),
  blood_pressure_systolic_mmhg: opt(Num),
  blood_pressure_diastolic_mmhg: opt(Num),
  body_temperature_f: opt(Num),
  hemoglobin_gdl: opt(Num),
  hematocrit_pct: opt(Num)
})

const ExternalIdString = NonEmpty.pipe(
  Schema.filter((s) => s.length <= 255, { message: () => "must be at most 255 characters" })
)

/** The vendor's v4 `EncounterCreate`, as this service accepts it. */
export const EncounterCreate = Schema.Struct({
  external_id: ExternalIdString,
  patient_authorized_release: Bool,
  benefits_assigned_to_provider: Bool,
  provider_accepts_assignment: Bool,
  billable_status: oneOf("billable status", V.BillableStatus),
  responsible_party: oneOf("responsible party", V.ResponsibleParty),
  place_of_service_code: oneOf("CMS place of service code", V.FacilityTypeCode),
  patient: Patient,
  billing_provider: BillingProvider,
  rendering_provider: RenderingProvider,
  diagnoses: List(Diagnosis, MAX_DIAGNOSES).pipe(Schema.minItems(1, { message: () => "must have at least one diagnosis" })),
  service_lines: opt(List(ServiceLine, MAX_SERVICE_LINES)),
  referring_provider: opt(ReferringProvider),
  initial_referring_provider: opt(InitialReferringProvider),
  supervising_provider: opt(SupervisingProvider),
  treating_provider: opt(TreatingProvider),
  service_facility: opt(ServiceFacility),
  service_facility_id: opt(NonEmpty),
  subscriber_primary: opt(Subscriber),
  subscriber_secondary: opt(Subscriber),
  subscriber_tertiary: opt(Subscriber),
  prior_authorization_number: opt(Str),
  clinical_notes: opt(List(ClinicalNoteCategory)),
  billing_notes: opt(List(Schema.Struct({ text: NonEmpty }))),
  patient_histories: opt(List(PatientHistory)),
  guarantor: opt(Guarantor),
  external_claim_submission: opt(ExternalClaimSubmission),
  tag_ids: opt(List(NonEmpty)),
  schema_instances: opt(List(SchemaInstance)),
  referral_number: opt(Str),
  epsdt_referral: opt(
    Schema.Struct({
      condition_indicator1: oneOf("condition indicator", V.EpsdtConditionIndicator),
      condition_indicator2: opt(oneOf("condition indicator", V.EpsdtConditionIndicator)),
      condition_indicator3: opt(oneOf("condition indicator", V.EpsdtConditionIndicator))
    })
  ),
  claim_supplemental_information: opt(
    List(
      Schema.Struct({
        attachment_report_type_code: oneOf("report type code", V.ReportTypeCode),
        attachment_transmission_code: oneOf("transmission code", V.ReportTransmissionCode),
        attachment_control_number: opt(Str)
      })
    )
  ),
  secondary_payer_carrier_code: opt(Str),
  related_causes_information: opt(
    Schema.Struct({
      related_causes_code_1: oneOf("related causes code", V.RelatedCausesCode),
      related_causes_code_2: opt(oneOf("related causes code", V.RelatedCausesCode)),
      state_or_province_code: opt(Str)
    })
  ),
  property_casualty_claim_number: opt(Str),
  accident_date: opt(DateString),
  property_casualty_patient_identifier: opt(
    Schema.Struct({
      property_casualty_patient_identifier_qualifier: oneOf("qualifier", V.PropertyCasualtyPatientIdentifierQualifier),
      property_casualty_patient_identifier: NonEmpty
    })
  ),
  date_of_service: opt(DateString),
  end_date_of_service: opt(DateString),
  appointment_type: opt(Str),
  existing_medications: opt(List(Medication)),
  interventions: opt(List(Intervention)),
  pay_to_address: opt(AddressLongZip),
  synchronicity: opt(oneOf("synchronicity", V.SynchronicityType)),
  vitals: opt(Vitals),
  additional_information: opt(Str),
  outside_lab: opt(Bool),
  outside_lab_charges_amount_cents: opt(Cents),
  purchased_service_provider_npi: opt(Npi),
  service_authorization_exception_code: opt(oneOf("exception code", V.ServiceAuthorizationExceptionCode)),
  admission_date: opt(DateString),
  discharge_date: opt(DateString),
  onset_of_current_illness_or_symptom_date: opt(DateString),
  last_menstrual_period_date: opt(DateString),
  delay_reason_code: opt(oneOf("delay reason code", V.DelayReasonCode)),
  /** Not a vendor field: the spec's `metadata`, kept on the normalized encounter. */
  metadata: opt(Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ message: () => "must be an object" })),
  /** Not a vendor create field: a caller-chosen claim number, else one is generated. */
  patient_control_number: opt(
    Schema.String.pipe(
      Schema.filter((s) => /^[A-Z0-9]{1,20}$/.test(s), { message: () => "must be 1 to 20 upper-case letters and digits" })
    )
  )
})
export type EncounterCreate = typeof EncounterCreate.Type
