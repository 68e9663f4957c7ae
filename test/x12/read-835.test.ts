import { describe, expect, test } from "bun:test"
import { readInterchange } from "../../lib/x12/read/interchange.js"
import { read835 } from "../../lib/x12/read/remit-835.js"
import { statusFrom835Claim } from "../../lib/x12/status-mapping.js"
import { left, right, x12Fixture } from "./helpers.js"

const text = x12Fixture("835-mixed.x12")
const read = (t: string) => read835(right(readInterchange(t)))

describe("835 remittance advice", () => {
  const { payments } = right(read(text))
  const [eft, nopay] = payments
  const claim = (pcn: string) => payments.flatMap((p) => p.claims).find((c) => c.patient_control_number === pcn)!

  test("one payment per transaction set: trace number, date, amount, payer, payee", () => {
    expect(eft).toMatchObject({
      transaction_set_control_number: "0001",
      trace_number: "EFT20261130001",
      amount_cents: 20275,
      credit_debit: "C",
      method: "ACH",
      payment_date: "2026-11-30",
      payer: { name: "EXAMPLE HEALTH PLAN", id: "EXHP1" },
      payee: { name: "MAPLEWOOD EXAMPLE OPHTHALMOLOGY GROUP", npi: "1183647753" },
      balanced: true
    })
    expect(nopay).toMatchObject({ trace_number: "NOPAY20261130", amount_cents: 0, method: "NON", payment_date: "2026-11-30", payer: { name: "SAMPLEVILLE HMO", id: "SVHMO" }, balanced: true })
    expect(eft!.provider_adjustments).toEqual([{ reason: "L6", reference: "INT0001", amount_cents: -125 }])
  })

  test("claims: PCN, status, charge, paid, patient responsibility, payer claim number, in integer cents", () => {
    expect(payments.flatMap((p) => p.claims).map((c) => [c.patient_control_number, c.status_code, c.charge_cents, c.paid_cents, c.patient_responsibility_cents, c.payer_claim_control_number])).toEqual([
      ["PCN0001", "1", 26800, 20000, 2000, "PLB2026112400017"],
      ["PCN0007", "22", -4800, -3600, -1200, "EXH2026100100044"],
      ["PCNX0099", "1", 5000, 3750, 1000, "EXH2026112400081"],
      ["PCN0005", "4", 14000, 0, undefined, "SVH2026112400005"],
      ["PCN0010", "1", 18000, 0, 18000, "NTR2026112400003"]
    ])
  })

  test("claim and line adjustments: every CAS triple, lines with their own CAS, REF*6R and date", () => {
    expect(claim("PCNX0099").adjustments).toEqual([
      { group: "CO", reason: "45", amount_cents: 200, quantity: undefined },
      { group: "CO", reason: "253", amount_cents: 50, quantity: undefined },
      { group: "PR", reason: "3", amount_cents: 1000, quantity: undefined }
    ])
    expect(claim("PCNX0099").service_lines[0]).toMatchObject({ procedure_code: "99213", modifiers: ["25"], charge_cents: 5000, paid_cents: 3750, adjustments: [] })
    const [first, second] = claim("PCN0001").service_lines
    expect(claim("PCN0001").adjustments).toEqual([])
    expect(first).toEqual({
      procedure_code: "92014",
      modifiers: [],
      charge_cents: 17000,
      paid_cents: 13000,
      units: "1",
      line_control_number: "sl-shr-0001-1",
      service_date: "2026-01-15",
      adjustments: [
        { group: "CO", reason: "45", amount_cents: 2800, quantity: undefined },
        { group: "PR", reason: "1", amount_cents: 1200, quantity: undefined }
      ]
    })
    expect(second!.adjustments.map((a) => a.amount_cents)).toEqual([2000, 800])
    // Each line balances: charge = paid + adjustments.
    for (const line of claim("PCN0001").service_lines) {
      expect(line.paid_cents + line.adjustments.reduce((s, a) => s + a.amount_cents, 0)).toBe(line.charge_cents)
    }
  })

  test("status actions: paid (a deductible-only claim too), denied (CLP02 4), reversal to review; the unknown PCN is still read", () => {
    const to = (pcn: string) => {
      const a = statusFrom835Claim(claim(pcn))
      return a.kind === "move" ? a.to : a.kind
    }
    expect(["PCN0001", "PCNX0099", "PCN0005", "PCN0010", "PCN0007"].map(to)).toEqual(["paid", "paid", "denied", "paid", "era_requires_review"])
    expect(statusFrom835Claim(claim("PCN0001")).note).toBe("835 CLP02 1: paid 200.00 of 268.00, patient responsibility 20.00")
  })

  test("a BPR02 that does not match the claims is flagged, not hidden", () => {
    expect(right(read(text.replace("BPR*I*202.75*", "BPR*I*202.76*"))).payments[0]!.balanced).toBe(false)
  })

  test("malformed amounts, dates and loops are typed errors naming the segment", () => {
    expect(left(read(text.replace("CLP*PCN0001*1*268*200*", "CLP*PCN0001*1*268*200.005*"))).message).toBe("CLP04 '200.005' has more than 2 decimals at segment 15 (CLP)")
    expect(left(read(text.replace("*DA*98765*20261130~", "*DA*98765*2026113~"))).message).toBe("BPR16 '2026113' is not a CCYYMMDD date at segment 4 (BPR)")
    expect(left(read(text.replace("CAS*PR*3*10~", "CAS*PR*3*ten~"))).message).toBe("CAS03 'ten' is not an amount at segment 34 (CAS)")
    expect(left(read(text.replace("CAS*CO*50*140~", "CAS*CO~"))).message).toBe("CAS02 is required at segment 48 (CAS)")
    expect(left(read(text.replace("TRN*1*EFT20261130001*1512345678~", "REF*XX*1~"))).message).toBe("835 without TRN at segment 4 (BPR)")
  })
})
