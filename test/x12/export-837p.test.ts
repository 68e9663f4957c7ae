import { describe, expect, test } from "bun:test"
import type { EncounterCreate } from "../../lib/domain/encounter-input.js"
import { build837P, type Export837PInput } from "../../lib/x12/export-837p/build.js"
import { detectKind, readInterchange } from "../../lib/x12/read/interchange.js"
import { asPayload, encounter, rawEncounter, right, settings } from "./helpers.js"
import { claimsOf, parseWithNodeX12, parts, type ReadClaim, tokens, val } from "./node-x12-walk.js"

/** Fixture encounters plus variants that reach the builder's harder paths. */
const variants = (): ReadonlyArray<[string, EncounterCreate]> => {
  const acupuncture = rawEncounter("shr-011-acupuncture")
  const sleep = rawEncounter("shr-012-sleep-study")
  const nutrition = rawEncounter("shr-005-nutrition-counseling")
  const b12 = rawEncounter("shr-007-b12-injection")
  const insured = encounter("shr-007-b12-injection").subscriber_primary
  const dx = (nutrition.diagnoses as Array<unknown>).slice()
  // The principal diagnosis moved to the third place; pointers follow it to the same codes.
  const reordered = [dx[1], dx[2], dx[0], ...dx.slice(3)]
  const lines = b12.service_lines as Array<Record<string, unknown>>
  return [
    ["PCN0001", encounter("shr-001-ophthalmology")],
    ["PCN0005", encounter("shr-005-nutrition-counseling")],
    ["PCN0007", encounter("shr-007-b12-injection")],
    ["PCN0010", encounter("shr-010-telehealth-psychotherapy-60")],
    ["PCN0011", asPayload({ ...acupuncture, service_lines: (acupuncture.service_lines as Array<object>).map((l) => ({ charge_amount_cents: 9000, ...l })) })],
    ["PCN0012", asPayload({ ...sleep, billable_status: "BILLABLE", responsible_party: "INSURANCE_PAY", subscriber_primary: { ...insured, patient_relationship_to_subscriber_code: "19" } })],
    [
      "PCN0105",
      asPayload({
        ...nutrition,
        external_id: "enc-reordered",
        diagnoses: reordered,
        service_lines: [{ procedure_code: "97802", quantity: "4", units: "UN", charge_amount_cents: 14000, diagnosis_pointers: [2, 0, 1], date_of_service: "2026-09-06" }]
      })
    ],
    [
      "PCN0107",
      asPayload({
        ...b12,
        external_id: "enc-ranged",
        service_lines: [{ ...lines[0], place_of_service_code: "22", end_date_of_service: "2026-09-16", quantity: "0.50" }, lines[1]]
      })
    ]
  ]
}

const input = (claims: ReadonlyArray<[string, EncounterCreate]>, extra: Partial<Export837PInput> = {}): Export837PInput => ({
  settings,
  interchange_control_number: 42,
  group_control_number: 7,
  first_transaction_set_control_number: 12,
  created_at: new Date("2026-11-23T08:45:00Z"),
  claims: claims.map(([pcn, payload]) => ({ claim_id: `claim-${pcn}`, patient_control_number: pcn, payload })),
  ...extra
})

const dollars = (cents: number) => (cents / 100).toFixed(2)
const dotless = (code: string) => code.replace(/\./g, "")
const ymd = (iso: string) => iso.replace(/-/g, "")

