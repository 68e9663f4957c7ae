import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { make999, x12File } from "../support/x12-files.js"
import { claimsOf, parseWithNodeX12, val } from "../x12/node-x12-walk.js"
import { api, errorPaths, expectProblem, uniqueId, unknownUuid } from "./client.js"

/**
 * The clearinghouse exchange over HTTP: settings, previews, batches and their files (read back by
 * node-x12), imports of the hand-written 999, 277CA and 835, and what the reads then show.
 */

let server: TestServer
let call: ReturnType<typeof api>
const writer = () => ({ key: server.keys.aWriter })
const x12 = (text: string, key = server.keys.aWriter, type = "application/edi-x12") => ({ key, raw: text, headers: { "content-type": type } })

/** Encounters with the control numbers the hand-written responses name, and their claims. */
const created: Record<string, { encounter: string; claim: string }> = {}
const make = async (pcn: string, payload: Record<string, unknown> = exportablePayload(uniqueId("x12"), pcn)) => {
  const res = await call("POST", "/api/encounters", { body: payload })
  expect(res.status).toBe(202)
  const read = await call("GET", `/api/encounters/${res.body.encounter_id}`)
  created[pcn] = { encounter: res.body.encounter_id, claim: read.body.latest_claim_id }
  return created[pcn]!
}

beforeAll(async () => {
  server = await startTestServer()
  call = api(server)
  for (const pcn of ["PCN0001", "PCN0005", "PCN0007", "PCN0010", "PCNB1", "PCNB2"]) await make(pcn)
  await make("PCNSELF", { ...validPayload(uniqueId("self")), patient_control_number: "PCNSELF" })
})
afterAll(() => server.close())

describe("clearinghouse settings", () => {
  test("404 while unset; exports answer 409 clearinghouse_not_configured; PUT needs claims:write and valid values", async () => {
    expectProblem(await call("GET", "/api/workspace/clearinghouse"), 404, "not_found")
    expectProblem(await call("GET", `/api/claims/${created.PCN0001!.claim}/837p`), 409, "clearinghouse_not_configured")
    expectProblem(await call("POST", "/api/x12/837p-batches", { ...writer(), body: { claim_ids: [created.PCN0001!.claim] } }), 409, "clearinghouse_not_configured")
    expectProblem(await call("POST", "/api/x12/837p-batches", { ...writer(), body: { claim_ids: [unknownUuid()] } }), 404, "not_found")
    expectProblem(await call("PUT", "/api/workspace/clearinghouse", { body: clearinghouseSettingsInput }), 403, "forbidden")
    const bad = await call("PUT", "/api/workspace/clearinghouse", {
      ...writer(),
      body: { ...clearinghouseSettingsInput, interchange_sender_id: "A*B", submitter: { name: "N", id: "S1", contact_name: "C" } }
    })
    expectProblem(bad, 422, "validation_failed")
    expect(errorPaths(bad).sort()).toEqual(["interchange_sender_id", "submitter.contact_phone"])
    const put = await call("PUT", "/api/workspace/clearinghouse", { ...writer(), body: clearinghouseSettingsInput })
    expect([put.status, put.body]).toEqual([200, clearinghouseSettingsInput])
    expect((await call("GET", "/api/workspace/clearinghouse")).body).toEqual(clearinghouseSettingsInput)
    // Another workspace still has none.
    expectProblem(await call("GET", "/api/workspace/clearinghouse", { key: server.keys.b }), 404, "not_found")
  })
})

