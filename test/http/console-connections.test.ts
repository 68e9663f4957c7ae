import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, expectProblem, unknownUuid } from "./client.js"
import { consoleCall, signInConsole } from "./console-support.js"
import { connectionBody } from "./openapi-sftp.js"

/** The console's clearinghouse connections: the API's reads behind the session, never a secret. */

let server: TestServer
let id: string

beforeAll(async () => {
  server = await startTestServer()
  const created = await api(server)("POST", "/api/clearinghouse/connections", { key: server.keys.aWriter, body: connectionBody })
  id = created.body.id
})
afterAll(() => server.close())

describe("console clearinghouse connections", () => {
  test("connections, one with its alerts, and its activity, as the API answers them; no secret", async () => {
    const s = await signInConsole(server, server.keys.a)
    const list = await consoleCall(server, s, "GET", "/console/api/clearinghouse/connections")
    expect(list.body).toEqual((await api(server)("GET", "/api/clearinghouse/connections", { key: server.keys.aWriter })).body)
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([id])
    const one = await consoleCall(server, s, "GET", `/console/api/clearinghouse/connections/${id}`)
    expect(one.body).toMatchObject({ id, pending_uploads: 0, alerts: [], last_error: null })
    expect(JSON.stringify([list.body, one.body])).not.toContain(connectionBody.password)
    const activity = await consoleCall(server, s, "GET", `/console/api/clearinghouse/connections/${id}/activity`)
    expect(activity.body).toEqual({ items: [], next_page_token: null })
  })

  test("another workspace's connection is not found, nor listed; without a session nothing is read", async () => {
    const s = await signInConsole(server, server.keys.b)
    expect((await consoleCall(server, s, "GET", "/console/api/clearinghouse/connections")).body.items).toEqual([])
    expectProblem(await consoleCall(server, s, "GET", `/console/api/clearinghouse/connections/${id}`), 404, "not_found")
    expectProblem(await consoleCall(server, s, "GET", `/console/api/clearinghouse/connections/${unknownUuid()}/activity`), 404, "not_found")
    expectProblem(await consoleCall(server, undefined, "GET", "/console/api/clearinghouse/connections"), 401, "session_required")
  })
})
