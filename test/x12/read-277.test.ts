import { describe, expect, test } from "bun:test"
import { detectKind, readInterchange } from "../../lib/x12/read/interchange.js"
import { readStatus277 } from "../../lib/x12/read/status-277.js"
import { make277Status } from "../support/x12-status.js"
import { left, right } from "./helpers.js"

describe("277 claim status response (005010X212)", () => {
  test("reads each claim by trace number, with PCN, payer control number and every STC", () => {
    const text = make277Status(5, [
      { trace: "T-1", pcn: "PCN1", category: "F1", status: "65", paid: "100.00", payerControl: "PAY1", text: "PAID IN FULL" },
      { trace: "T-2", pcn: "PCN2", category: "P1", dependent: true }
    ])
    const interchange = right(readInterchange(text))
    expect(detectKind(interchange)).toBe("277")
    const read = right(readStatus277(interchange))
    expect(read.claims.map((c) => [c.trace_number, c.patient_control_number, c.payer_claim_control_number])).toEqual([
      ["T-1", "PCN1", "PAY1"],
      ["T-2", "PCN2", undefined]
    ])
    const [paid] = read.claims[0]!.statuses
    expect(paid).toMatchObject({ codes: [{ category: "F1", status: "65", entity: "PR" }], date: "2026-11-24", amount_cents: 12500, paid_cents: 10000, text: "PAID IN FULL" })
    expect(read.claims[1]!.statuses[0]!.codes[0]!.category).toBe("P1")
    expect(read.level_statuses).toEqual([])
  })

  test("a status above the claims (the payer could not answer at all) is kept apart", () => {
    const read = right(readStatus277(right(readInterchange(make277Status(6, [], "E1")))))
    expect(read.claims).toEqual([])
    expect(read.level_statuses[0]!.codes[0]!.category).toBe("E1")
  })

  test("an STC of a subscriber before its TRN is refused with its position", () => {
    const text = make277Status(7, [{ trace: "T", category: "F1" }]).replace("TRN*2*T~\n", "")
    const error = left(readStatus277(right(readInterchange(text.replace(/SE\*(\d+)\*/, (_, n) => `SE*${Number(n) - 1}*`)))))
    expect(error.reason).toContain("before its TRN")
  })
})
