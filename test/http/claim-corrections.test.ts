import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { serialization } from "candidhealth"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { make277 } from "../support/x12-files.js"
import { api, errorPaths, expectProblem, uniqueId, unknownUuid } from "./client.js"

/** Corrections over HTTP: the route's scope, body checks and answers, and the reads of an encounter's claims. */

let server: TestServer
let call: ReturnType<typeof api>
const writer = () => ({ key: server.keys.aWriter })

/** An encounter whose claim was sent and rejected by a 277CA. */
const rejected = async (pcn: string, icn: number) => {
  const payload = exportablePayload(uniqueId("corr"), pcn)
  const res = await call("POST", "/api/encounters", { body: payload })
  const read = await call("GET", `/api/encounters/${res.body.encounter_id}`)
  const claim: string = read.body.latest_claim_id
  expect((await call("POST", "/api/x12/837p-batches", { ...writer(), body: { claim_ids: [claim] } })).status).toBe(201)
  const file = make277(icn, [{ pcn, category: "A7", text: "BAD MEMBER" }])
  expect((await call("POST", "/api/x12/inbound", { ...writer(), raw: file, headers: { "content-type": "application/edi-x12" } })).status).toBe(200)
  return { encounter: res.body.encounter_id as string, claim, payload }
}

beforeAll(async () => {
  server = await startTestServer()
  call = api(server)
  expect((await call("PUT", "/api/workspace/clearinghouse", { ...writer(), body: clearinghouseSettingsInput })).status).toBe(200)
})
afterAll(() => server.close())

describe("POST /api/claims/{claim_id}/corrections", () => {
  test("201 the new claim; reads list both, oldest first; the compat read holds both claims", async () => {
    const { encounter, claim, payload } = await rejected("PCNH1", 701)
    expectProblem(await call("POST", `/api/claims/${claim}/corrections`, { body: { action: "resubmit" } }), 403, "forbidden")
    const corrected = { ...payload, date_of_service: "2026-10-02" }
    const res = await call("POST", `/api/claims/${claim}/corrections`, { ...writer(), body: { action: "resubmit", encounter: corrected, note: "fixed" } })
    expect(res.status).toBe(201)
    expect(res.body.status).toBe("draft")
    expect(res.body.resubmission_original_claim_id).toBe(claim)
    expect(res.body.resubmission_action).toBe("resubmit")
    expect(res.body.date_of_service).toBe("2026-10-02")
    const list = await call("GET", `/api/encounters/${encounter}/claims`)
    expect(list.status).toBe(200)
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([claim, res.body.id])
    expect(list.body.items.map((c: { date_of_service: string }) => c.date_of_service)).toEqual(["2026-10-01", "2026-10-02"])
    const one = await call("GET", `/api/claims/${claim}`)
    expect([one.status, one.body.status, one.body.patient_control_number]).toEqual([200, "rejected", "PCNH1"])
    const read = await call("GET", `/api/encounters/${encounter}`)
    expect(read.body.latest_claim_id).toBe(res.body.id)
    expect(read.body.latest_claim.resubmission_original_claim_id).toBe(claim)
    const compat = await call("GET", `/api/encounters/compat-version/${encounter}`)
    expect(compat.body.claims.map((c: { claim_id: string; status: string }) => [c.claim_id, c.status])).toEqual([[claim, "rejected"], [res.body.id, "draft"]])
    // The vendor SDK parses it: leniently on enums only (draft is not in its vocabulary), then strictly with a vendor status.
    const vendor = serialization.encounters.v4.Encounter
    const lenient = vendor.parse(compat.body, { allowUnrecognizedEnumValues: true })
    expect(lenient.ok ? [] : lenient.errors).toEqual([])
    const strict = vendor.parse({ ...compat.body, claims: compat.body.claims.map((c: object) => ({ ...c, status: "rejected" })) })
    expect(strict.ok ? [] : strict.errors).toEqual([])
    const page = await call("GET", `/api/encounters/compat-version?external_id=${String((payload as Record<string, unknown>).external_id)}`)
    expect(page.body.items[0].claims).toHaveLength(2)
    // The claim that is no longer the latest: 409 invalid_correction naming its status and actions.
    const again = await call("POST", `/api/claims/${claim}/corrections`, { ...writer(), body: { action: "resubmit" } })
    expectProblem(again, 409, "invalid_correction")
    expect([again.body.claim_id, again.body.current_status, again.body.requested_action, again.body.allowed_actions]).toEqual([claim, "rejected", "resubmit", ["resubmit"]])
    // A draft takes none.
    const draft = await call("POST", `/api/claims/${res.body.id}/corrections`, { ...writer(), body: { action: "void" } })
    expectProblem(draft, 409, "invalid_correction")
    expect(draft.body.allowed_actions).toEqual([])
  })

  test("bad bodies are 422 naming every field; unknown or another workspace's claim is 404", async () => {
    const { claim, payload } = await rejected("PCNH2", 702)
    const bad = await call("POST", `/api/claims/${claim}/corrections`, { ...writer(), body: { action: "redo" } })
    expectProblem(bad, 422, "validation_failed")
    expect(errorPaths(bad)).toEqual(["action"])
    const content = await call("POST", `/api/claims/${claim}/corrections`, {
      ...writer(),
      body: { action: "resubmit", encounter: { ...payload, diagnoses: [], patient: { ...(payload as unknown as { patient: object }).patient, date_of_birth: "soon" } } }
    })
    expectProblem(content, 422, "validation_failed")
    expect(errorPaths(content).length).toBeGreaterThanOrEqual(2)
    expect(errorPaths(content).every((p) => p.startsWith("encounter."))).toBe(true)
    expectProblem(await call("POST", `/api/claims/${unknownUuid()}/corrections`, { ...writer(), body: { action: "resubmit" } }), 404, "not_found")
    expectProblem(await call("GET", `/api/claims/${claim}`, { key: server.keys.b }), 404, "not_found")
    expectProblem(await call("GET", `/api/encounters/${unknownUuid()}/claims`), 404, "not_found")
  })
})
