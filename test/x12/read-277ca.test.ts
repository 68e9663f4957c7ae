import { describe, expect, test } from "bun:test"
import { read277CA } from "../../lib/x12/read/ack-277ca.js"
import { readInterchange } from "../../lib/x12/read/interchange.js"
import { statusFrom277Claim } from "../../lib/x12/status-mapping.js"
import { left, right, x12Fixture } from "./helpers.js"

const text = x12Fixture("277ca-mixed.x12")
const read = (t: string) => read277CA(right(readInterchange(t)))

describe("277CA claim acknowledgment", () => {
  const result = right(read(text))
  const claim = (pcn: string) => result.claims.find((c) => c.patient_control_number === pcn)!

  test("every 2200D claim is read by TRN02, with its references, date and statuses", () => {
    expect(result.claims.map((c) => c.patient_control_number)).toEqual(["PCN0001", "PCN0005", "PCN0010", "PCNX0099", "PCN0007"])
    expect(claim("PCN0001")).toMatchObject({
      payer_claim_control_number: "PLB2026112400017",
      clearinghouse_trace_number: "CHTRACE0001",
      billing_provider_npi: "1183647753",
      service_date: "2026-01-15"
    })
    expect(claim("PCN0001").statuses.map((s) => s.codes[0]!.category)).toEqual(["A1", "A2"])
    expect(claim("PCN0005").statuses).toEqual([
      { codes: [{ category: "A7", status: "562", entity: "85" }], date: "2026-11-24", action: "U", amount_cents: 14000, text: "Billing provider NPI not on file with the payer", missing: [] }
    ])
    expect(claim("PCNX0099").service_date).toBe("2026-10-01")
  })

  test("STC10 and STC11 add codes; line statuses stay with their line", () => {
    const c = claim("PCN0007")
    expect(c.statuses[0]!.codes).toEqual([
      { category: "A3", status: "21", entity: "PR" },
      { category: "A7", status: "33", entity: "IL" },
      { category: "A8", status: "479", entity: "QC" }
    ])
    expect(c.statuses.length).toBe(1)
    expect(c.service_lines).toMatchObject([
      { procedure_code: "96372", statuses: [{ codes: [{ category: "A7", status: "454", entity: undefined }], date: "2026-11-24", action: "U", amount_cents: undefined, text: undefined, missing: [] }] }
    ])
  })

  test("batch and provider level statuses are kept apart from the claims", () => {
    expect(result.batch_statuses.map((b) => [b.level, b.identifier, b.statuses.map((s) => s.codes[0]!.category)])).toEqual([
      ["information_receiver", undefined, ["A1"]],
      ["billing_provider", "2590614212", ["A1"]]
    ])
  })

  test("status actions: A2 starts processing, A1 only acknowledges, A3/A7 reject with the payer's words", () => {
    expect(statusFrom277Claim(claim("PCN0001"))).toMatchObject({ kind: "ack", processing_started: true, note: "277CA A2:20:PR" })
    expect(statusFrom277Claim(claim("PCNX0099"))).toMatchObject({ kind: "ack", processing_started: false, note: "277CA A1:19:PR" })
    expect(statusFrom277Claim(claim("PCN0005"))).toMatchObject({ kind: "move", to: "rejected", note: "277CA A7:562:85 Billing provider NPI not on file with the payer" })
    expect(statusFrom277Claim(claim("PCN0007"))).toMatchObject({ kind: "move", to: "rejected", note: "277CA A3:21:PR, A7:33:IL, A8:479:QC Member id does not match the patient" })
  })

  test("malformed statuses are typed errors naming the segment", () => {
    expect(left(read(text.replace("STC*A2:20:PR*20261124*WQ*180.00~", "STC*A2:20:PR*20261324*WQ*180.00~"))).message).toBe(
      "STC02 '20261324' is not a CCYYMMDD date at segment 54 (STC)"
    )
    expect(left(read(text.replace("STC*A2:20:PR*20261124*WQ*180.00~", "STC*A2:20:PR*20261124*WQ*18O.00~"))).message).toBe(
      "STC04 '18O.00' is not an amount at segment 54 (STC)"
    )
    expect(left(read(text.replace("TRN*2*PCN0010~", "TRN*2~"))).message).toBe("TRN02 is required at segment 53 (TRN)")
    expect(left(read(text.replace("HL*8*7*PT~", "HL*8*7*XX~"))).message).toBe("HL03 'XX' is not a 277CA level at segment 51 (HL)")
  })
})
