import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { join } from "node:path"
import { Effect } from "effect"
import { WorkspaceId } from "../../lib/domain/ids.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { RECOVER_LIMIT, RECOVER_PACE_MS } from "../../lib/rules/webhook-deliveries.js"
import { DEFAULT_MAX_ENDPOINTS } from "../../lib/webhooks/settings.js"
import { removeTemps, tempDir } from "../support/binary.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Answer, api, expectProblem } from "./client.js"

/** What one workspace may ask of push delivery: endpoints up to a limit, recover in bounded calls. */

let server: TestServer
let call: ReturnType<typeof api>
beforeAll(async () => {
  server = await startTestServer({ webhooks: { allowPrivate: true } })
  call = api(server)
})
afterAll(async () => {
  await server.close()
  removeTemps()
})

const URL = "http://127.0.0.1:9/hook"

const expectLimit = (r: Answer, limit: number) => {
  expectProblem(r, 409, "webhook_endpoint_limit")
  expect(r.body.detail).toContain(String(limit))
  expect(r.body.detail).toContain("--webhook-max-endpoints")
  expect([r.body.limit, r.body.setting]).toEqual([limit, "--webhook-max-endpoints"])
}

describe("endpoints per workspace", () => {
  test(`at most ${DEFAULT_MAX_ENDPOINTS} by default: one more is 409 naming the limit and the flag; a delete makes room`, async () => {
    const create = (key: string) => call("POST", "/api/webhooks/endpoints", { key, body: { url: URL } })
    const made: Array<string> = []
    for (let i = 0; i < DEFAULT_MAX_ENDPOINTS; i++) {
      const r = await create(server.keys.bHooks)
      expect(r.status).toBe(201)
      made.push(r.body.id)
    }
    expectLimit(await create(server.keys.bHooks), DEFAULT_MAX_ENDPOINTS)
    // Disabled endpoints count too: they keep their deliveries and can be enabled again.
    expect((await call("PATCH", `/api/webhooks/endpoints/${made[0]}`, { key: server.keys.bHooks, body: { status: "disabled" } })).status).toBe(200)
    expectLimit(await create(server.keys.bHooks), DEFAULT_MAX_ENDPOINTS)
    // Another workspace's limit is its own.
    expect((await create(server.keys.aHooks)).status).toBe(201)
    expect((await call("DELETE", `/api/webhooks/endpoints/${made[10]}`, { key: server.keys.bHooks })).status).toBe(204)
    expect((await create(server.keys.bHooks)).status).toBe(201)
    expectLimit(await create(server.keys.bHooks), DEFAULT_MAX_ENDPOINTS)
  })

  test("the server's setting changes it; creates that race for the last places cannot pass it (SQLite)", async () => {
    const small = await startTestServer({ db: join(tempDir("limits"), "encounterd.sqlite"), webhooks: { allowPrivate: true, maxEndpoints: 3 } })
    try {
      const create = () => api(small)("POST", "/api/webhooks/endpoints", { key: small.keys.aHooks, body: { url: URL } })
      expect((await create()).status).toBe(201)
      const raced = await Promise.all(Array.from({ length: 12 }, create))
      expect(raced.filter((r) => r.status === 201).length).toBe(2)
      for (const r of raced.filter((r) => r.status !== 201)) expectLimit(r, 3)
      const listed = await api(small)("GET", "/api/webhooks/endpoints", { key: small.keys.aHooks })
      expect(listed.body.items.length).toBe(3)
    } finally {
      await small.close()
    }
  })
})

