import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { exportablePayload } from "../contract/clearinghouse.contract.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, uniqueId } from "./client.js"
import { consoleCall, signInConsole } from "./console-support.js"

/** The encounter page's status checks: the claim's checks behind the session, and "check now" for claims:write. */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

describe("console status checks", () => {
  test("a key with claims:write checks now; any key reads the checks as the API lists them", async () => {
    const pcn = uniqueId("K").toUpperCase().replace(/[^A-Z0-9]/g, "").slice(-20)
    const created = await api(server)("POST", "/api/encounters", { body: exportablePayload(uniqueId("cs"), pcn) })
    const claim = (await api(server)("GET", `/api/encounters/${created.body.encounter_id}`)).body.latest_claim_id
    const path = `/console/api/claims/${claim}/status-checks`
    const writer = await signInConsole(server, server.keys.aWriter)
    const draft = await consoleCall(server, writer, "POST", path, {})
    expect([draft.status, draft.body.code]).toEqual([409, "not_submitted"])
    await api(server)("POST", `/api/claims/${claim}/status`, { key: server.keys.aWriter, body: { status: "submitted_to_payer" } })
    const now = await consoleCall(server, writer, "POST", path, {})
    expect([now.status, now.body.status]).toEqual([202, "queued"])
    const reader = await signInConsole(server, server.keys.a)
    expect((await consoleCall(server, reader, "POST", path, {})).status).toBe(403)
    const listed = await consoleCall(server, reader, "GET", path)
    expect(listed.body).toEqual((await api(server)("GET", `/api/claims/${claim}/status-checks`)).body)
    expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([now.body.id])
    const script = await fetch(`${server.url}/console/assets/status-checks-view.js`)
    expect([script.status, (await script.text()).includes("Check now")]).toEqual([200, true])
  })
})
