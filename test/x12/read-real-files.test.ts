import { describe, expect, test } from "bun:test"
import { read277CA } from "../../lib/x12/read/ack-277ca.js"
import { read835 } from "../../lib/x12/read/remit-835.js"
import { readInterchange } from "../../lib/x12/read/interchange.js"
import { batchOfReference } from "../../lib/x12/read/sent-837p.js"
import { left, right, x12Fixture } from "./helpers.js"

/** The readers on files as clearinghouses send them (test/fixtures/x12). */
describe("X12 files as sent", () => {
  test("several envelopes in one file, with a byte-order mark, CR LF line breaks and a trailing Ctrl-Z", () => {
    const text = x12Fixture("835-two-envelopes-bom.x12")
    expect(text.charCodeAt(0)).toBe(0xfeff)
    expect(text.endsWith("\r\n\x1a")).toBe(true)
    const interchange = right(readInterchange(text))
    expect(interchange.envelopes.map((e) => [e.sender_id, e.control_number])).toEqual([
      ["CLEARHOUSE", "000000901"],
      ["CLEARHOUSE", "000000902"]
    ])
    expect(interchange.control_number).toBe("000000901")
    const remit = right(read835(interchange))
    expect(remit.payments.map((p) => [p.trace_number, p.claims.map((c) => c.patient_control_number)])).toEqual([
      ["NOPAY20261130", ["PCND1"]],
      ["EFT20261130902", ["PCNL1"]]
    ])
    // White space or a Ctrl-Z between envelopes, and after the last, is read past.
    const spaced = text.replace("IEA*1*000000901~\r\n\r\n", "IEA*1*000000901~\r\n \x1a\r\n")
    expect(right(readInterchange(spaced)).envelopes.length).toBe(2)
  })

  test("a second envelope announces its own delimiters", () => {
    const text = x12Fixture("835-two-envelopes-bom.x12").replace(/^\uFEFF/, "")
    const [first = "", second = ""] = text.split(/\r\n\r\n/)
    // The second interchange rewritten with | elements, ! segments and > components.
    const other = second.replaceAll("*", "|").replaceAll("~\r\n", "!\n").replace("|:!", "|>!").replaceAll("HC:", "HC>")
    const read = right(readInterchange(`${first}\n${other}`))
    expect(read.envelopes.length).toBe(2)
    const remit = right(read835(read))
    expect(remit.payments[1]!.claims[0]!.service_lines.map((l) => l.procedure_code)).toEqual(["99213", "96373"])
  })

  test("a segment after IEA that is not another ISA is an error naming it", () => {
    const text = x12Fixture("277ca-batch-rejected.x12")
    expect(left(readInterchange(`${text}GS*HN~\n`)).message).toBe("segment after IEA: expected another ISA or the end of the file at segment 19 (GS)")
  })

  test("277CA: batch and provider levels keep their TRN02 (the BHT03 we sent) and the provider's NPI; STC02 may be empty; lines keep REF*FJ", () => {
    const provider = right(read277CA(right(readInterchange(x12Fixture("277ca-provider-rejected.x12")))))
    expect(provider.batch_statuses.map((b) => [b.level, b.batch_reference, b.identifier, b.statuses[0]!.codes[0]!.category])).toEqual([
      ["information_receiver", "000000001-0001", undefined, "A1"],
      ["billing_provider", "000000001-0001", "1183647753", "A3"]
    ])
    expect(batchOfReference("000000001-0001")).toBe(1)
    expect(batchOfReference("277CA701")).toBeUndefined()
    const empty = right(read277CA(right(readInterchange(x12Fixture("277ca-empty-stc02-lines.x12")))))
    expect(empty.batch_statuses[0]!.statuses[0]).toMatchObject({ date: undefined, missing: ["STC02"] })
    const line = empty.claims[1]!.service_lines[0]!
    expect([line.procedure_code, line.modifiers, line.charge_cents, line.line_control_number, line.service_date]).toEqual(["99213", ["25"], 12500, "L-E2", "2026-10-01"])
    expect(line.statuses[0]).toMatchObject({ codes: [{ category: "A7", status: "454" }], date: undefined, text: "Procedure code for services rendered is invalid" })
    // A date that is there must still be one.
    expect(left(read277CA(right(readInterchange(x12Fixture("277ca-empty-stc02-lines.x12").replace("STC*A2:20:PR**WQ", "STC*A2:20:PR*2026*WQ"))))).message).toContain(
      "STC02 '2026' is not a CCYYMMDD date"
    )
  })
})
