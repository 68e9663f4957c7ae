import { describe, expect, test } from "bun:test"
import { decodeClearinghouseSettings } from "../../lib/domain/clearinghouse.js"
import { left, right, settings } from "./helpers.js"

const issues = (input: unknown) => left(decodeClearinghouseSettings(input)).errors.map((e) => `${e.path}: ${e.message}`)

describe("clearinghouse settings", () => {
  test("valid settings decode unchanged, unknown keys dropped", () => {
    expect(right(decodeClearinghouseSettings({ ...settings, extra: 1 }))).toEqual(settings)
  })

  test("a delimiter in any value is refused at its path", () => {
    expect(issues({ ...settings, interchange_sender_id: "SEND*01" })).toEqual([
      "interchange_sender_id: must not contain the X12 delimiters * ~ : ^"
    ])
    expect(issues({ ...settings, submitter: { ...settings.submitter, name: "Billing~Co" } })).toEqual([
      "submitter.name: must not contain the X12 delimiters * ~ : ^"
    ])
    expect(issues({ ...settings, receiver: { name: "A:B", id: "C^D" } })).toEqual([
      "receiver.name: must not contain the X12 delimiters * ~ : ^",
      "receiver.id: must not contain the X12 delimiters * ~ : ^"
    ])
  })

  test("interchange ids are 2 to 15 characters, printable ASCII, no edge spaces", () => {
    expect(issues({ ...settings, interchange_receiver_id: "A".repeat(16) })).toEqual(["interchange_receiver_id: must be 2 to 15 characters"])
    expect(issues({ ...settings, interchange_receiver_id: "X" })).toEqual(["interchange_receiver_id: must be 2 to 15 characters"])
    expect(issues({ ...settings, interchange_sender_id: "SENDÉ" })).toEqual(["interchange_sender_id: must hold printable ASCII characters only"])
    expect(issues({ ...settings, interchange_sender_id: " S1" })).toEqual(["interchange_sender_id: must not start or end with a space"])
  })

  test("the contact needs a phone or an email, each well-formed", () => {
    const { contact_phone: _p, contact_email: _e, ...bare } = settings.submitter
    expect(issues({ ...settings, submitter: bare })).toEqual(["submitter.contact_phone: contact_phone or contact_email is required"])
    expect(issues({ ...settings, submitter: { ...bare, contact_phone: "555-0100" } })).toEqual([
      "submitter.contact_phone: must be 10 digits (area code and number)"
    ])
    expect(issues({ ...settings, submitter: { ...bare, contact_email: "nobody" } })).toEqual(["submitter.contact_email: must be an email address"])
    expect(right(decodeClearinghouseSettings({ ...settings, submitter: { ...bare, contact_email: "a@b.co" } })).submitter.contact_email).toBe("a@b.co")
  })

  test("usage is T or P, missing fields are named, every problem is listed", () => {
    expect(issues({ ...settings, usage: "X" })).toEqual(["usage: must be T (test) or P (production)"])
    expect(issues({ usage: "P", submitter: { name: "N" } }).sort()).toEqual([
      "interchange_receiver_id: is required",
      "interchange_sender_id: is required",
      "receiver: is required",
      "submitter.contact_name: is required",
      "submitter.id: is required"
    ])
  })
})
