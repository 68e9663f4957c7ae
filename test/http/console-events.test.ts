import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { seedEncounters } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, expectProblem } from "./client.js"
import { consoleCall, signInConsole } from "./console-support.js"

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
  await seedEncounters(server.url, server.keys.aWriter, 3, "ev")
  await seedEncounters(server.url, server.keys.b, 2, "theirs")
})
afterAll(() => server.close())

interface Row {
  readonly event_type: string
  readonly payload: { readonly external_id: string; readonly status: string; readonly previous_status?: string; readonly note?: string }
}

describe("console events", () => {
  test("without a session the feed is refused", async () => {
    expectProblem(await consoleCall(server, undefined, "GET", "/console/api/events"), 401, "session_required")
  })

  test("a read needs no CSRF token; a move shows as StatusUpdated with previous and new status and its note", async () => {
    const s = await signInConsole(server, server.keys.aWriter)
    const list = await api(server)("GET", "/api/encounters?external_id=ev-1001")
    const claimId = String(list.body.items[0].latest_claim.id)
    const moved = await consoleCall(server, s, "POST", `/console/api/claims/${claimId}/status`, { body: { status: "coded", note: "checked" } })
    expect(moved.status).toBe(200)
    const res = await consoleCall(server, s, "GET", "/console/api/events?event_type=ExternalApi.Encounter.StatusUpdated", { csrf: null })
    expect(res.status).toBe(200)
    expect(res.body.items.map((e: Row) => [e.event_type, e.payload.external_id, e.payload.previous_status, e.payload.status, e.payload.note])).toEqual([
      ["ExternalApi.Encounter.StatusUpdated", "ev-1001", "draft", "coded", "checked"]
    ])
  })

  test("another workspace's events are not shown; pages walk forward and back", async () => {
    const s = await signInConsole(server, server.keys.a)
    const all = await consoleCall(server, s, "GET", "/console/api/events?event_type=ExternalApi.Encounter.Created")
    const ids = all.body.items.map((e: Row) => e.payload.external_id)
    expect(ids.length).toBe(3)
    expect(ids.every((id: string) => id.startsWith("ev-"))).toBe(true)
    const first = await consoleCall(server, s, "GET", "/console/api/events?event_type=ExternalApi.Encounter.Created&limit=2")
    expect(first.body.items.length).toBe(2)
    const second = await consoleCall(server, s, "GET", `/console/api/events?event_type=ExternalApi.Encounter.Created&limit=2&page_token=${first.body.next_page_token}`)
    expect(second.body.items.map((e: Row) => e.payload.external_id)).toEqual([ids[2]])
    const back = await consoleCall(server, s, "GET", `/console/api/events?event_type=ExternalApi.Encounter.Created&limit=2&page_token=${second.body.prev_page_token}`)
    expect(back.body.items.map((e: Row) => e.payload.external_id)).toEqual(ids.slice(0, 2))
  })

  test("an unknown type or a bad bound names the field", async () => {
    const s = await signInConsole(server, server.keys.a)
    expectProblem(await consoleCall(server, s, "GET", "/console/api/events?event_type=Nope"), 400, "invalid_parameter")
    expectProblem(await consoleCall(server, s, "GET", "/console/api/events?created_after=yesterday"), 400, "invalid_parameter")
  })
})