/** Everything node-x12 reads back from one claim, compared with the payload it came from. */
const expectClaimMatches = (read: ReadClaim, p: EncounterCreate) => {
  expect(read.billing.npi).toBe(p.billing_provider.npi)
  expect(read.billing.taxId).toBe(p.billing_provider.tax_id)
  expect(read.billing.taxonomy).toBe(p.billing_provider.taxonomy_code)
  const s = p.subscriber_primary!
  const self = s.patient_relationship_to_subscriber_code === "18"
  expect(val(read.sbr, 1)).toBe("P")
  expect(val(read.sbr, 2)).toBe(self ? "18" : "")
  expect(val(read.sbr, 9)).toBe(s.insurance_card.plan_type ?? "ZZ")
  expect([val(read.subscriber, 3), val(read.subscriber, 4), val(read.subscriber, 8), val(read.subscriber, 9)]).toEqual([s.last_name, s.first_name, "MI", s.insurance_card.member_id])
  expect([val(read.payer, 3), val(read.payer, 8), val(read.payer, 9)]).toEqual([s.insurance_card.payer_name, "PI", s.insurance_card.payer_id])
  if (self) {
    expect(read.patient).toBeUndefined()
    expect(val(read.subscriberDmg!, 2)).toBe(ymd(s.date_of_birth ?? p.patient.date_of_birth))
  } else {
    expect(read.patient).toBeDefined()
    expect([val(read.patient!.nm1, 3), val(read.patient!.nm1, 4)]).toEqual([p.patient.last_name, p.patient.first_name])
    expect(val(read.patient!.dmg!, 2)).toBe(ymd(p.patient.date_of_birth))
    expect(["01", "19", "20", "21", "39", "40", "53", "G8"]).toContain(val(read.patient!.pat, 1))
  }

  const lines = p.service_lines ?? []
  expect(val(read.clm, 2)).toBe(dollars(lines.reduce((sum, l) => sum + (l.charge_amount_cents ?? 0), 0)))
  expect(parts(read.clm, 5)).toEqual([p.place_of_service_code, "B", "1"])
  expect([val(read.clm, 7), val(read.clm, 8), val(read.clm, 9)]).toEqual([
    p.provider_accepts_assignment ? "A" : "C",
    p.benefits_assigned_to_provider ? "Y" : "N",
    p.patient_authorized_release ? "Y" : "I"
  ])

  const principal = p.diagnoses.find((d) => d.code_type === "ABK") ?? p.diagnoses[0]!
  expect(read.hi[0]).toEqual(["ABK", dotless(principal.code)])
  expect(read.hi.slice(1).every(([q]) => q === "ABF")).toBe(true)
  expect(read.hi.map(([, code]) => code).sort()).toEqual(p.diagnoses.map((d) => dotless(d.code)).sort())

  if (p.rendering_provider.npi === p.billing_provider.npi) expect(read.rendering).toBeUndefined()
  else expect(val(read.rendering!.nm1, 9)).toBe(p.rendering_provider.npi)
  if (p.service_facility === undefined) expect(read.facility).toBeUndefined()
  else expect([val(read.facility!, 3), val(read.facility!, 9)]).toEqual([p.service_facility.organization_name, p.service_facility.npi ?? ""])
  if (p.subscriber_secondary === undefined) expect(read.secondary).toBeUndefined()
  else {
    expect(val(read.secondary!.sbr, 1)).toBe("S")
    expect(val(read.secondary!.member!, 9)).toBe(p.subscriber_secondary.insurance_card.member_id)
    expect(val(read.secondary!.payer!, 9)).toBe(p.subscriber_secondary.insurance_card.payer_id)
  }

  expect(read.lines.length).toBe(lines.length)
  lines.forEach((line, i) => {
    const r = read.lines[i]!
    expect(parts(r.sv1, 1)).toEqual(["HC", line.procedure_code, ...(line.modifiers ?? [])])
    expect(val(r.sv1, 2)).toBe(dollars(line.charge_amount_cents!))
    expect(val(r.sv1, 3)).toBe(line.units)
    expect(Number(val(r.sv1, 4))).toBe(Number(line.quantity))
    expect(val(r.sv1, 5)).toBe(line.place_of_service_code !== undefined && line.place_of_service_code !== p.place_of_service_code ? line.place_of_service_code : "")
    // SV107 points into HI (1-based); it must reach the same codes as the payload's zero-based pointers.
    const pointed = parts(r.sv1, 7).map((n) => read.hi[Number(n) - 1]?.[1])
    expect(pointed).toEqual(line.diagnosis_pointers.map((k) => dotless(p.diagnoses[k]!.code)))
    const start = ymd(line.date_of_service ?? p.date_of_service!)
    expect(r.dtp472).toBe(line.end_date_of_service === undefined ? start : `${start}-${ymd(line.end_date_of_service)}`)
    if (line.external_id !== undefined) expect(r.refs.get("6R")).toBe(line.external_id)
  })
}

