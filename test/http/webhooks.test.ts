import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, errorPaths, expectProblem, unknownUuid } from "./client.js"

/** The webhook endpoint API: scope, workspace isolation, validation with paths, secrets shown once. */

let server: TestServer
let call: ReturnType<typeof api>
beforeAll(async () => {
  server = await startTestServer({ webhooks: { allowPrivate: true } })
  call = api(server)
})
afterAll(() => server.close())

const URL_A = "http://127.0.0.1:9/hook"

describe("webhook endpoints", () => {
  test("every webhook route needs the scope webhooks:write, reads included", async () => {
    const routes: ReadonlyArray<readonly [string, string]> = [
      ["GET", "/api/webhooks/endpoints"],
      ["POST", "/api/webhooks/endpoints"],
      ["GET", `/api/webhooks/endpoints/${unknownUuid()}`],
      ["PATCH", `/api/webhooks/endpoints/${unknownUuid()}`],
      ["DELETE", `/api/webhooks/endpoints/${unknownUuid()}`],
      ["POST", `/api/webhooks/endpoints/${unknownUuid()}/rotate-secret`],
      ["GET", `/api/webhooks/endpoints/${unknownUuid()}/deliveries`],
      ["POST", `/api/webhooks/endpoints/${unknownUuid()}/recover`],
      ["POST", `/api/webhooks/deliveries/${unknownUuid()}/retry`]
    ]
    for (const [method, path] of routes) {
      for (const key of [server.keys.a, server.keys.aWriter]) {
        expectProblem(await call(method, path, { key, ...(method === "GET" ? {} : { body: { url: URL_A } }) }), 403, "forbidden")
      }
    }
  })

  test("create answers the secret once; reads never show it; event_types absent is []", async () => {
    const created = await call("POST", "/api/webhooks/endpoints", { key: server.keys.aHooks, body: { url: URL_A } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ url: URL_A, event_types: [], description: null, status: "enabled", disabled_reason: null })
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(created.body.secret.slice(6), "base64").length).toBe(32)
    const read = await call("GET", `/api/webhooks/endpoints/${created.body.id}`, { key: server.keys.aHooks })
    const listed = await call("GET", "/api/webhooks/endpoints", { key: server.keys.aHooks })
    for (const text of [read.text, listed.text]) {
      expect(text).not.toContain("secret")
      expect(text).not.toContain(created.body.secret.slice(6, 20))
    }
    expect(listed.body.items.map((e: { id: string }) => e.id)).toContain(created.body.id)
  })

  test("another workspace's endpoint and delivery are not found", async () => {
    const mine = await call("POST", "/api/webhooks/endpoints", { key: server.keys.aHooks, body: { url: URL_A } })
    await call("POST", "/api/encounters", { body: validPayload(`iso-${Date.now()}`) })
    const deliveries = await call("GET", `/api/webhooks/endpoints/${mine.body.id}/deliveries`, { key: server.keys.aHooks })
    expect(deliveries.body.items.length).toBe(1)
    const delivery = deliveries.body.items[0].id
    const b = server.keys.bHooks
    for (const [method, path] of [
      ["GET", `/api/webhooks/endpoints/${mine.body.id}`],
      ["PATCH", `/api/webhooks/endpoints/${mine.body.id}`],
      ["DELETE", `/api/webhooks/endpoints/${mine.body.id}`],
      ["POST", `/api/webhooks/endpoints/${mine.body.id}/rotate-secret`],
      ["GET", `/api/webhooks/endpoints/${mine.body.id}/deliveries`],
      ["POST", `/api/webhooks/endpoints/${mine.body.id}/recover`],
      ["POST", `/api/webhooks/deliveries/${delivery}/retry`],
      ["GET", "/api/webhooks/endpoints/not-a-uuid"]
    ] as const) {
      expectProblem(await call(method, path, { key: b, ...(method === "GET" ? {} : { body: { since: "2020-01-01T00:00:00Z" } }) }), 404, "not_found")
    }
    expect((await call("GET", "/api/webhooks/endpoints", { key: b })).body.items).toEqual([])
    // Still there for its owner.
    expect((await call("GET", `/api/webhooks/endpoints/${mine.body.id}`, { key: server.keys.aHooks })).status).toBe(200)
  })

  test("bad input is 422 validation_failed naming each path", async () => {
    const create = (body: unknown) => call("POST", "/api/webhooks/endpoints", { key: server.keys.aHooks, body })
    const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string>]> = [
      [{}, ["url"]],
      [{ url: "ftp://example.com/x" }, ["url"]],
      [{ url: "https://user:pw@example.com/x" }, ["url"]],
      [{ url: "/relative" }, ["url"]],
      [{ url: URL_A, event_types: ["ExternalApi.Encounter.Created", "Nope"] }, ["event_types[1]"]],
      [{ url: URL_A, event_types: "ExternalApi.Encounter.Created" }, ["event_types"]],
      [{ url: URL_A, description: "x".repeat(501) }, ["description"]],
      [[], ["$"]]
    ]
    for (const [body, paths] of cases) {
      const r = await create(body)
      expectProblem(r, 422, "validation_failed")
      expect({ body, paths: errorPaths(r) }).toEqual({ body, paths: [...paths] })
    }
    const made = await create({ url: URL_A })
    const patch = await call("PATCH", `/api/webhooks/endpoints/${made.body.id}`, { key: server.keys.aHooks, body: { status: "paused", url: 3 } })
    expectProblem(patch, 422, "validation_failed")
    expect(errorPaths(patch).sort()).toEqual(["status", "url"])
    expectProblem(await call("GET", `/api/webhooks/endpoints/${made.body.id}/deliveries?status=lost`, { key: server.keys.aHooks }), 400, "invalid_parameter")
  })

  test("patch changes what it names; disabling records a reason, enabling clears it; delete is 204 then 404", async () => {
    const key = server.keys.aHooks
    const made = await call("POST", "/api/webhooks/endpoints", { key, body: { url: URL_A, description: "first" } })
    const path = `/api/webhooks/endpoints/${made.body.id}`
    const off = await call("PATCH", path, { key, body: { status: "disabled", event_types: ["ExternalApi.Encounter.Created"] } })
    expect(off.body).toMatchObject({ status: "disabled", description: "first", event_types: ["ExternalApi.Encounter.Created"] })
    expect(typeof off.body.disabled_reason).toBe("string")
    const on = await call("PATCH", path, { key, body: { status: "enabled", description: null } })
    expect(on.body).toMatchObject({ status: "enabled", disabled_reason: null, description: null })
    const gone = await call("DELETE", path, { key })
    expect([gone.status, gone.text]).toEqual([204, ""])
    expectProblem(await call("GET", path, { key }), 404, "not_found")
  })
})
