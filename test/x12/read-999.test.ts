import { describe, expect, test } from "bun:test"
import { read999 } from "../../lib/x12/read/ack-999.js"
import { readInterchange } from "../../lib/x12/read/interchange.js"
import { actionsFrom999 } from "../../lib/x12/status-mapping.js"
import { left, right, x12Fixture } from "./helpers.js"

const ack = (text: string) => read999(right(readInterchange(text)))
const mixed = x12Fixture("999-mixed.x12")

describe("999 implementation acknowledgment", () => {
  test("per transaction set: group and set control numbers, accepted or rejected, errors located", () => {
    const [group] = right(ack(mixed)).groups
    expect(group).toMatchObject({ group_control_number: "101", functional_id: "HC", code: "P", status: "partially_accepted", sets_included: 3, sets_received: 3, sets_accepted: 2 })
    expect(group!.transaction_sets.map((s) => [s.transaction_set_id, s.control_number, s.code, s.accepted])).toEqual([
      ["837", "0001", "A", true],
      ["837", "0002", "E", true],
      ["837", "0003", "R", false]
    ])
    const rejected = group!.transaction_sets[2]!
    expect(rejected.error_codes).toEqual(["5"])
    expect(rejected.segment_errors).toEqual([
      { segment_id: "CLM", position: 3, loop: "2300", code: "8", elements: [{ position: "2", code: "6", bad_value: "12X.00" }] }
    ])
  })

  test("status actions: a rejected set bounces its claims, accepted sets are acknowledged", () => {
    expect(actionsFrom999(right(ack(mixed))).map((a) => [a.group_control_number, a.transaction_set_control_number, a.action.kind, "to" in a.action ? a.action.to : ""])).toEqual([
      ["101", "0001", "ack", ""],
      ["101", "0002", "ack", ""],
      ["101", "0003", "move", "submission_bounced"]
    ])
    expect(actionsFrom999(right(ack(mixed)))[2]!.action.note).toBe("999 R: transaction set 0003 rejected (5): CLM at 3 (loop 2300) error 8; element 2 error 6")
  })

  test("a whole group rejected without set detail bounces every set of the group", () => {
    const result = right(ack(x12Fixture("999-group-rejected.x12")))
    expect(result.groups[0]).toMatchObject({ group_control_number: "102", status: "rejected", transaction_sets: [] })
    expect(actionsFrom999(result)).toEqual([
      { group_control_number: "102", transaction_set_control_number: undefined, action: { kind: "move", to: "submission_bounced", note: "999 R: functional group 102 rejected" } }
    ])
  })

  test("malformed 999 bodies are typed errors at the segment", () => {
    const fix = (from: string, to: string, se = "SE*15*0001~", seTo = se) => mixed.replace(from, to).replace(se, seTo)
    expect(left(ack(fix("IK5*A~\n", "", "SE*15*0001~", "SE*14*0001~"))).message).toBe("the AK2 loop at segment 5 has no IK5 at segment 6 (AK2)")
    expect(left(ack(fix("IK5*R*5~", "IK5*Q*5~"))).message).toBe("IK501 'Q' is not an acknowledgment code at segment 15 (IK5)")
    expect(left(ack(fix("AK9*P*3*3*2~\n", "", "SE*15*0001~", "SE*14*0001~"))).message).toBe("999 transaction set without AK9 at segment 3 (ST)")
    expect(left(ack(fix("IK3*CLM*3*2300*8~", "IK3*CLM*x*2300*8~"))).message).toBe("IK302 'x' is not a count at segment 12 (IK3)")
  })
})
