import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ClaimStatuses, ClaimTransitions } from "../../lib/domain/claim-status.js"
import { createApiKey, revokeApiKey } from "../../lib/rules/workspaces.js"
import { routes } from "../../server/api.js"
import { flushLog } from "../../server/log.js"
import { validPayload } from "../support/payloads.js"
import { capturedLogs, startTestServer, type TestServer } from "../support/server.js"
import { type Answer, api, expectProblem, expectShape, uniqueId, unknownUuid } from "./client.js"

let server: TestServer
let call: ReturnType<typeof api>
beforeAll(async () => {
  server = await startTestServer()
  call = api(server)
})
afterAll(() => server.close())

const expect401 = (res: Answer) => {
  expectProblem(res, 401, "unauthorized")
  expect(res.headers.get("www-authenticate") ?? "").toStartWith("Bearer")
}

describe("authentication", () => {
  test("GET /api/workspace returns the key's workspace", async () => {
    const expected = [
      [server.keys.a, { id: server.workspaces.a, slug: "clinic-a", name: "Clinic A" }],
      [server.keys.aWriter, { id: server.workspaces.a, slug: "clinic-a", name: "Clinic A" }],
      [server.keys.b, { id: server.workspaces.b, slug: "clinic-b", name: "Clinic B" }]
    ] as const
    for (const [key, workspace] of expected) {
      const res = await call("GET", "/api/workspace", { key })
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: workspace })
    }
  })

  const wrong = `eik_${"W".repeat(40)}`
  for (const [what, header] of [
    ["no header", undefined],
    ["Basic auth", "Basic x"],
    ["Bearer without a key", "Bearer"],
    ["an unknown key", `Bearer ${wrong}`],
    ["a malformed key", "Bearer eik_wrong"]
  ] as const) {
    test(`401 unauthorized with WWW-Authenticate: Bearer for ${what}`, async () => {
      const res = await call("GET", "/api/workspace", { key: null, headers: header === undefined ? {} : { authorization: header } })
      expect401(res)
    })
  }

  test("a revoked key is refused on the very next request", async () => {
    const fresh = await server.runtime.runPromise(createApiKey("clinic-a"))
    expect((await call("GET", "/api/workspace", { key: fresh.key })).status).toBe(200)
    await server.runtime.runPromise(revokeApiKey(fresh.id))
    expect401(await call("GET", "/api/workspace", { key: fresh.key }))
    expect401(await call("GET", "/encounters", { key: fresh.key }))
  })
})

describe("request ids, errors, routing", () => {
  test("every response carries X-Request-Id; a safe incoming one is echoed, an unsafe one is not", async () => {
    const answers = [
      await call("GET", "/api/workspace"),
      await call("GET", "/api/workspace", { key: null }),
      await call("GET", "/api/nothing-here"),
      await call("DELETE", "/api/encounters"),
      await call("GET", "/healthz", { key: null })
    ]
    for (const res of answers) expect(res.headers.get("x-request-id") ?? "").toMatch(/\S/)
    const echoed = await call("GET", "/api/workspace", { headers: { "x-request-id": "req-test.123:abc" } })
    expect(echoed.headers.get("x-request-id")).toBe("req-test.123:abc")
    const echoedError = await call("GET", "/api/nothing", { headers: { "x-request-id": "req-err-1" } })
    expect(echoedError.headers.get("x-request-id")).toBe("req-err-1")
    expect(echoedError.body.request_id).toBe("req-err-1")
    const unsafe = await call("GET", "/api/workspace", { headers: { "x-request-id": "<script>alert(1)</script>" } })
    expect(unsafe.headers.get("x-request-id") ?? "").not.toContain("<")
  })

  test("error bodies are problem+json with type, title, status, detail, code, request_id", async () => {
    const res = await call("GET", `/encounters/${unknownUuid()}`)
    expectProblem(res, 404, "not_found")
    expect(Object.keys(res.body).sort()).toEqual(["code", "detail", "request_id", "status", "title", "type"])
  })

  test("an unknown route is 404 not_found", async () => {
    expectProblem(await call("GET", "/api/does-not-exist"), 404, "not_found")
    expectProblem(await call("GET", "/nope", { key: null }), 404, "not_found")
  })

  test("a wrong method is 405 method_not_allowed with an Allow header", async () => {
    const del = await call("DELETE", "/api/encounters")
    expectProblem(del, 405, "method_not_allowed")
    expect((del.headers.get("allow") ?? "").split(/,\s*/).sort()).toEqual(["GET", "POST"])
    const put = await call("PUT", "/api/workspace", { body: {} })
    expectProblem(put, 405, "method_not_allowed")
    expect(put.headers.get("allow")).toBe("GET")
  })

  test("/healthz and /readyz answer 200 without a key", async () => {
    expectShape(await call("GET", "/healthz", { key: null }), { status: 200, body: { status: "ok" } })
    expectShape(await call("GET", "/readyz", { key: null }), { status: 200, body: { status: "ready" } })
  })

  test("GET /api/openapi.json describes every route and the transition table, without a key", async () => {
    const res = await call("GET", "/api/openapi.json", { key: null })
    expect(res.status).toBe(200)
    expect(res.body.openapi).toBe("3.1.0")
    for (const r of routes) expect({ path: r.path, op: typeof res.body.paths?.[r.path]?.[r.method.toLowerCase()] }).toEqual({ path: r.path, op: "object" })
    const lines: Array<string> = String(res.body.info.description).split("\n")
    for (const [from, to] of Object.entries(ClaimTransitions)) {
      const row = lines.find((l) => new RegExp(`^\\|\\s*${from}\\s*\\|`).test(l))
      expect({ from, row: row !== undefined }).toEqual({ from, row: true })
      const named = (row!.split("|")[2] ?? "").split(",").map((s) => s.trim()).filter((s) => (ClaimStatuses as ReadonlyArray<string>).includes(s))
      expect({ from, to: named.sort() }).toEqual({ from, to: [...to].sort() })
    }
  })
})