describe("837P out", () => {
  test("a preview is one claim's interchange and changes nothing; a claim without a payer is 422 not_exportable", async () => {
    const res = await call("GET", `/api/claims/${created.PCN0001!.claim}/837p`)
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/edi-x12"])
    const claims = claimsOf(parseWithNodeX12(res.text).functionalGroups[0]!.transactions[0]!)
    expect(claims.map((c) => val(c.clm, 1))).toEqual(["PCN0001"])
    expect((await call("GET", `/api/encounters/${created.PCN0001!.encounter}`)).body.latest_claim.status).toBe("draft")
    const selfPay = await call("GET", `/api/claims/${created.PCNSELF!.claim}/837p`)
    expectProblem(selfPay, 422, "not_exportable")
    expect(errorPaths(selfPay)).toContain(`claims[${created.PCNSELF!.claim}].responsible_party`)
    expectProblem(await call("GET", `/api/claims/${created.PCN0001!.claim}/837p`, { key: server.keys.b }), 404, "not_found")
  })

  test("a batch: 201, claims moved with events, the file read back by node-x12; refused batches name each claim", async () => {
    const ids = ["PCN0001", "PCN0005", "PCN0007", "PCN0010"].map((p) => created[p]!.claim)
    const forbidden = await call("POST", "/api/x12/837p-batches", { body: { claim_ids: ids } })
    expectProblem(forbidden, 403, "forbidden")
    const notExportable = await call("POST", "/api/x12/837p-batches", { ...writer(), body: { claim_ids: [...ids, created.PCNSELF!.claim] } })
    expectProblem(notExportable, 422, "not_exportable")
    expect(errorPaths(notExportable)).toContain(`claims[${created.PCNSELF!.claim}].responsible_party`)
    expect(errorPaths(notExportable).every((p) => p.startsWith(`claims[${created.PCNSELF!.claim}].`))).toBe(true)
    expectProblem(await call("POST", "/api/x12/837p-batches", { ...writer(), body: { claim_ids: [ids[0], ids[0]] } }), 422, "validation_failed")
    expectProblem(await call("POST", "/api/x12/837p-batches", { key: server.keys.b, body: { claim_ids: ids } }), 404, "not_found")

    const batch = await call("POST", "/api/x12/837p-batches", { ...writer(), body: { claim_ids: ids } })
    expect(batch.status).toBe(201)
    expect(batch.body).toEqual({ id: expect.any(String), interchange_control_number: 1, group_control_number: 1, claim_ids: ids, created_at: expect.any(String) })
    for (const pcn of ["PCN0001", "PCN0005", "PCN0007", "PCN0010"]) {
      expect((await call("GET", `/api/encounters/${created[pcn]!.encounter}`)).body.latest_claim.status).toBe("submitted_to_payer")
    }
    const events = await call("GET", "/api/encounters/compat-version/events?event_types=ExternalApi.Encounter.StatusUpdated")
    expect(events.body.items.map((e: { payload: { claim_id: string } }) => e.payload.claim_id)).toEqual(ids)
    expect(events.body.items[0].payload.note).toContain(batch.body.id)

    const file = await call("GET", `/api/x12/837p-batches/${batch.body.id}/file`)
    expect([file.status, file.headers.get("content-type"), file.headers.get("content-disposition")]).toEqual([
      200,
      "application/edi-x12",
      'attachment; filename="837p-000000001.x12"'
    ])
    const interchange = parseWithNodeX12(file.text)
    expect(Number(val(interchange.header, 13))).toBe(1)
    expect(file.text).toContain("*00501*000000001*0*T*:~")
    const group = interchange.functionalGroups[0]!
    expect(val(group.header, 6)).toBe("1")
    expect(group.transactions.flatMap(claimsOf).map((c) => val(c.clm, 1))).toEqual(["PCN0001", "PCN0005", "PCN0007", "PCN0010"])
    expect((await call("GET", `/api/x12/837p-batches/${batch.body.id}`)).body).toEqual(batch.body)
    expect((await call("GET", "/api/x12/837p-batches")).body.items).toEqual([batch.body])
    expectProblem(await call("GET", `/api/x12/837p-batches/${batch.body.id}`, { key: server.keys.b }), 404, "not_found")
    expectProblem(await call("GET", `/api/x12/837p-batches/${batch.body.id}/file`, { key: server.keys.b }), 404, "not_found")

    const again = await call("POST", "/api/x12/837p-batches", { ...writer(), body: { claim_ids: [created.PCNB1!.claim, ids[2]] } })
    expectProblem(again, 409, "invalid_transition")
    expect([again.body.claim_id, again.body.current_status, again.body.requested_status]).toEqual([ids[2], "submitted_to_payer", "submitted_to_payer"])
    expect(errorPaths(again)).toEqual([`claims[${ids[2]}].status`])
    expect((await call("GET", `/api/encounters/${created.PCNB1!.encounter}`)).body.latest_claim.status).toBe("draft")
  })
})

