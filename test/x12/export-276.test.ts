import { describe, expect, test } from "bun:test"
import { Either } from "effect"
import { build276, type Inquiry276 } from "../../lib/x12/export-276/build.js"
import { readInterchange } from "../../lib/x12/read/interchange.js"
import { element, type ReadSegment } from "../../lib/x12/read/tokenize.js"
import { asPayload, encounter, left, rawEncounter, right, settings } from "./helpers.js"

const self = encounter("shr-007-b12-injection")
const insured = self.subscriber_primary
const dependent = asPayload({
  ...rawEncounter("shr-007-b12-injection"),
  external_id: "enc-dependent",
  subscriber_primary: { ...insured, first_name: "Dana", last_name: "Holder", date_of_birth: "1970-02-03", patient_relationship_to_subscriber_code: "19" }
})

const inquiry = (trace: string, payload = self, extra: Partial<Inquiry276> = {}): Inquiry276 => ({
  trace_number: trace,
  claim_id: `claim-${trace}`,
  patient_control_number: `PCN-${trace}`,
  payer_claim_control_number: null,
  payload,
  service_from: "2026-09-08",
  service_to: "2026-09-22",
  ...extra
})

const build = (inquiries: ReadonlyArray<Inquiry276>) =>
  right(build276({ settings, interchange_control_number: 31, group_control_number: 31, created_at: new Date("2026-11-26T10:00:00Z"), inquiries }))

const segmentsOf = (text: string): ReadonlyArray<ReadSegment> => {
  const interchange = right(readInterchange(text))
  expect(interchange.groups).toHaveLength(1)
  const group = interchange.groups[0]!
  expect(group.functional_id).toBe("HR")
  expect(group.version).toBe("005010X212")
  expect(group.transaction_sets).toHaveLength(1)
  expect(group.transaction_sets[0]!.id).toBe("276")
  return group.transaction_sets[0]!.segments
}

/** HL id → [parent, level code, child code]. */
const hlTree = (segments: ReadonlyArray<ReadSegment>) =>
  segments.filter((s) => s.id === "HL").map((s) => [element(s, 1), element(s, 2), element(s, 3), element(s, 4)])

const texts = (segments: ReadonlyArray<ReadSegment>) => segments.map((s) => [s.id, ...s.elements].join("*"))

describe("276 (005010X212)", () => {
  test("a subscriber who is the patient: envelope, BHT 0010/13, HL 20/21/19/22, the claim loop under the subscriber", () => {
    const { text } = build([inquiry("T1", self, { payer_claim_control_number: "PAYER77" })])
    expect(text.startsWith("ISA*00*")).toBe(true)
    const segments = segmentsOf(text)
    expect(segments[0]!.id).toBe("BHT")
    expect([element(segments[0]!, 1), element(segments[0]!, 2)]).toEqual(["0010", "13"])
    expect(hlTree(segments)).toEqual([
      ["1", "", "20", "1"],
      ["2", "1", "21", "1"],
      ["3", "2", "19", "1"],
      ["4", "3", "22", "0"]
    ])
    const lines = texts(segments)
    const card = self.subscriber_primary!.insurance_card
    expect(lines.some((l) => l.startsWith("NM1*PR*2*") && l.endsWith(`*PI*${card.payer_id}`))).toBe(true)
    expect(lines).toContain(`NM1*41*2*${settings.submitter.name}*****46*${settings.submitter.id}`)
    expect(lines.some((l) => l.startsWith("NM1*1P*") && l.endsWith(`*XX*${self.billing_provider.npi}`))).toBe(true)
    expect(lines.some((l) => l.startsWith("NM1*IL*1*") && l.endsWith(`*MI*${card.member_id}`))).toBe(true)
    const after22 = lines.slice(lines.findIndex((l) => l.startsWith("HL*4*")))
    expect(after22[1]!.startsWith("DMG*D8*")).toBe(true)
    expect(after22.slice(3)).toEqual(["TRN*1*T1", "REF*1K*PAYER77", "REF*EJ*PCN-T1", expect.stringMatching(/^AMT\*T3\*\d+\.\d\d$/), "DTP*472*RD8*20260908-20260922"])
    expect(lines.some((l) => l.startsWith("NM1*QC"))).toBe(false)
  })

  test("a dependent: HL 22 with a child, HL 23 with DMG, NM1*QC and the claim loop", () => {
    const { text } = build([inquiry("D1", dependent)])
    const segments = segmentsOf(text)
    expect(hlTree(segments)).toEqual([
      ["1", "", "20", "1"],
      ["2", "1", "21", "1"],
      ["3", "2", "19", "1"],
      ["4", "3", "22", "1"],
      ["5", "4", "23", ""]
    ])
    const lines = texts(segments)
    const at23 = lines.findIndex((l) => l.startsWith("HL*5*4*23"))
    expect(lines.slice(at23 + 1, at23 + 4).map((l) => l.split("*")[0])).toEqual(["DMG", "NM1", "TRN"])
    expect(lines[at23 + 2]!.startsWith("NM1*QC*1*")).toBe(true)
    expect(lines.filter((l) => l.startsWith("TRN*"))).toEqual(["TRN*1*D1"])
    // The subscriber's own DMG is its birth date, not the patient's.
    const at22 = lines.findIndex((l) => l.startsWith("HL*4*3*22"))
    expect(lines[at22 + 1]).toBe("DMG*D8*19700203*" + lines[at22 + 1]!.split("*")[3])
    expect(lines.some((l) => l.startsWith("REF*1K"))).toBe(false)
  })

  test("several inquiries share their payer and provider levels; trace numbers are unique; counts check out", () => {
    const { text } = build([inquiry("A"), inquiry("B", dependent), inquiry("C", self, { service_to: "2026-09-08" })])
    const segments = segmentsOf(text)
    const levels = hlTree(segments).map((h) => h[2])
    expect(levels).toEqual(["20", "21", "19", "22", "22", "23", "22"])
    const traces = texts(segments).filter((l) => l.startsWith("TRN*1*"))
    expect(new Set(traces).size).toBe(3)
    expect(texts(segments)).toContain("DTP*472*D8*20260908")
  })

  test("a repeated trace number or a claim without a primary subscriber is refused, nothing built", () => {
    const repeated = left(build276({ settings, interchange_control_number: 1, group_control_number: 1, created_at: new Date(), inquiries: [inquiry("X"), inquiry("X")] }))
    expect(repeated._tag).toBe("ClaimsNotExportable")
    const selfPay = encounter("shr-002-allergy-injections")
    expect(selfPay.subscriber_primary).toBeUndefined()
    const result = build276({ settings, interchange_control_number: 1, group_control_number: 1, created_at: new Date(), inquiries: [inquiry("Y", selfPay)] })
    expect(Either.isLeft(result)).toBe(true)
  })
})
