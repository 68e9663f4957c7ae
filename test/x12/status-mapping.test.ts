import { describe, expect, test } from "bun:test"
import { canTransition, type ClaimStatus } from "../../lib/domain/claim-status.js"
import type { Status277 } from "../../lib/x12/read/ack-277ca.js"
import { statusFrom277Category, statusFrom277Claim, statusFrom835Claim, statusFrom999Set } from "../../lib/x12/status-mapping.js"

const stc = (...categories: ReadonlyArray<string>): Status277 => ({
  codes: categories.map((category) => ({ category, status: "0", entity: undefined })),
  date: "2026-11-24",
  action: undefined,
  amount_cents: undefined,
  text: undefined,
  missing: []
})

describe("status mapping", () => {
  test("277CA categories: A1/A0 acknowledge, A2/A5 start processing, A3/A4/A6/A7/A8 reject, others change nothing", () => {
    const kinds = ["A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "P1", "E0", "F1"].map((c) => {
      const a = statusFrom277Category(c, "n")
      return a.kind === "ack" ? `ack:${a.processing_started}` : a.kind === "move" ? `move:${a.to}` : "none"
    })
    expect(kinds).toEqual(["ack:false", "ack:false", "ack:true", "move:rejected", "move:rejected", "ack:true", "move:rejected", "move:rejected", "move:rejected", "none", "none", "none"])
  })

  test("277CA claim: a rejection anywhere wins, then A2 over A1; no status is nothing to do", () => {
    expect(statusFrom277Claim({ statuses: [stc("A1"), stc("A2")] })).toMatchObject({ kind: "ack", processing_started: true })
    expect(statusFrom277Claim({ statuses: [stc("A2"), stc("P1", "A7")] })).toMatchObject({ kind: "move", to: "rejected" })
    expect(statusFrom277Claim({ statuses: [stc("P1")] })).toMatchObject({ kind: "none", note: "277CA P1:0" })
    expect(statusFrom277Claim({ statuses: [] })).toMatchObject({ kind: "none", note: "277CA without status" })
    // A line's rejection rejects the claim (front-end edits accept or reject a claim whole).
    const line = { procedure_code: "96372", modifiers: [], charge_cents: undefined, line_control_number: "L2", service_date: undefined, statuses: [stc("A7")] }
    expect(statusFrom277Claim({ statuses: [stc("A1")], service_lines: [line] })).toMatchObject({
      kind: "move",
      to: "rejected",
      note: "line 96372 (L2): 277CA A7:0",
      detail: { statuses: [{ level: "claim" }, { level: "line", procedure_code: "96372", line_control_number: "L2" }] }
    })
    // An empty STC02 is tolerated and noted.
    expect(statusFrom277Claim({ statuses: [{ ...stc("A3"), date: undefined, missing: ["STC02"] }] })).toMatchObject({
      kind: "move",
      note: "277CA A3:0 (STC02 missing)",
      detail: { statuses: [{ date: null, missing: ["STC02"] }] }
    })
  })

  test("835 CLP02: processed with money is paid; nothing paid is paid when the patient owes it all (PR), denied by CO/OA/PI; 4 denied, 22 review, 23/25 nothing", () => {
    const to = (status_code: string, paid_cents: number, groups: ReadonlyArray<string> = ["CO"], lineGroups: ReadonlyArray<string> = []) => {
      const a = statusFrom835Claim({
        status_code,
        paid_cents,
        charge_cents: 10000,
        patient_responsibility_cents: undefined,
        adjustments: groups.map((group) => ({ group, amount_cents: 100 })),
        service_lines: [{ adjustments: lineGroups.map((group) => ({ group, amount_cents: 100 })) }]
      })
      return a.kind === "move" ? a.to : a.kind
    }
    for (const code of ["1", "2", "3", "19", "20", "21"]) {
      expect(to(code, 5000)).toBe("paid")
      expect(to(code, 0, ["CO"])).toBe("denied")
      expect(to(code, 0, ["OA"])).toBe("denied")
      expect(to(code, 0, ["PR"])).toBe("paid")
      expect(to(code, 0, [], ["PR", "PR"])).toBe("paid")
      expect(to(code, 0, ["PR"], ["CO"])).toBe("denied")
      expect(to(code, 0, [])).toBe("era_requires_review")
    }
    expect(to("4", 0, ["PR"])).toBe("denied")
    expect(to("1", -100)).toBe("era_requires_review")
    expect(to("4", 0)).toBe("denied")
    expect(to("22", -5000)).toBe("era_requires_review")
    expect(to("23", 0)).toBe("none")
    expect(to("25", 0)).toBe("none")
  })

  test("999: rejected sets bounce, accepted sets are acknowledged", () => {
    expect(statusFrom999Set({ accepted: false, code: "R", control_number: "0003", error_codes: ["5"] })).toMatchObject({
      kind: "move",
      to: "submission_bounced",
      note: "999 R: transaction set 0003 rejected (5)",
      detail: { set_error_codes: ["5"], segment_errors: [] }
    })
    expect(statusFrom999Set({ accepted: true, code: "E", control_number: "0002", error_codes: [] })).toMatchObject({ kind: "ack" })
  })

  test("the first response's moves are allowed from submitted_to_payer by the transition table", () => {
    const targets: ReadonlyArray<ClaimStatus> = ["rejected", "paid", "denied", "submission_bounced"]
    for (const to of targets) expect(canTransition("submitted_to_payer", to)).toBe(true)
  })
})
