import { describe, expect, test } from "bun:test"
import { Either } from "effect"
import type { EncounterCreate } from "../../lib/domain/encounter-input.js"
import { build837P } from "../../lib/x12/export-837p/build.js"
import { exportability } from "../../lib/x12/export-837p/exportability.js"
import { asPayload, rawEncounter, right, settings } from "./helpers.js"
import { parseWithNodeX12, parts, tokens, val } from "./node-x12-walk.js"

/**
 * Every field of the vendor create shape that has a place in the 837P goes into it, in the
 * guide's loop order (005010X222A1); what cannot go in is a problem of the preview, never dropped.
 * The fixture carries each field: related causes with the accident, a delay reason, referring and
 * supervising providers with secondary ids, a pay-to address, prior authorizations on the claim
 * and a line, a line's ordering provider, and a drug with its prescription number.
 */

const raw = rawEncounter("shr-021-accident-referral-drug")
const payload = asPayload(raw)

const build = (p: EncounterCreate) =>
  build837P({
    settings,
    interchange_control_number: 77,
    group_control_number: 77,
    first_transaction_set_control_number: 1,
    created_at: new Date("2026-11-25T10:00:00Z"),
    claims: [{ claim_id: "claim-F1", patient_control_number: "PCNF1", payload: p }]
  })

const tx = parseWithNodeX12(right(build(payload)).text).functionalGroups[0]!.transactions[0]!
const segs = tx.segments
/** The segments from the first one matching `from` up to (not including) the next one matching `to`. */
const between = (from: (t: string) => boolean, to: (t: string) => boolean) => {
  const ids = segs.map((s) => `${s.tag}*${val(s, 1)}`)
  const start = ids.findIndex(from)
  const end = ids.findIndex((t, i) => i > start && to(t))
  return segs.slice(start, end === -1 ? undefined : end)
}
/** A segment as written, without its terminator. */
const text = (s: (typeof segs)[number]) => s.toString().replace(/~$/, "")
const find = (tag: string, first: string) => segs.find((s) => s.tag === tag && val(s, 1) === first)

describe("837P: every carried field, in its loop", () => {
  test("the loops come in the guide's order, each new one where it belongs", () => {
    expect(tokens(tx)).toBe(
      "BHT NM1*41 PER NM1*40 HL*20 PRV NM1*85 N3 N4 REF*EI NM1*87 N3 N4 HL*22 SBR NM1*IL N3 N4 DMG NM1*PR " +
        "CLM DTP REF HI NM1*DN REF NM1*82 PRV NM1*77 N3 N4 NM1*DQ REF " +
        "LX SV1 DTP REF NM1*DK N3 N4 LX SV1 DTP REF LIN CTP REF"
    )
  })

  test("2010AB: the pay-to address (NM1*87) under the billing provider, when it differs", () => {
    const loop = between((t) => t === "NM1*87", (t) => t.startsWith("HL*"))
    expect(loop.map(text)).toEqual(["NM1*87*2", "N3*PO Box 4410", "N4*Boise*ID*837114410"])
    const same = asPayload({ ...raw, pay_to_address: (raw.billing_provider as Record<string, unknown>).address })
    expect(right(build(same)).text).not.toContain("NM1*87")
  })

  test("2300: CLM11 related causes with the accident's state, CLM20 the delay reason, DTP*439 the accident date, REF*G1 the authorization", () => {
    const clm = find("CLM", "PCNF1")!
    expect(parts(clm, 11)).toEqual(["AA", "EM", "", "ID"])
    expect(val(clm, 20)).toBe("7")
    expect(text(find("DTP", "439")!)).toBe("DTP*439*D8*20260910")
    const claimRefs = between((t) => t.startsWith("CLM"), (t) => t.startsWith("HI")).filter((s) => s.tag === "REF")
    expect(claimRefs.map(text)).toEqual(["REF*G1*AUTH9911"])
  })

  test("2310A referring (NM1*DN) and 2310D supervising (NM1*DQ) providers, persons with NPI and secondary id", () => {
    expect(between((t) => t === "NM1*DN", (t) => t === "NM1*82").map(text)).toEqual([
      "NM1*DN*1*Referwell*Rhea****XX*1629071519",
      "REF*G2*REF12345"
    ])
    expect(between((t) => t === "NM1*DQ", (t) => t.startsWith("LX")).map(text)).toEqual([
      "NM1*DQ*1*Exemplar*Elio****XX*1488733621",
      "REF*LU*SUP778"
    ])
  })

  test("2400: REF*G1 of the line; 2420E ordering provider (NM1*DK) with its address; 2410 drug: LIN*N4 with the 11-digit NDC, CTP quantity and unit, REF*XZ", () => {
    const first = between((t) => t === "LX*1", (t) => t === "LX*2").map(text)
    expect(first.slice(3)).toEqual(["REF*G1*LAUTH1", "NM1*DK*1*Orderly*Orla****XX*1003000126", "N3*12 Order Ln", "N4*Boise*ID*837020012"])
    const second = between((t) => t === "LX*2", () => false).map(text)
    expect(second.slice(3)).toEqual(["REF*6R*sl-shr-0007-2", "LIN**N4*87020825465", "CTP****1.5*ML", "REF*XZ*RX445566"])
  })

  test("what the 837P cannot hold is a problem at its field, and the claim is not built", () => {
    const line = (raw.service_lines as Array<Record<string, unknown>>)[1]!
    const { accident_date: _, ...withoutAccident } = raw
    const bad = asPayload({
      ...withoutAccident,
      related_causes_information: { related_causes_code_1: "AB", related_causes_code_2: "AA" },
      delay_reason_code: "16",
      referring_provider: { organization_name: "Referral Group", npi: "1629071519" },
      supervising_provider: { first_name: "Elio", npi: "1488733621" },
      service_lines: [
        { ...(raw.service_lines as Array<Record<string, unknown>>)[0], ordering_provider: { organization_name: "Lab", npi: "1003000126" } },
        { ...line, drug_identification: { service_id_qualifier: "UP", national_drug_code: "12345", national_drug_unit_count: "a lot", measurement_unit_code: "ML", pharmacy_prescription_number: "RX1", link_sequence_number: "7" } }
      ]
    })
    expect(exportability(bad).map((p) => p.field)).toEqual([
      "related_causes_information.related_causes_code_1",
      "related_causes_information.state_or_province_code",
      "accident_date",
      "delay_reason_code",
      "referring_provider.last_name",
      "supervising_provider.last_name",
      "service_lines[0].ordering_provider.last_name",
      "service_lines[1].drug_identification.service_id_qualifier",
      "service_lines[1].drug_identification.national_drug_code",
      "service_lines[1].drug_identification.national_drug_unit_count",
      "service_lines[1].drug_identification.link_sequence_number"
    ])
    const refused = build(bad)
    expect(Either.isLeft(refused) && refused.left._tag).toBe("ClaimsNotExportable")
    // An accident date without an accident's cause would be dropped: it is a problem instead.
    const stray = asPayload({ ...raw, related_causes_information: { related_causes_code_1: "EM" } })
    expect(exportability(stray).map((p) => [p.field, p.message])).toEqual([
      ["accident_date", "goes into an 837P (DTP*439) only with an accident's related cause (related_causes_information AA or OA)"]
    ])
    expect(exportability(payload)).toEqual([])
  })
})
