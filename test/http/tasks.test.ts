import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { exportablePayload } from "../contract/clearinghouse.contract.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, errorPaths, expectProblem, uniqueId, unknownUuid } from "./client.js"

/** The work queue over HTTP: tasks made by status moves, listed, read and changed; scopes and workspaces. */

let server: TestServer
let call: ReturnType<typeof api>
const claims: Array<string> = []

beforeAll(async () => {
  server = await startTestServer()
  call = api(server)
  for (const [i, to] of (["denied", "rejected"] as const).entries()) {
    const res = await call("POST", "/api/encounters", { body: exportablePayload(uniqueId("wq"), `PCNWQ${i}`) })
    const claim = (await call("GET", `/api/encounters/${res.body.encounter_id}`)).body.latest_claim_id
    claims.push(claim)
    for (const status of ["submitted_to_payer", to]) {
      expect((await call("POST", `/api/claims/${claim}/status`, { key: server.keys.aWriter, body: { status, note: `to ${status}` } })).status).toBe(200)
    }
  }
})
afterAll(() => server.close())

describe("GET /api/tasks", () => {
  test("the queue oldest due first, filtered; bad filters and unknown parameters are 400 naming them; another workspace sees none", async () => {
    const all = await call("GET", "/api/tasks")
    expect(all.status).toBe(200)
    expect(all.body.items.map((t: { type: string }) => t.type)).toEqual(["rejection_resolution", "denial_resolution"])
    expect(all.body.items[0].cause).toMatchObject({ kind: "status_change", text: "to rejected" })
    // The same queue read again (its tasks' renders kept, then the page remembered), and walked a task a page: the same tasks.
    expect((await call("GET", "/api/tasks")).body).toEqual(all.body)
    const remembered = await call("GET", "/api/tasks")
    expect(remembered.text).toBe(all.text)
    expect(remembered.headers.get("content-type")).toBe("application/json")
    const first = await call("GET", "/api/tasks?limit=1")
    const second = await call("GET", `/api/tasks?limit=1&page_token=${first.body.next_page_token}`)
    expect([...first.body.items, ...second.body.items]).toEqual(all.body.items)
    expect(second.body.next_page_token).toBeNull()
    const denied = await call("GET", `/api/tasks?type=denial_resolution&status=open&claim_id=${claims[0]}`)
    expect(denied.body.items.map((t: { claim_id: string }) => t.claim_id)).toEqual([claims[0]])
    const bad = await call("GET", "/api/tasks?status=closed&due_before=soon&limit=0")
    expectProblem(bad, 400, "invalid_parameter")
    expect(errorPaths(bad).sort()).toEqual(["due_before", "limit", "status"])
    expectProblem(await call("GET", "/api/tasks?stauts=open"), 400, "invalid_parameter")
    expect((await call("GET", "/api/tasks", { key: server.keys.b })).body.items).toEqual([])
  })
})

describe("GET and PATCH /api/tasks/{id}", () => {
  test("read by any key of the workspace; changed with tasks:write only; each change an event; 404 elsewhere", async () => {
    const [task] = (await call("GET", "/api/tasks?type=rejection_resolution")).body.items
    expect((await call("GET", `/api/tasks/${task.id}`)).body.id).toBe(task.id)
    expectProblem(await call("GET", `/api/tasks/${task.id}`, { key: server.keys.b }), 404, "not_found")
    expectProblem(await call("GET", `/api/tasks/${unknownUuid()}`), 404, "not_found")
    expectProblem(await call("PATCH", `/api/tasks/${task.id}`, { key: server.keys.aWriter, body: { status: "done" } }), 403, "forbidden")
    const bad = await call("PATCH", `/api/tasks/${task.id}`, { key: server.keys.aTasks, body: { status: "closed", note: "" } })
    expectProblem(bad, 422, "validation_failed")
    expect(errorPaths(bad).sort()).toEqual(["note", "status"])
    const changed = await call("PATCH", `/api/tasks/${task.id}`, {
      key: server.keys.aTasks,
      body: { status: "in_progress", assignee: "dana", due_at: "2026-12-01T09:00:00Z", note: "fixing the NPI" }
    })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ status: "in_progress", assignee: "dana", due_at: "2026-12-01T09:00:00.000Z" })
    expect(changed.body.notes.map((n: { text: string }) => n.text)).toEqual(["fixing the NPI"])
    expect((await call("GET", "/api/tasks?assignee=dana")).body.items.map((t: { id: string }) => t.id)).toEqual([task.id])
    // The whole queue, listed before the change too, shows the task as it is now, as its read does.
    const listed = (await call("GET", "/api/tasks")).body.items.find((t: { id: string }) => t.id === task.id)
    expect(listed).toMatchObject({ status: "in_progress", assignee: "dana", notes: [{ text: "fixing the NPI" }] })
    expect(listed).toEqual((await call("GET", `/api/tasks/${task.id}`)).body)
    // The event feed takes the task types beside the encounter ones.
    const events = await call("GET", "/api/encounters/compat-version/events?event_types=ExternalApi.Task.Created,ExternalApi.Task.Updated")
    expect(events.body.items.map((e: { event_type: string; payload: { task_id: string } }) => [e.event_type, e.payload.task_id === task.id])).toContainEqual([
      "ExternalApi.Task.Updated",
      true
    ])
  })

  test("the settings: read by any key, set with tasks:write, checked", async () => {
    expect((await call("GET", "/api/tasks/settings")).body).toEqual({ follow_up_after_days: null })
    expectProblem(await call("PUT", "/api/tasks/settings", { key: server.keys.aTasks, body: { follow_up_after_days: 0 } }), 422, "validation_failed")
    const put = await call("PUT", "/api/tasks/settings", { key: server.keys.aTasks, body: { follow_up_after_days: 30 } })
    expect([put.status, put.body]).toEqual([200, { follow_up_after_days: 30 }])
    expect((await call("GET", "/api/tasks/settings")).body).toEqual({ follow_up_after_days: 30 })
    expect((await call("GET", "/api/tasks/settings", { key: server.keys.b })).body).toEqual({ follow_up_after_days: null })
  })
})