describe("837P export read back by node-x12", () => {
  const claims = variants()
  const built = right(build837P(input(claims)))
  const interchange = parseWithNodeX12(built.text)

  test("envelopes: control numbers match and every count is right", () => {
    const isa = interchange.header
    expect(val(isa, 6)).toBe("SENDER01       ")
    expect(val(isa, 8)).toBe("CLEARHOUSE     ")
    expect([val(isa, 11), val(isa, 12), val(isa, 15), val(isa, 16)]).toEqual(["^", "00501", "T", ":"])
    expect(Number(val(isa, 13))).toBe(42)
    expect(built.text.startsWith("ISA*00*          *00*          *ZZ*SENDER01       *ZZ*CLEARHOUSE     *261123*0845*^*00501*000000042*0*T*:~\n")).toBe(true)
    expect(Number(val(interchange.trailer, 1))).toBe(interchange.functionalGroups.length)
    expect(val(interchange.trailer, 2)).toBe(val(isa, 13))
    expect(interchange.functionalGroups.length).toBe(1)
    const group = interchange.functionalGroups[0]!
    expect([val(group.header, 1), val(group.header, 6), val(group.header, 8)]).toEqual(["HC", "7", "005010X222A1"])
    expect(Number(val(group.trailer, 1))).toBe(group.transactions.length)
    expect(val(group.trailer, 2)).toBe("7")
    for (const tx of group.transactions) {
      expect([val(tx.header, 1), val(tx.header, 3)]).toEqual(["837", "005010X222A1"])
      expect(Number(val(tx.trailer, 1))).toBe(tx.segments.length + 2)
      expect(val(tx.trailer, 2)).toBe(val(tx.header, 2))
    }
    expect(built.transaction_sets.map((t) => t.control_number)).toEqual(["0012"])
  })

  test("the text is one segment per line, each ended by ~", () => {
    const lines = built.text.split("\n")
    expect(lines.pop()).toBe("")
    expect(lines.every((l) => l.endsWith("~") && l.indexOf("~") === l.length - 1)).toBe(true)
    expect(lines[0]!.length).toBe(106)
  })

  test("HL tree: ids in order, parents and levels 20/22/23, child codes", () => {
    for (const tx of interchange.functionalGroups[0]!.transactions) {
      const hls = tx.segments.filter((s) => s.tag === "HL")
      const level = new Map<string, string>()
      hls.forEach((hl, i) => {
        expect(val(hl, 1)).toBe(String(i + 1))
        const parent = val(hl, 2)
        const lvl = val(hl, 3)
        expect(["20", "22", "23"]).toContain(lvl)
        if (lvl === "20") expect(parent).toBe("")
        if (lvl === "22") expect(level.get(parent)).toBe("20")
        if (lvl === "23") expect(level.get(parent)).toBe("22")
        const hasChild = hls.some((h) => val(h, 2) === val(hl, 1))
        expect(val(hl, 4)).toBe(hasChild ? "1" : "0")
        level.set(val(hl, 1), lvl)
      })
      expect(hls.filter((h) => val(h, 3) === "22").length).toBe(tx.segments.filter((s) => s.tag === "CLM").length)
    }
  })

  test("loop order and required segments follow the 005010X222A1 sequence", () => {
    const claimLoop =
      "HL\\*22 SBR NM1\\*IL (N3 N4 )?(DMG )?NM1\\*PR (N3 N4 )?(HL\\*23 PAT NM1\\*QC N3 N4 DMG )?" +
      "CLM (DTP )*(REF )*HI (NM1\\*DN (REF )?)?(NM1\\*82 (PRV )?)?(NM1\\*77 N3 N4 )?(NM1\\*DQ (REF )?)?(SBR OI NM1\\*IL (N3 N4 )?NM1\\*PR (N3 N4 )?)?" +
      "(LX SV1 DTP (REF )*(LIN CTP (REF )?)?(NM1\\*DK (N3 N4 )?)?)+"
    const grammar = new RegExp(`^BHT NM1\\*41 PER NM1\\*40 (HL\\*20 (PRV )?NM1\\*85 N3 N4 REF\\*EI (NM1\\*87 N3 N4 )?(${claimLoop})+)+$`)
    for (const tx of interchange.functionalGroups[0]!.transactions) expect(`${tokens(tx)} `).toMatch(grammar)
  })

  test("every fixture round-trips: ids, amounts, codes, pointers and dates equal the payload", () => {
    const read = interchange.functionalGroups[0]!.transactions.flatMap(claimsOf)
    expect(read.map((c) => val(c.clm, 1)).sort()).toEqual(claims.map(([pcn]) => pcn).sort())
    for (const [pcn, payload] of claims) {
      const claim = read.find((c) => val(c.clm, 1) === pcn)!
      expectClaimMatches(claim, payload)
    }
    expect(built.transaction_sets[0]!.claim_ids.slice().sort()).toEqual(claims.map(([pcn]) => `claim-${pcn}`).sort())
  })

  test("our own reader accepts the file and recognizes an 837P", () => {
    const ours = right(readInterchange(built.text))
    expect(detectKind(ours)).toBe("837P")
    expect(ours.control_number).toBe("000000042")
    expect(ours.groups[0]!.transaction_sets[0]!.segments.length + 2).toBe(Number(val(interchange.functionalGroups[0]!.transactions[0]!.trailer, 1)))
  })
})

