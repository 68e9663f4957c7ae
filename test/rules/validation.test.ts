import { describe, expect, test } from "bun:test"
import { Either } from "effect"
import { validateEncounterCreate } from "../../lib/domain/validate.js"
import { insurancePayload, validPayload } from "../support/payloads.js"

const issues = (input: unknown) => {
  const r = validateEncounterCreate(input)
  return Either.isLeft(r) ? r.left.map((i) => `${i.path}: ${i.message}`) : []
}
/** Deep-sets `path` (dots and [n]) on a copy of the valid payload; `undefined` deletes the key. */
const withField = (path: string, value: unknown, base = validPayload("enc-v")): Record<string, unknown> => {
  const copy: Record<string, unknown> = structuredClone(base)
  const keys = path.replace(/\[(\d+)\]/g, ".$1").split(".")
  let node: Record<string, unknown> = copy
  for (const k of keys.slice(0, -1)) node = node[k] as Record<string, unknown>
  const last = keys[keys.length - 1]!
  if (value === undefined) delete node[last]
  else node[last] = value
  return copy
}
const expectIssue = (input: unknown, path: string, message?: RegExp) => {
  const found = issues(input).filter((i) => i.startsWith(`${path}: `))
  expect(found.length).toBeGreaterThan(0)
  if (message !== undefined) expect(found.some((f) => message.test(f))).toBe(true)
}

