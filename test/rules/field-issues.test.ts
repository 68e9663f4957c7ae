import { describe, expect, test } from "bun:test"
import { Either, Schema } from "effect"
import { ClaimStatuses, FilterableClaimStatus, FilterableClaimStatuses } from "../../lib/domain/claim-status.js"
import { fieldIssues } from "../../lib/domain/field-issues.js"
import { validateEncounterCreate } from "../../lib/domain/validate.js"
import { insurancePayload, validPayload } from "../support/payloads.js"

const issuesOf = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): Array<string> => {
  const r = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })(input)
  return Either.isLeft(r) ? fieldIssues(r.left).map((i) => `${i.path}: ${i.message}`) : []
}

const createIssues = (input: unknown): Array<string> => {
  const r = validateEncounterCreate(input)
  return Either.isLeft(r) ? r.left.map((i) => `${i.path}: ${i.message}`) : []
}

/** Deep-sets `path` (dots and [n]) on a copy of `base`. */
const withField = (base: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> => {
  const copy: Record<string, unknown> = structuredClone(base)
  const keys = path.replace(/\[(\d+)\]/g, ".$1").split(".")
  let node: Record<string, unknown> = copy
  keys.slice(0, -1).forEach((k, i) => {
    const next = node[k]
    if (typeof next !== "object" || next === null) node[k] = /^\d+$/.test(keys[i + 1] ?? "") ? [] : {}
    node = node[k] as Record<string, unknown>
  })
  node[keys[keys.length - 1]!] = value
  return copy
}

describe("one message per mistake", () => {
  const Query = Schema.Struct({
    claim_status: Schema.optional(FilterableClaimStatus),
    limit: Schema.optional(Schema.NumberFromString.annotations({ message: () => "must be an integer" }))
  })

  test("a value outside a closed set of literals is one issue at its path, listing the allowed values", () => {
    expect(issuesOf(Query, { claim_status: "paid" })).toEqual([`claim_status: must be one of ${FilterableClaimStatuses.join(", ")}`])
    const Required = Schema.Struct({ status: Schema.Literal(...ClaimStatuses) })
    expect(issuesOf(Required, { status: "banana" })).toEqual([`status: must be one of ${ClaimStatuses.join(", ")}`])
    expect(issuesOf(Required, { status: 7 })).toEqual([`status: must be one of ${ClaimStatuses.join(", ")}`])
  })

  test("an optional key never reports its 'absent' member (no 'Expected undefined')", () => {
    const out = issuesOf(Query, { claim_status: "paid", limit: "abc" })
    expect(out).toEqual([`claim_status: must be one of ${FilterableClaimStatuses.join(", ")}`, "limit: must be an integer"])
    expect(out.join("\n")).not.toContain("undefined")
  })

  test("literals inside arrays are reported per element", () => {
    const Tags = Schema.Struct({ kinds: Schema.Array(Schema.Literal("a", "b")) })
    expect(issuesOf(Tags, { kinds: ["a", "z", "b", "y"] })).toEqual(["kinds[1]: must be one of a, b", "kinds[3]: must be one of a, b"])
  })

  test("a wrong JSON type reads in plain words, never as the whole expected shape", () => {
    const Shape = Schema.Struct({ a: Schema.Struct({ b: Schema.String }), n: Schema.Number, list: Schema.Array(Schema.String) })
    expect(issuesOf(Shape, { a: "x", n: "1", list: {} })).toEqual(["a: must be an object", "n: must be a number", "list: must be an array"])
  })
})

describe("create payload: one message per wrong vocabulary value", () => {
  const cases: ReadonlyArray<readonly [string, RegExp, Record<string, unknown>?]> = [
    ["patient.gender", /^must be one of male, female, other, not_given, unknown$/],
    ["patient.address.state", /state/],
    ["billable_status", /^must be one of BILLABLE, NOT_BILLABLE$/],
    ["responsible_party", /^must be one of INSURANCE_PAY, SELF_PAY, UNKNOWN$/],
    ["place_of_service_code", /place of service/],
    ["diagnoses[0].code_type", /^must be one of ABK, ABF, ABJ, APR, BK, BF, BJ, PR, DR, LOI$/],
    ["diagnoses[0].present_on_admission_indicator", /^must be one of YES, NO, UNKNOWN, NOT_APPLICABLE$/],
    ["service_lines[0].units", /^must be one of UN, MJ$/],
    ["service_lines[0].modifiers[0]", /procedure modifier/],
    ["service_lines[0].place_of_service_code", /place of service/],
    ["synchronicity", /^must be one of Synchronous, Asynchronous$/],
    ["delay_reason_code", /delay reason/],
    ["patient.phone_numbers[0].type", /^must be one of Home, Mobile, Work$/],
    ["subscriber_primary.gender", /^must be one of male/, insurancePayload("vocab")],
    ["subscriber_primary.patient_relationship_to_subscriber_code", /relationship/, insurancePayload("vocab")],
    ["subscriber_primary.insurance_card.insurance_type", /insurance type/, insurancePayload("vocab")],
    ["subscriber_primary.insurance_card.plan_type", /plan type/, insurancePayload("vocab")]
  ]

  for (const [path, message, base] of cases) {
    test(`${path}: an unknown value, or a value of the wrong type, is exactly one issue`, () => {
      const payload = base ?? validPayload("vocab")
      const phone = path.startsWith("patient.phone_numbers") ? withField(payload, "patient.phone_numbers[0].number", "555-0100") : payload
      for (const wrong of ["NOT-A-VALUE", 42]) {
        const out = createIssues(withField(phone, path, wrong))
        expect(out).toHaveLength(1)
        expect(out[0]!.startsWith(`${path}: `)).toBe(true)
        expect(out[0]!.slice(path.length + 2)).toMatch(message)
      }
    })
  }
})