describe("recover", () => {
  /** Events written straight through the rule: a thousand HTTP creates would only be slower. */
  const writeEvents = (ws: string, n: number, prefix: string) =>
    server.runtime.runPromise(
      Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) => createEncounter(WorkspaceId.make(ws), validPayload(`${prefix}-${i}`)), {
        discard: true
      })
    )
  const recover = (id: string, body: unknown) => call("POST", `/api/webhooks/endpoints/${id}/recover`, { key: server.keys.bHooks, body })
  const pending = async (id: string): Promise<Array<{ created_at: string; next_attempt_at: string; event_id: string }>> => {
    const out = []
    let token: string | null = null
    do {
      const page: Answer = await call("GET", `/api/webhooks/endpoints/${id}/deliveries?status=pending${token === null ? "" : `&page_token=${token}`}`, {
        key: server.keys.bHooks
      })
      out.push(...page.body.items)
      token = page.body.next_page_token
    } while (token !== null)
    return out
  }

  test(`at most ${RECOVER_LIMIT} per call, with the token to go on; due ${RECOVER_PACE_MS} ms apart behind what is pending`, async () => {
    // Workspace b's endpoints from the limit test are deleted first: this one is alone, without a worker.
    for (const e of (await call("GET", "/api/webhooks/endpoints", { key: server.keys.bHooks })).body.items) {
      await call("DELETE", `/api/webhooks/endpoints/${e.id}`, { key: server.keys.bHooks })
    }
    const since = new Date().toISOString()
    await writeEvents(server.workspaces.b, RECOVER_LIMIT + 25, "recover")
    const endpoint = await call("POST", "/api/webhooks/endpoints", { key: server.keys.bHooks, body: { url: URL } })
    expect(endpoint.status).toBe(201)
    const id = endpoint.body.id

    const first = await recover(id, { since })
    expect(first.status).toBe(202)
    expect([first.body.queued, first.body.more, typeof first.body.next_page_token]).toEqual([RECOVER_LIMIT, true, "string"])
    const afterFirst = await pending(id)
    expect(afterFirst.length).toBe(RECOVER_LIMIT)
    const due = afterFirst.map((d) => Date.parse(d.next_attempt_at)).sort((a, b) => a - b)
    // Spread over the call: one every RECOVER_PACE_MS, the first at once.
    expect(due.slice(1).map((t, i) => t - due[i]!)).toEqual(Array.from({ length: RECOVER_LIMIT - 1 }, () => RECOVER_PACE_MS))
    expect(due[0]).toBe(Date.parse(afterFirst[0]!.created_at))

    // The token belongs to this endpoint and this since.
    const elsewhere = await recover(id, { since: "2000-01-01T00:00:00Z", page_token: first.body.next_page_token })
    expectProblem(elsewhere, 422, "validation_failed")
    expect(elsewhere.body.errors).toEqual([{ path: "page_token", message: "was issued for other filters" }])
    for (const bad of ["nope!", 7]) {
      const r = await recover(id, { since, page_token: bad })
      expectProblem(r, 422, "validation_failed")
      expect(r.body.errors.map((e: { path: string }) => e.path)).toEqual(["page_token"])
    }

    const second = await recover(id, { since, page_token: first.body.next_page_token })
    expect([second.status, second.body.queued, second.body.more, second.body.next_page_token]).toEqual([202, 25, false, null])
    const all = await pending(id)
    expect(new Set(all.map((d) => d.event_id)).size).toBe(RECOVER_LIMIT + 25)
    // Queued behind the first call's thousand: a second call never doubles the pace.
    const firstCall = new Set(afterFirst.map((d) => d.event_id))
    const secondDue = all.filter((d) => !firstCall.has(d.event_id)).map((d) => Date.parse(d.next_attempt_at))
    expect(Math.min(...secondDue)).toBeGreaterThanOrEqual(due[due.length - 1]! + RECOVER_PACE_MS)

    // A live event is due at once, ahead of the recovered tail.
    await writeEvents(server.workspaces.b, 1, "live")
    const recovered = new Set(all.map((d) => d.event_id))
    const live = (await pending(id)).filter((d) => !recovered.has(d.event_id))
    expect(live.length).toBe(1)
    expect(Date.parse(live[0]!.next_attempt_at)).toBeLessThan(due[due.length - 1]!)
  }, 60_000)
})