describe("837P batching", () => {
  test("claims split into transaction sets numbered upward; the result says which claim is where", () => {
    const claims = variants().slice(0, 5)
    const built = right(build837P(input(claims, { claims_per_transaction_set: 2 })))
    const group = parseWithNodeX12(built.text).functionalGroups[0]!
    expect(group.transactions.map((t) => val(t.header, 2))).toEqual(["0012", "0013", "0014"])
    expect(Number(val(group.trailer, 1))).toBe(3)
    for (const tx of group.transactions) {
      const listed = built.transaction_sets.find((t) => t.control_number === val(tx.header, 2))!
      expect(claimsOf(tx).map((c) => `claim-${val(c.clm, 1)}`)).toEqual([...listed.claim_ids])
      expect(val(tx.segments[0]!, 3)).toBe(`000000042-${val(tx.header, 2)}`)
    }
  })

  test("claims of one billing provider share one 2000A loop", () => {
    const eye = encounter("shr-001-ophthalmology")
    const built = right(build837P(input([["PCNA", eye], ["PCNB", encounter("shr-007-b12-injection")], ["PCNC", eye]])))
    const tx = parseWithNodeX12(built.text).functionalGroups[0]!.transactions[0]!
    const billing = tx.segments.filter((s) => s.tag === "HL" && val(s, 3) === "20")
    expect(billing.length).toBe(2)
    const read = claimsOf(tx)
    expect(read.map((c) => val(c.clm, 1))).toEqual(["PCNA", "PCNC", "PCNB"])
    expect(read[0]!.billing.hl).toBe(read[1]!.billing.hl)
    expect(built.transaction_sets[0]!.claim_ids).toEqual(["claim-PCNA", "claim-PCNC", "claim-PCNB"])
  })

  test("free text with delimiters or accents is cleaned, never breaking the file", () => {
    const raw = rawEncounter("shr-005-nutrition-counseling")
    const payload = asPayload({
      ...raw,
      patient: { ...(raw.patient as object), last_name: "Núñez*O'Neil~", first_name: "Zoë:Ann" },
      billing_provider: { ...(raw.billing_provider as object), organization_name: "Cedar^Hollow Dietitians" }
    })
    const built = right(build837P(input([["PCN9", payload]])))
    const claim = claimsOf(parseWithNodeX12(built.text).functionalGroups[0]!.transactions[0]!)[0]!
    expect([val(claim.patient!.nm1, 3), val(claim.patient!.nm1, 4)]).toEqual(["Nunez O'Neil", "Zoe Ann"])
    expect(val(claim.billing.nm1, 3)).toBe("Cedar Hollow Dietitians")
  })
})