describe("rate limit (rate 1/s, burst 3)", () => {
  let limited: TestServer
  beforeAll(async () => {
    limited = await startTestServer({ config: { rateLimit: 1, rateBurst: 3 } })
  })
  afterAll(() => limited.close())

  test("the 4th quick request of one key is 429 rate_limited; another key still passes", async () => {
    const get = api(limited)
    for (let i = 0; i < 3; i++) {
      const ok = await get("GET", "/api/workspace")
      expect(ok.status).toBe(200)
      expect(ok.headers.get("ratelimit-limit")).toBe("3")
      expect(ok.headers.get("ratelimit-remaining")).toBe(String(2 - i))
    }
    const refused = await get("GET", "/api/workspace")
    expectProblem(refused, 429, "rate_limited")
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.get("ratelimit-limit")).toBe("3")
    expect(refused.headers.get("ratelimit-remaining")).toBe("0")
    expectShape(await get("GET", "/api/workspace", { key: limited.keys.b }), { status: 200, body: { slug: "clinic-b" } })
  })
})

describe("workspace isolation (key b against workspace a's records)", () => {
  let ext: string
  let id: string
  let claimId: string
  let eventId: string
  let token: string
  beforeAll(async () => {
    ext = uniqueId("iso")
    id = (await call("POST", "/api/encounters", { body: validPayload(ext) })).body.encounter_id
    await call("POST", "/api/encounters", { body: validPayload(uniqueId("iso2")) })
    claimId = (await call("GET", `/encounters/${id}`)).body.latest_claim_id
    const events = (await call("GET", "/api/encounters/compat-version/events")).body.items
    eventId = events.find((e: { payload: { encounter_id: string } }) => e.payload.encounter_id === id).id
    token = (await call("GET", "/encounters?limit=1")).body.next_page_token
  })
  const asB = (method: string, path: string, body?: unknown) => call(method, path, { key: server.keys.b, ...(body ? { body } : {}) })
  const leaksNothing = (res: Answer) => {
    expect(res.text).not.toContain(ext)
    expect(res.text).not.toContain(claimId)
  }
  /** The answer for A's id, with the id the caller sent masked, is the answer for an id that never existed. */
  const sameAsUnknown = async (path: string, res: Answer) => {
    const other = unknownUuid()
    const unknown = await asB("GET", path.replace(id, other))
    const mask = (a: Answer, s: string) => ({ ...a.body, request_id: "-", detail: String(a.body.detail).replaceAll(s, "ID") })
    expect(mask(res, id)).toEqual(mask(unknown, other))
  }

  for (const path of ["/encounters/{id}", "/api/encounters/{id}", "/api/encounters/compat-version/{id}"]) {
    test(`GET ${path} of A's encounter is 404, like an unknown id`, async () => {
      const res = await asB("GET", path.replace("{id}", id))
      expectProblem(res, 404, "not_found")
      leaksNothing(res)
      await sameAsUnknown(path.replace("{id}", id), res)
    })
  }

  test("A's event id and A's claim are 404 for B, and A's claim keeps its status", async () => {
    for (const res of [await asB("GET", `/api/encounters/compat-version/events/${eventId}`), await asB("POST", `/api/claims/${claimId}/status`, { status: "submitted_to_payer" })]) {
      expectProblem(res, 404, "not_found")
      expect(res.text).not.toContain(id)
      expect(res.text).not.toContain(ext)
    }
    expect((await call("GET", `/encounters/${id}`)).body.latest_claim.status).toBe("draft")
  })

  test("A's external_id as a filter gives B an empty list; B's event feed has none of A's", async () => {
    for (const path of ["/encounters", "/api/encounters", "/api/encounters/compat-version"]) {
      const res = await asB("GET", `${path}?external_id=${ext}`)
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { items: [], next_page_token: null, prev_page_token: null } })
    }
    const feed = await asB("GET", "/api/encounters/compat-version/events")
    expect(feed.status).toBe(200)
    expect(feed.text).not.toContain(id)
    leaksNothing(feed)
  })

  test("A's page token is 400 for B", async () => {
    expect(token).toEqual(expect.any(String))
    const res = await asB("GET", `/encounters?limit=1&page_token=${token}`)
    expectProblem(res, 400, "invalid_parameter")
    expect(res.text).not.toContain(id)
    leaksNothing(res)
  })
})

