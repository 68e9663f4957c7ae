import { describe, expect, test } from "bun:test"
import { Effect, Layer, Option } from "effect"
import type { X12Segment } from "node-x12"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { ClaimId } from "../../lib/domain/ids.js"
import { Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { correctClaim } from "../../lib/rules/correct-claim.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch, preview837P } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { build837P } from "../../lib/x12/export-837p/build.js"
import { clearinghouseSettingsInput } from "../contract/clearinghouse.contract.js"
import { runWith } from "../support/run.js"
import { make277 } from "../support/x12-files.js"
import { encounter, rawEncounter, right, settings, x12Fixture } from "./helpers.js"
import { parseWithNodeX12, parts, val } from "./node-x12-walk.js"

/** The segments of the only transaction set, as node-x12 reads them. */
const segmentsOf = (text: string): ReadonlyArray<X12Segment> => parseWithNodeX12(text).functionalGroups[0]!.transactions[0]!.segments

const cents = (amount: string): number => Math.round(Number(amount) * 100)
/** The amounts of a CAS segment's triples (CAS03, CAS06, ...). */
const casTotal = (s: X12Segment): number => [3, 6, 9, 12, 15, 18].reduce((sum, n) => sum + (val(s, n) === "" ? 0 : cents(val(s, n))), 0)

const build = (frequency: string | undefined, original: string | null) =>
  right(
    build837P({
      settings,
      interchange_control_number: 7,
      group_control_number: 7,
      first_transaction_set_control_number: 1,
      created_at: new Date("2026-11-24T10:00:00Z"),
      claims: [{ claim_id: "c-1", patient_control_number: "PCNF1", payload: encounter("shr-007-b12-injection"), frequency_code: frequency, original_payer_claim_control_number: original }]
    })
  ).text

describe("837P frequency codes", () => {
  test("CLM05-3 is the claim's frequency code; REF*F8 carries the payer's claim number for 7 and 8 only", () => {
    for (const [frequency, original, f8] of [
      [undefined, null, undefined],
      ["1", "IGNORED", undefined],
      ["7", "PAYER-77", "PAYER-77"],
      ["8", "PAYER-88", "PAYER-88"]
    ] as const) {
      const segments = segmentsOf(build(frequency, original))
      const clm = segments.find((s) => s.tag === "CLM")!
      expect(parts(clm, 5)).toEqual(["11", "B", frequency ?? "1"])
      const refs = segments.filter((s) => s.tag === "REF" && val(s, 1) === "F8").map((s) => val(s, 2))
      expect(refs).toEqual(f8 === undefined ? [] : [f8])
      // REF*F8 sits in 2300: after CLM, before HI.
      if (f8 !== undefined) {
        const at = segments.findIndex((s) => s.tag === "REF" && val(s, 1) === "F8")
        expect(at).toBeGreaterThan(segments.indexOf(clm))
        expect(at).toBeLessThan(segments.findIndex((s) => s.tag === "HI"))
      }
    }
  })
})

describe("837P secondary claim (COB), from a fixture with a secondary subscriber and the primary's 835", () => {
  test("SBR*S for the billed payer; 2320/2330A/2330B for the primary; 2430 per line; amounts balance; exchange identifiers kept", async () => {
    const { primaryText, secondaryText, ids } = await runWith(
      Layer.mergeAll(MemoryStorage.layer, Clock.live, Ids.live),
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("cob", "COB")).id
        yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
        const created = yield* createEncounter(ws, { ...rawEncounter("shr-010-telehealth-psychotherapy-60"), patient_control_number: "PCNCOB1" })
        const primary = (yield* getEncounter(ws, created.encounter_id)).claim.id
        const primaryText = yield* preview837P(ws, primary)
        yield* createX12Batch(ws, [primary])
        yield* importX12File({ workspace_id: ws, body: new TextEncoder().encode(make277(930, [{ pcn: "PCNCOB1", category: "A2", trace: "CHTRACE9" }])), content_type: "application/edi-x12" })
        yield* importX12File({ workspace_id: ws, body: new TextEncoder().encode(x12Fixture("835-primary-cob.x12")), content_type: "application/edi-x12" })
        const made = yield* correctClaim(ws, primary, { action: "secondary" })
        const secondaryText = yield* preview837P(ws, made.claim.id)
        const stored = Option.getOrThrow(yield* (yield* Storage).findClaim(ws, ClaimId.make(primary)))
        return { primaryText, secondaryText, ids: stored.claim.clearinghouse_transaction_ids }
      })
    )
    // The batch's interchange and transaction set, and the 277CA's clearinghouse trace.
    expect(ids).toEqual(["ISA13:000000001", "ST02:0001", "D9:CHTRACE9"])

    // The primary claim: SBR*P, and the secondary payer as the other payer (2320 SBR*S), no COB amounts.
    const before = segmentsOf(primaryText)
    expect(before.filter((s) => s.tag === "SBR").map((s) => val(s, 1))).toEqual(["P", "S"])
    expect(before.some((s) => s.tag === "AMT" || s.tag === "SVD")).toBe(false)

    const segments = segmentsOf(secondaryText)
    const at = (tag: string, q?: string) => segments.findIndex((s) => s.tag === tag && (q === undefined || val(s, 1) === q))
    // 2000B: the billed payer is the secondary.
    const sbrs = segments.filter((s) => s.tag === "SBR")
    expect(sbrs.map((s) => val(s, 1))).toEqual(["S", "P"])
    const payers = segments.filter((s) => s.tag === "NM1" && val(s, 1) === "PR").map((s) => val(s, 9))
    expect(payers).toEqual(["TSTMB", "NTRIC"])
    const members = segments.filter((s) => s.tag === "NM1" && val(s, 1) === "IL").map((s) => val(s, 9))
    expect(members).toEqual(["TST624517332", "NTR258390949"])
    // 2320 after the claim, before the lines: SBR*P, its claim-level CAS, AMT*D, OI; then 2330A, 2330B.
    const sbrP = segments.indexOf(sbrs[1]!)
    const lx = at("LX")
    expect(sbrP).toBeGreaterThan(at("CLM"))
    expect(sbrP).toBeLessThan(lx)
    const loop2320 = segments.slice(sbrP, lx)
    expect(loop2320.map((s) => s.tag)).toEqual(["SBR", "CAS", "AMT", "OI", "NM1", "NM1", "REF"])
    expect([val(loop2320[1]!, 1), val(loop2320[1]!, 2), val(loop2320[1]!, 3)]).toEqual(["CO", "253", "5.00"])
    expect([val(loop2320[2]!, 1), val(loop2320[2]!, 2)]).toEqual(["D", "115.00"])
    expect([val(loop2320[6]!, 1), val(loop2320[6]!, 2)]).toEqual(["F8", "NTR2026081500042"])
    // 2430 after the line's 2400 segments: SVD, CAS, DTP*573.
    const line = segments.slice(lx)
    const svd = line.find((s) => s.tag === "SVD")!
    expect([val(svd, 1), val(svd, 2), parts(svd, 3).join(":"), val(svd, 5)]).toEqual(["NTRIC", "120.00", "HC:90837:95", "1"])
    const lineCas = line.filter((s) => s.tag === "CAS")
    expect(lineCas.map((s) => [val(s, 1), val(s, 2), val(s, 3)])).toEqual([["CO", "45", "40.00"], ["PR", "2", "20.00"]])
    const dtp = line.find((s) => s.tag === "DTP" && val(s, 1) === "573")!
    expect(val(dtp, 3)).toBe("20260815")
    expect(line.indexOf(svd)).toBeGreaterThan(line.findIndex((s) => s.tag === "SV1"))
    // The guide's balancing: per line, charge = paid + its adjustments; per claim, charge = paid + all adjustments.
    const sv1 = line.find((s) => s.tag === "SV1")!
    expect(cents(val(sv1, 2))).toBe(cents(val(svd, 2)) + lineCas.reduce((sum, s) => sum + casTotal(s), 0))
    const clm = segments[at("CLM")]!
    const claimCas = loop2320.filter((s) => s.tag === "CAS")
    expect(cents(val(clm, 2))).toBe(cents(val(loop2320[2]!, 2)) + [...claimCas, ...lineCas].reduce((sum, s) => sum + casTotal(s), 0))
    expect(parts(clm, 5)[2]).toBe("1")
  })
})

