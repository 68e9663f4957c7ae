import { describe, expect, test } from "bun:test"
import { ClaimsNotExportable, InvalidExportRequest } from "../../lib/x12/errors.js"
import { build837P, type Export837PInput } from "../../lib/x12/export-837p/build.js"
import { exportability } from "../../lib/x12/export-837p/exportability.js"
import { asPayload, encounter, left, rawEncounter, settings } from "./helpers.js"

const problems = (name: string, overrides: Record<string, unknown> = {}) =>
  exportability(asPayload({ ...rawEncounter(name), ...overrides })).map((p) => `${p.field}: ${p.message}`)

describe("exportability", () => {
  test("an insured, billable encounter with priced, dated lines is exportable", () => {
    for (const name of ["shr-001-ophthalmology", "shr-005-nutrition-counseling", "shr-007-b12-injection", "shr-010-telehealth-psychotherapy-60"]) {
      expect(problems(name)).toEqual([])
    }
  })

  test("self-pay and unknown payers, not billable, no subscriber", () => {
    expect(problems("shr-002-allergy-injections")).toEqual([
      "responsible_party: is SELF_PAY: only claims billed to insurance are exported",
      "subscriber_primary: is required to bill a payer"
    ])
    expect(problems("shr-012-sleep-study")).toEqual([
      "billable_status: is NOT_BILLABLE: only billable encounters are exported",
      "responsible_party: is UNKNOWN: only claims billed to insurance are exported",
      "subscriber_primary: is required to bill a payer"
    ])
  })

  test("lines: none, unpriced, undated, malformed procedure code, too many", () => {
    expect(problems("shr-003-chiropractic")).toEqual(["service_lines: must have at least one line to bill"])
    expect(problems("shr-011-acupuncture")).toEqual(["service_lines[0].charge_amount_cents: is required to bill the line"])
    const line = { procedure_code: "9921", quantity: "1", units: "UN", diagnosis_pointers: [0], charge_amount_cents: 100 }
    expect(problems("shr-001-ophthalmology", { date_of_service: null, service_lines: [line] })).toEqual([
      "service_lines[0].procedure_code: must be a 5-character CPT or HCPCS code",
      "service_lines[0].date_of_service: is required when the encounter has no date_of_service"
    ])
    const many = Array.from({ length: 51 }, () => ({ ...line, procedure_code: "99213" }))
    expect(problems("shr-001-ophthalmology", { service_lines: many })).toEqual(["service_lines: has 51 lines; an 837P claim carries at most 50"])
  })

  test("payer and member ids must go out unchanged: delimiters and bad lengths are refused", () => {
    const card = encounter("shr-001-ophthalmology").subscriber_primary!
    const subscriber = (insurance_card: object) => ({ subscriber_primary: { ...card, insurance_card: { ...card.insurance_card, ...insurance_card } } })
    expect(problems("shr-001-ophthalmology", subscriber({ member_id: "AB*123", payer_id: "X" }))).toEqual([
      "subscriber_primary.insurance_card.payer_id: must be 2 to 80 characters in an 837P",
      "subscriber_primary.insurance_card.member_id: must be printable ASCII without * ~ : ^ or edge spaces to be sent as is"
    ])
    expect(problems("shr-001-ophthalmology", subscriber({ group_number: "G~1" }))).toEqual([
      "subscriber_primary.insurance_card.group_number: must be printable ASCII without * ~ : ^ or edge spaces to be sent as is"
    ])
  })

  test("diagnoses: ICD-10 only, at most 12", () => {
    expect(problems("shr-001-ophthalmology", { diagnoses: [{ code_type: "ABK", code: "H40.1131" }, { code_type: "BF", code: "3651" }] })).toEqual([
      "diagnoses[1].code_type: is BF: an 837P carries ICD-10-CM codes (ABK, ABF) only"
    ])
    const thirteen = Array.from({ length: 13 }, (_, i) => ({ code_type: i === 0 ? "ABK" : "ABF", code: `M54.${i}` }))
    expect(problems("shr-001-ophthalmology", { diagnoses: thirteen })).toEqual(["diagnoses: has 13 entries; an 837P carries at most 12"])
  })

  test("names that clean to nothing, bad taxonomy codes, unsafe references", () => {
    const raw = rawEncounter("shr-001-ophthalmology")
    expect(
      problems("shr-001-ophthalmology", {
        billing_provider: { ...(raw.billing_provider as object), organization_name: "***", taxonomy_code: "207W" },
        prior_authorization_number: "PA:1"
      })
    ).toEqual([
      "prior_authorization_number: must be printable ASCII without * ~ : ^ or edge spaces to be sent as is",
      "billing_provider.taxonomy_code: must be a 10-character provider taxonomy code",
      "billing_provider.organization_name: is required (or last_name for an individual billing provider)"
    ])
  })
})

const request = (overrides: Partial<Export837PInput>): Export837PInput => ({
  settings,
  interchange_control_number: 1,
  group_control_number: 1,
  first_transaction_set_control_number: 1,
  created_at: new Date("2026-11-23T08:45:00Z"),
  claims: [{ claim_id: "c1", patient_control_number: "PCN1", payload: encounter("shr-001-ophthalmology") }],
  ...overrides
})

describe("837P builder refusals", () => {
  test("claims that are not exportable are all listed; nothing is built", () => {
    const error = left(
      build837P(
        request({
          claims: [
            { claim_id: "ok", patient_control_number: "PCN1", payload: encounter("shr-001-ophthalmology") },
            { claim_id: "self-pay", patient_control_number: "PCN2", payload: encounter("shr-002-allergy-injections") },
            { claim_id: "dup", patient_control_number: "PCN1", payload: encounter("shr-007-b12-injection") },
            { claim_id: "bad-pcn", patient_control_number: "PCN*3", payload: encounter("shr-007-b12-injection") }
          ]
        })
      )
    )
    expect(error).toBeInstanceOf(ClaimsNotExportable)
    if (!(error instanceof ClaimsNotExportable)) return
    expect(error.claims.map((c) => [c.claim_id, c.problems.map((p) => p.field)])).toEqual([
      ["self-pay", ["responsible_party", "subscriber_primary"]],
      ["dup", ["patient_control_number"]],
      ["bad-pcn", ["patient_control_number"]]
    ])
  })

  test("control numbers must fit their elements; an export needs claims", () => {
    const reason = (overrides: Partial<Export837PInput>) => {
      const e = left(build837P(request(overrides)))
      return e instanceof InvalidExportRequest ? e.message : `unexpected ${e._tag}`
    }
    expect(reason({ interchange_control_number: 0 })).toBe("interchange_control_number: must be an integer from 1 to 999999999")
    expect(reason({ group_control_number: 1_000_000_000 })).toBe("group_control_number: must be an integer from 1 to 999999999")
    expect(reason({ first_transaction_set_control_number: 1.5 })).toBe("first_transaction_set_control_number: must be an integer from 1 to 999999999")
    expect(reason({ first_transaction_set_control_number: 999_999_999, claims_per_transaction_set: 1, claims: [...request({}).claims, { ...request({}).claims[0]!, patient_control_number: "PCN2" }] })).toBe(
      "first_transaction_set_control_number: leaves no room for 2 transaction sets"
    )
    expect(reason({ claims_per_transaction_set: 0 })).toBe("claims_per_transaction_set: must be an integer from 1 to 5000")
    expect(reason({ claims: [] })).toBe("claims: must hold at least one claim")
  })
})