describe("request logs", () => {
  test("one JSON line per request with the operational fields and no patient data", async () => {
    const names = { first_name: "Zelphira", last_name: "Quokkason" }
    const payload = validPayload(uniqueId("log"), { patient: { ...(validPayload("x").patient as object), ...names } })
    const bad = { ...payload, billable_status: 7 }
    const sent: Array<[string, Answer, string | null, string | null]> = []
    const send = async (method: string, path: string, route: string | null, ws: string | null, opts = {}) => {
      const rid = uniqueId("log-rid")
      sent.push([rid, await call(method, path, { ...opts, headers: { "x-request-id": rid } }), route, ws])
    }
    await send("POST", "/api/encounters", "/api/encounters", server.workspaces.a, { body: payload })
    await send("POST", "/api/encounters", "/api/encounters", server.workspaces.a, { body: bad })
    await send("GET", `/encounters/${sent[0]![1].body.encounter_id}`, "/encounters/{id}", server.workspaces.a)
    await send("GET", "/api/workspace", "/api/workspace", null, { key: null })
    await send("GET", "/no/such/route", null, null)
    expect(sent.map(([, res]) => res.status)).toEqual([202, 422, 200, 401, 404])
    flushLog()
    for (const [rid, res, route, ws] of sent) {
      const lines = capturedLogs.map((l) => JSON.parse(l)).filter((l) => l.request_id === rid)
      expect(lines.length).toBe(1)
      expectShape(lines[0], { method: expect.any(String), route, status: res.status, duration_ms: expect.any(Number), request_id: rid, workspace_id: ws })
    }
    for (const line of capturedLogs) {
      expect(line).not.toContain(names.first_name)
      expect(line).not.toContain(names.last_name)
    }
  })
})

describe("the HTTP layer on SQLite storage", () => {
  const dir = mkdtempSync(join(tmpdir(), "encounterd-http-"))
  let sql: TestServer
  beforeAll(async () => {
    sql = await startTestServer({ db: join(dir, "http.sqlite") })
  })
  afterAll(async () => {
    await sql.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test("create, replay, read, list, events and a status change", async () => {
    const q = api(sql)
    const ext = uniqueId("sql")
    const created = await q("POST", "/api/encounters", { body: validPayload(ext) })
    expect(created.status).toBe(202)
    const encId = created.body.encounter_id
    expect(created.body).toEqual({ encounter_id: encId, encounterId: encId })
    expect((await q("POST", "/api/encounters", { body: validPayload(ext) })).body).toEqual({ encounter_id: encId, encounterId: encId, duplicate: true })
    const read = await q("GET", `/api/encounters/${encId}`)
    expect(read.status).toBe(200)
    expectShape(read.body, { id: encId, external_id: ext, source: "api", latest_claim: { status: "draft", service_lines: [{ quantity: 1 }] } })
    const list = await q("GET", `/encounters?external_id=${ext}`)
    expect(list.body.items).toEqual([read.body])
    expect((await q("GET", `/api/encounters/compat-version/${encId}`)).status).toBe(200)
    const changed = await q("POST", `/api/claims/${read.body.latest_claim_id}/status`, { key: sql.keys.aWriter, body: { status: "submitted_to_payer" } })
    expectShape(changed, { status: 200, body: { status: "submitted_to_payer" } })
    const events = (await q("GET", "/api/encounters/compat-version/events")).body.items
    expect(events.map((e: { event_type: string; payload: { encounter_id: string } }) => [e.event_type, e.payload.encounter_id])).toEqual([
      ["ExternalApi.Encounter.Created", encId],
      ["ExternalApi.Encounter.StatusUpdated", encId]
    ])
    expectProblem(await q("GET", `/encounters/${encId}`, { key: sql.keys.b }), 404, "not_found")
  })
})