describe("999, 277CA and 835 in", () => {
  test("277CA: rejections with their notes, acknowledgments, the payer's control number; unknown PCN unmatched", async () => {
    expectProblem(await call("POST", "/api/x12/inbound", x12(x12File("277ca-mixed.x12"), server.keys.a)), 403, "forbidden")
    expectProblem(await call("POST", "/api/x12/inbound", { ...writer(), body: { not: "x12" } }), 415, "unsupported_media_type")
    const res = await call("POST", "/api/x12/inbound", x12(x12File("277ca-mixed.x12")))
    expect(res.status).toBe(200)
    expect([res.body.kind, res.body.duplicate]).toEqual(["277CA", false])
    expect(res.body.claims.map((c: { patient_control_number: string; outcome: string }) => [c.patient_control_number, c.outcome])).toEqual([
      ["PCN0001", "unchanged"],
      ["PCN0005", "status_changed"],
      ["PCN0010", "unchanged"],
      ["PCNX0099", "unmatched"],
      ["PCN0007", "status_changed"]
    ])
    const one = (await call("GET", `/api/encounters/${created.PCN0001!.encounter}`)).body.latest_claim
    expect(one.payer_claim_control_number).toBe("PLB2026112400017")
    expect(one.processing_started_at).toEqual(expect.any(String))
    const rejected = await call("GET", "/api/encounters/compat-version/events?event_types=ExternalApi.Encounter.StatusUpdated&limit=100")
    const notes = rejected.body.items.filter((e: { payload: { status: string } }) => e.payload.status === "rejected").map((e: { payload: { note: string } }) => e.payload.note)
    expect(notes).toEqual([expect.stringContaining("Billing provider NPI not on file"), expect.stringContaining("Member id does not match the patient")])
  })

  test("835: paid (a deductible-only claim too), a refused reversal as conflict, remittances on the normalized claim and eras on the compat read", async () => {
    // Read (and so rendered) before the file: a remittance that moves nothing must still show after it.
    const conflictCompat = `/api/encounters/compat-version/${created.PCN0007!.encounter}`
    expect((await call("GET", conflictCompat)).body.claims[0].eras).toEqual([])
    const res = await call("POST", "/api/x12/inbound", x12(x12File("835-mixed.x12"), server.keys.aWriter, "text/plain"))
    expect(res.status).toBe(200)
    const conflict = res.body.claims.find((c: { patient_control_number: string }) => c.patient_control_number === "PCN0007")
    expect(conflict).toEqual({
      patient_control_number: "PCN0007",
      claim_id: created.PCN0007!.claim,
      outcome: "conflict",
      previous_status: "rejected",
      status: "rejected",
      detail: expect.stringContaining("asked for era_requires_review"),
      response: null
    })
    expect(res.body.claims.find((c: { patient_control_number: string }) => c.patient_control_number === "PCNX0099").claim_id).toBeNull()
    const read = (await call("GET", `/api/encounters/${created.PCN0001!.encounter}`)).body.latest_claim
    expect(read.status).toBe("paid")
    expect(read.remittances).toEqual([
      expect.objectContaining({ file_id: res.body.id, check_number: "EFT20261130001", payment_date: "2026-11-30", charge_amount_cents: 26800, paid_amount_cents: 20000, patient_responsibility_cents: 2000 })
    ])
    const compat = (await call("GET", `/api/encounters/compat-version/${created.PCN0001!.encounter}`)).body
    expect(compat.claims[0].eras).toEqual([{ era_id: read.remittances[0].id, check_number: "EFT20261130001", check_date: "2026-11-30" }])
    expect((await call("GET", conflictCompat)).body.claims[0].eras.length).toBe(1)
    expect((await call("GET", `/api/encounters/${created.PCN0010!.encounter}`)).body.latest_claim.status).toBe("paid")

    const reversal = await call("POST", "/api/x12/inbound", x12(x12File("835-reversal.x12")))
    expect(reversal.body.claims.map((c: { status: string }) => c.status)).toEqual(["era_requires_review", "paid"])
  })

  test("duplicates answer the first import and apply nothing; malformed files are 422 invalid_x12 naming the segment", async () => {
    const before = (await call("GET", "/api/encounters/compat-version/events?limit=100")).body.items.length
    const first = (await call("GET", "/api/x12/files")).body.items.find((f: { kind: string }) => f.kind === "277CA")
    const again = await call("POST", "/api/x12/inbound", x12(x12File("277ca-mixed.x12")))
    expect([again.status, again.body.id, again.body.duplicate]).toEqual([200, first.id, true])
    const bad = await call("POST", "/api/x12/inbound", x12(x12File("835-bad-se-count.x12")))
    expectProblem(bad, 422, "invalid_x12")
    expect(bad.body.detail).toContain("at segment 39 (SE)")
    const truncated = await call("POST", "/api/x12/inbound", x12(x12File("277ca-truncated.x12")))
    expectProblem(truncated, 422, "invalid_x12")
    const outbound = await call("POST", "/api/x12/inbound", x12((await call("GET", "/api/claims/" + created.PCNB1!.claim + "/837p")).text))
    expectProblem(outbound, 422, "invalid_x12")
    expect((await call("GET", "/api/encounters/compat-version/events?limit=100")).body.items.length).toBe(before)
    const files = (await call("GET", "/api/x12/files")).body.items
    expect(files.map((f: { kind: string }) => f.kind)).toEqual(["invalid", "invalid", "invalid", "835", "835", "277CA"])
    expect(files[0].error).toContain("837P")
    expect(files[2].error).toContain("at segment 39 (SE)")
    expect((await call("GET", `/api/x12/files/${first.id}`)).body).toEqual(first)
    expectProblem(await call("GET", `/api/x12/files/${first.id}`, { key: server.keys.b }), 404, "not_found")
    expectProblem(await call("GET", `/api/x12/files/${unknownUuid()}`), 404, "not_found")
  })

  test("999: a rejected transaction set bounces the claims of its batch", async () => {
    const batch = await call("POST", "/api/x12/837p-batches", { ...writer(), body: { claim_ids: [created.PCNB1!.claim, created.PCNB2!.claim] } })
    expect(batch.body.interchange_control_number).toBe(2)
    const res = await call("POST", "/api/x12/inbound", x12(make999(731, batch.body.group_control_number, [["0001", "R"]])))
    expect([res.body.kind, res.body.claims.map((c: { outcome: string; status: string }) => [c.outcome, c.status])]).toEqual([
      "999",
      [["status_changed", "submission_bounced"], ["status_changed", "submission_bounced"]]
    ])
    expect((await call("GET", `/api/encounters/${created.PCNB2!.encounter}`)).body.latest_claim.status).toBe("submission_bounced")

    // Another 999 under the same control number (a clearinghouse reusing it): imported and flagged,
    // its IK3/IK4 detail shown in the file's outcomes.
    const reused = x12File("999-rejected-ik3-ik4.x12").replaceAll("000000801", "000000731").replace("*801*X*", "*731*X*").replace("GE*1*801", "GE*1*731")
    const second = await call("POST", "/api/x12/inbound", x12(reused))
    expect([second.status, second.body.duplicate, second.body.reused_control_number]).toEqual([200, false, true])
    const file = await call("GET", `/api/x12/files/${second.body.id}`)
    expect([file.body.reused_control_number, file.body.reused_control_number_of]).toEqual([true, res.body.id])
    const outcomes = await call("GET", `/api/x12/files/${second.body.id}/outcomes`)
    expect(outcomes.body.items[0].response.segment_errors.map((e: { segment_id: string; elements: ReadonlyArray<{ code: string }> }) => [e.segment_id, e.elements.map((el) => el.code)])).toEqual([
      ["NM1", ["7"]],
      ["CLM", ["6", "7"]]
    ])
  })
})
