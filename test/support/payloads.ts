/** A small valid create payload; `overrides` replaces top-level keys. */
export const validPayload = (externalId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  external_id: externalId,
  patient_authorized_release: true,
  benefits_assigned_to_provider: true,
  provider_accepts_assignment: true,
  billable_status: "BILLABLE",
  responsible_party: "SELF_PAY",
  place_of_service_code: "11",
  patient: {
    external_id: "pt-0001",
    first_name: "Avery",
    last_name: "Testpatient",
    gender: "female",
    date_of_birth: "1984-03-27",
    address: { address1: "100 Example St", city: "Boise", state: "ID", zip_code: "83702" }
  },
  billing_provider: {
    organization_name: "Example Clinic",
    npi: "1234567893",
    tax_id: "123456789",
    address: { address1: "200 Fixture Ave", city: "Boise", state: "ID", zip_code: "83702", zip_plus_four_code: "1234" }
  },
  rendering_provider: { first_name: "Quinn", last_name: "Testwell", npi: "1234567893" },
  diagnoses: [{ code_type: "ABK", code: "J01.90" }],
  service_lines: [{ procedure_code: "99213", quantity: "1", units: "UN", diagnosis_pointers: [0], charge_amount_cents: 12500 }],
  ...overrides
})

export const insurancePayload = (externalId: string): Record<string, unknown> =>
  validPayload(externalId, {
    responsible_party: "INSURANCE_PAY",
    subscriber_primary: {
      first_name: "Avery",
      last_name: "Testpatient",
      gender: "female",
      patient_relationship_to_subscriber_code: "18",
      insurance_card: { member_id: "M-1", payer_name: "Example Health", payer_id: "EXH01" }
    }
  })
