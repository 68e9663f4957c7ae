import { expect } from "bun:test"
import { exportablePayload } from "../contract/clearinghouse.contract.js"
import type { TestServer } from "../support/server.js"
import { type Answer, type CallOptions, uniqueId, unknownUuid } from "./client.js"

type Hit = (on: TestServer, template: string, method: string, path: string, options?: CallOptions) => Promise<Answer>

const jsonBody = (body: string): CallOptions => ({ raw: body, headers: { "content-type": "application/json" } })

/** Drives every work queue route through its successes and declared errors (413 on the tight server). */
export const driveTasks = async (hit: Hit, server: TestServer, tight: TestServer) => {
  const writer = { key: server.keys.aTasks }
  const created = await hit(server, "/api/encounters", "POST", "/api/encounters", { body: exportablePayload(uniqueId("wq"), uniqueId("W").toUpperCase().replace(/[^A-Z0-9]/g, "").slice(-20)) })
  expect(created.status).toBe(202)
  const claim = (await hit(server, "/api/encounters/{id}", "GET", `/api/encounters/${created.body.encounter_id}`)).body.latest_claim_id
  for (const status of ["submitted_to_payer", "denied"]) {
    await hit(server, "/api/claims/{claim_id}/status", "POST", `/api/claims/${claim}/status`, { key: server.keys.aWriter, body: { status } })
  }
  const list = await hit(server, "/api/tasks", "GET", `/api/tasks?claim_id=${claim}`)
  expect(list.status).toBe(200)
  const id: string = list.body.items[0].id
  expect((await hit(server, "/api/tasks", "GET", "/api/tasks?status=nope")).status).toBe(400)
  const one = "/api/tasks/{id}"
  expect((await hit(server, one, "GET", `/api/tasks/${id}`)).status).toBe(200)
  expect((await hit(server, one, "GET", `/api/tasks/${unknownUuid()}`)).status).toBe(404)
  const settings = "/api/tasks/settings"
  expect((await hit(server, settings, "GET", settings)).status).toBe(200)
  for (const [template, method, path, good, bad] of [
    [one, "PATCH", `/api/tasks/${id}`, { assignee: "dana", note: "on it" }, { status: "closed" }],
    [settings, "PUT", settings, { follow_up_after_days: 45 }, { follow_up_after_days: -1 }]
  ] as const) {
    expect((await hit(server, template, method, path, { ...writer, body: good })).status).toBe(200)
    expect((await hit(server, template, method, path, { body: good })).status).toBe(403)
    expect((await hit(server, template, method, path, { ...writer, ...jsonBody("{") })).status).toBe(400)
    expect((await hit(server, template, method, path, { ...writer, raw: "{}", headers: { "content-type": "text/plain" } })).status).toBe(415)
    expect((await hit(server, template, method, path, { ...writer, body: bad })).status).toBe(422)
    const big = jsonBody(JSON.stringify({ note: "x".repeat(9000) }))
    expect((await hit(tight, template, method, path.replace(id, unknownUuid()), { key: tight.keys.aTasks, ...big })).status).toBe(413)
  }
  expect((await hit(server, one, "PATCH", `/api/tasks/${unknownUuid()}`, { ...writer, body: { note: "x" } })).status).toBe(404)
}
