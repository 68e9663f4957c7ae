import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, expectProblem, uniqueId } from "./client.js"
import { consoleCall, signInConsole } from "./console-support.js"

/** The console's correction: the actions an encounter's page offers, and the write behind its session. */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

describe("console corrections", () => {
  test("the encounter page offers only what the status takes; a correction needs the CSRF token and claims:write", async () => {
    const call = api(server)
    const created = await call("POST", "/api/encounters", { body: validPayload(uniqueId("con-corr")) })
    const encounter: string = created.body.encounter_id
    const s = await signInConsole(server, server.keys.aWriter)
    const detail = async () => (await consoleCall(server, s, "GET", `/console/api/encounters/${encounter}`)).body
    const first = await detail()
    expect(first.allowed_corrections).toEqual([])
    const claim: string = first.encounter.latest_claim.id
    for (const status of ["submitted_to_payer", "rejected"]) {
      expect((await consoleCall(server, s, "POST", `/console/api/claims/${claim}/status`, { body: { status } })).status).toBe(200)
    }
    expect((await detail()).allowed_corrections).toEqual(["resubmit"])
    const path = `/console/api/claims/${claim}/corrections`
    expectProblem(await consoleCall(server, s, "POST", path, { body: { action: "resubmit" }, csrf: null }), 403, "csrf_failed")
    const reader = await signInConsole(server, server.keys.a)
    expectProblem(await consoleCall(server, reader, "POST", path, { body: { action: "resubmit" } }), 403, "forbidden")
    expectProblem(await consoleCall(server, s, "POST", path, { body: { action: "void" } }), 409, "invalid_correction")
    const made = await consoleCall(server, s, "POST", path, { body: { action: "resubmit", note: "member id fixed" } })
    expect(made.status).toBe(201)
    expect(made.body.claim.resubmission_original_claim_id).toBe(claim)
    const after = await detail()
    expect(after.encounter.latest_claim.id).toBe(made.body.claim.id)
    expect(after.allowed_corrections).toEqual([])
  })
})