describe("create payload validation", () => {
  test("valid payloads pass, with quantity as a number or a decimal string", () => {
    expect(issues(validPayload("a"))).toEqual([])
    expect(issues(insurancePayload("b"))).toEqual([])
    const numeric = withField("service_lines[0].quantity", 1.5)
    const r = validateEncounterCreate(numeric)
    expect(Either.isRight(r) && r.right.service_lines?.[0]?.quantity).toBe("1.5")
  })

  test.each([
    "external_id", "patient_authorized_release", "benefits_assigned_to_provider", "provider_accepts_assignment",
    "billable_status", "responsible_party", "place_of_service_code", "patient", "billing_provider", "rendering_provider", "diagnoses"
  ])("required top-level field %s", (field) => expectIssue(withField(field, undefined), field, /is required/))

  test.each([
    "patient.external_id", "patient.first_name", "patient.last_name", "patient.gender", "patient.date_of_birth",
    "patient.address.city", "billing_provider.npi", "billing_provider.tax_id", "billing_provider.address.zip_plus_four_code",
    "rendering_provider.npi", "diagnoses[0].code", "diagnoses[0].code_type", "service_lines[0].procedure_code",
    "service_lines[0].quantity", "service_lines[0].units", "service_lines[0].diagnosis_pointers"
  ])("required nested field %s", (path) => expectIssue(withField(path, undefined), path, /is required/))

  test("a null required field is missing; a null optional field is absent", () => {
    expectIssue(withField("patient.first_name", null), "patient.first_name", /is required/)
    expect(issues(withField("service_facility", null))).toEqual([])
  })

  test.each([
    ["patient.gender", "F", /one of male, female/],
    ["patient.address.state", "ca", /state/],
    ["billable_status", "MAYBE", /BILLABLE/],
    ["responsible_party", "CASH", /INSURANCE_PAY/],
    ["place_of_service_code", "27", /place of service/],
    ["diagnoses[0].code_type", "ICD10", /one of ABK, ABF/],
    ["service_lines[0].units", "HOURS", /UN, MJ/],
    ["service_lines[0].modifiers", ["ZQ"], /procedure modifier/]
  ])("vocabulary %s", (path, value, message) =>
    expectIssue(withField(path, value), path === "service_lines[0].modifiers" ? "service_lines[0].modifiers[0]" : path, message)
  )

  test("formats: NPI check digit, tax id, zip, plus-four, dates, cents, quantity, ICD-10", () => {
    expectIssue(withField("billing_provider.npi", "1234567890"), "billing_provider.npi", /check digit/)
    expectIssue(withField("rendering_provider.npi", "123456789"), "rendering_provider.npi", /NPI/)
    expectIssue(withField("billing_provider.tax_id", "12-3456789"), "billing_provider.tax_id", /9 digits/)
    expectIssue(withField("patient.address.zip_code", "8370"), "patient.address.zip_code", /5 digits/)
    expectIssue(withField("billing_provider.address.zip_plus_four_code", "12345"), "billing_provider.address.zip_plus_four_code", /4 digits/)
    expectIssue(withField("patient.date_of_birth", "1984-02-30"), "patient.date_of_birth", /calendar date/)
    expectIssue(withField("date_of_service", "2026/01/05"), "date_of_service", /calendar date/)
    expectIssue(withField("service_lines[0].charge_amount_cents", 125.5), "service_lines[0].charge_amount_cents", /integer/)
    expectIssue(withField("service_lines[0].charge_amount_cents", -1), "service_lines[0].charge_amount_cents", /non-negative/)
    expectIssue(withField("service_lines[0].quantity", "0"), "service_lines[0].quantity", /positive/)
    expectIssue(withField("service_lines[0].quantity", -2), "service_lines[0].quantity", /positive/)
    expectIssue(withField("service_lines[0].quantity", "1e3"), "service_lines[0].quantity", /positive/)
    expectIssue(withField("diagnoses[0].code", "not-icd"), "diagnoses[0].code", /ICD-10/)
    expectIssue(withField("patient_authorized_release", "true"), "patient_authorized_release", /true or false/)
  })

  test("INSURANCE_PAY requires subscriber_primary", () => {
    expectIssue(withField("responsible_party", "INSURANCE_PAY"), "subscriber_primary", /INSURANCE_PAY/)
    expectIssue(withField("subscriber_primary.insurance_card.member_id", undefined, insurancePayload("x")), "subscriber_primary.insurance_card.member_id", /is required/)
  })

  test("diagnosis pointers: at least one, at most four, distinct, zero-based and in range", () => {
    expectIssue(withField("service_lines[0].diagnosis_pointers", []), "service_lines[0].diagnosis_pointers", /at least one/)
    expectIssue(withField("service_lines[0].diagnosis_pointers", [1]), "service_lines[0].diagnosis_pointers[0]", /points to no diagnosis/)
    expectIssue(withField("service_lines[0].diagnosis_pointers", [0, 0]), "service_lines[0].diagnosis_pointers[1]", /repeats/)
    expectIssue(withField("service_lines[0].diagnosis_pointers", [-1]), "service_lines[0].diagnosis_pointers[0]", /zero-based/)
    expectIssue(withField("service_lines[0].diagnosis_pointers", [0, 0, 0, 0, 0]), "service_lines[0].diagnosis_pointers", /at most 4/)
  })

  test("every problem is reported at once, each with its path", () => {
    const bad = withField("patient.gender", "x", withField("billing_provider.npi", "1", withField("responsible_party", "INSURANCE_PAY", withField("service_lines[0].diagnosis_pointers", [7]))))
    const paths = issues(bad).map((i) => i.split(": ")[0])
    expect(paths).toEqual(expect.arrayContaining(["patient.gender", "billing_provider.npi", "subscriber_primary", "service_lines[0].diagnosis_pointers[0]"]))
  })

  test("non-objects are refused at the root; unknown keys are ignored", () => {
    for (const v of [null, [], 42, "x"]) expect(issues(v)).toEqual(["$: must be a JSON object"])
    const r = validateEncounterCreate({ ...validPayload("u"), no_such_field: 1 })
    expect(Either.isRight(r) && "no_such_field" in r.right).toBe(false)
  })

  test("deeply nested bodies are refused without being walked recursively", () => {
    let deep: unknown = "x"
    for (let i = 0; i < 200_000; i++) deep = [deep]
    expect(issues({ ...validPayload("deep"), metadata: { a: deep } })).toEqual(["$: nests deeper than 32 levels"])
  })

  test("service_facility and service_facility_id are exclusive", () => {
    const facility = { organization_name: "F", address: { address1: "1 A St", city: "Boise", state: "ID", zip_code: "83702", zip_plus_four_code: "1234" } }
    expectIssue(validPayload("f", { service_facility: facility, service_facility_id: "x" }), "service_facility_id", /together/)
  })
})