describe("837P secondary claim refused", () => {
  test("a primary adjudication whose amounts do not add up to the charges is not exportable, naming the line and the claim", () => {
    const payload = encounter("shr-010-telehealth-psychotherapy-60")
    const remittance = {
      id: "r-1",
      file_id: "f-1",
      check_number: "EFT1",
      payment_date: "2026-08-15",
      payer_claim_control_number: null,
      charge_amount_cents: 18000,
      paid_amount_cents: 12000,
      patient_responsibility_cents: null,
      adjustments: [],
      service_lines: [{ procedure_code: "90837", charge_amount_cents: 18000, paid_amount_cents: 12000, adjustments: [{ group: "CO", reason: "45", amount_cents: 100 }] }],
      discrepancies: []
    }
    const refused = build837P({
      settings,
      interchange_control_number: 8,
      group_control_number: 8,
      first_transaction_set_control_number: 1,
      created_at: new Date("2026-11-24T10:00:00Z"),
      claims: [{ claim_id: "c-2", patient_control_number: "PCNF2", payload, primary: { subscriber: payload.subscriber_primary!, remittance } }]
    })
    expect(refused._tag).toBe("Left")
    if (refused._tag === "Left" && refused.left._tag === "ClaimsNotExportable") {
      expect(refused.left.claims[0]!.problems.map((p) => p.field)).toEqual(["service_lines[0]", "subscriber_primary"])
    } else throw new Error("expected ClaimsNotExportable")
  })
})
