import { readdirSync, readFileSync } from "node:fs"
import { makeCreates, toWire } from "../compat/sdk-generator.js"
import { insurancePayload } from "../support/payloads.js"

/**
 * Create bodies for the OpenAPI response checks: together they make the responses carry every
 * optional part of the compat and normalized shapes (the fixtures, varied SDK payloads, and one
 * payload with every optional field the fixtures leave out).
 */

const address = { address1: "1 Main St", address2: "Suite 2", city: "Boise", state: "ID", zip_code: "83702", zip_plus_four_code: "1234" }
const provider = { npi: "1234567893", first_name: "Rey", last_name: "Referrer", taxonomy_code: "207Q00000X", address }

/** Every optional create field the fixtures and the SDK generator do not send. */
export const everythingPayload = (externalId: string): Record<string, unknown> => {
  const base = insurancePayload(externalId)
  const subscriber = base.subscriber_primary
  return {
    ...base,
    patient: {
      external_id: "pt-everything",
      first_name: "Avery",
      last_name: "Testpatient",
      gender: "female",
      date_of_birth: "1984-03-27",
      address,
      email: "avery@example.test",
      phone_numbers: [{ number: "2085550100", type: "Mobile" }],
      phone_consent: true
    },
    subscriber_secondary: subscriber,
    subscriber_tertiary: subscriber,
    referring_provider: { ...provider, secondary_identification: { reference_identification: "X1", reference_identification_qualifier: "G2" } },
    initial_referring_provider: { ...provider, qualifier: "DN" },
    supervising_provider: provider,
    treating_provider: { first_name: "Tia", last_name: "Treater", npi: "1234567893", license_type: "MD", address },
    guarantor: { first_name: "Gus", last_name: "Guarantor", external_id: "g-1", address, email: "g@example.test", date_of_birth: "1970-01-01" },
    service_lines: [
      {
        procedure_code: "J3420",
        quantity: 1.5,
        units: "UN",
        diagnosis_pointers: [0],
        modifiers: ["25"],
        has_epsdt_indicator: false,
        charge_amount_cents: 2500,
        drug_identification: { service_id_qualifier: "N4", national_drug_code: "00000000000", national_drug_unit_count: "1", measurement_unit_code: "ML" },
        place_of_service_code: "11",
        description: "B12",
        date_of_service: "2025-01-02",
        end_date_of_service: "2025-01-03",
        ordering_provider: provider,
        test_results: [{ value: 12.5, result_type: "HEMOGLOBIN" }],
        note: "n",
        external_id: "line-1"
      }
    ],
    clinical_notes: [{ category: "clinical", notes: [{ text: "Seen", author_name: "Dr A", timestamp: "2025-01-02T10:00:00Z", author_npi: "1234567893" }] }],
    billing_notes: [{ text: "bill it" }],
    patient_histories: [{ category: "medical", questions: [{ id: "q1", text: "Q?", responses: [{ response: "A", follow_ups: [{ id: "f1", text: "F?", response: "B" }] }] }] }],
    epsdt_referral: { condition_indicator1: "AV" },
    claim_supplemental_information: [{ attachment_report_type_code: "03", attachment_transmission_code: "AA" }],
    related_causes_information: { related_causes_code_1: "AA" },
    property_casualty_claim_number: "PC-1",
    property_casualty_patient_identifier: { property_casualty_patient_identifier_qualifier: "1W", property_casualty_patient_identifier: "P1" },
    accident_date: "2024-12-30",
    existing_medications: [{ name: "Aspirin", dosage: "81mg" }],
    interventions: [{ name: "Walk", category: "lifestyle", labs: [{ name: "CBC", code_type: "quest" }] }],
    pay_to_address: address,
    synchronicity: "Synchronous",
    vitals: { height_in: 70, weight_lbs: 160 },
    outside_lab: false,
    service_authorization_exception_code: "1",
    admission_date: "2025-01-01",
    discharge_date: "2025-01-04",
    metadata: { source: "test" },
    patient_control_number: "PCN0001"
  }
}

const fixturesDir = new URL("../fixtures/valid/", import.meta.url)

/** Serialized create bodies: fixtures, SDK-generated payloads, the everything payload. */
export const createBodies = (): Array<string> => [
  ...readdirSync(fixturesDir)
    .filter((n) => /^shr-.*\.json$/.test(n))
    .sort()
    .map((n) => readFileSync(new URL(n, fixturesDir), "utf8")),
  ...makeCreates(7_301, 24, "oa").map(toWire),
  JSON.stringify(everythingPayload("openapi-everything"))
]
