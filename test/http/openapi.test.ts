import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { DEFAULT_MAX_ENDPOINTS } from "../../lib/webhooks/settings.js"
import { routes } from "../../server/api.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Answer, api, type CallOptions, unknownUuid } from "./client.js"
import { allIds, isJson, makeRequestChecker, makeResponseChecker, redoclyProblems, type Seen, swaggerParserError } from "./openapi-check.js"
import { createBodies } from "./openapi-payloads.js"
import { driveCorrections } from "./openapi-corrections.js"
import { driveClearinghouse } from "./openapi-x12.js"
import { driveConnections } from "./openapi-sftp.js"
import { driveStatusChecks } from "./openapi-status-checks.js"
import { driveTasks } from "./openapi-tasks.js"

/**
 * The served OpenAPI document is valid OpenAPI 3.1, and it tells the truth: every route is driven
 * over real HTTP (successes and the error statuses it declares), and every answer must be declared
 * for its path, method and status, with a schema its body validates against.
 */

/**
 * Redocly "recommended" warnings accepted on purpose:
 * - operation-4xx-response on /healthz, /readyz and /api/openapi.json: open routes without input;
 *   they answer no 4XX of their own (only the router's 404/405, which no operation declares).
 * - info-license: the service is unlicensed (package.json "UNLICENSED"); no license to name.
 */
const ACCEPTED_WARNINGS = new Set(["operation-4xx-response", "info-license"])
/**
 * Ambiguous paths accepted on purpose: `/api/encounters/{id}/claims` and the compat read
 * `/api/encounters/compat-version/{encounter_id}` would both match `/api/encounters/compat-version/claims`;
 * the router takes the compat read (declared first), and no encounter id is `compat-version` (ids are UUIDs).
 */
const ACCEPTED_AMBIGUOUS = ["`/api/encounters/compat-version/{encounter_id}` and `/api/encounters/{id}/claims`"]
const accepted = (p: { readonly rule: string; readonly text: string }) =>
  ACCEPTED_WARNINGS.has(p.rule) || (p.rule === "no-ambiguous-paths" && ACCEPTED_AMBIGUOUS.some((pair) => p.text.includes(pair)))

/** Declared statuses no test can provoke: readiness fails only when the database does not answer. */
const UNPRODUCIBLE = new Set([
  "GET /readyz 503",
  // Need a server started with --metrics-key or --no-metrics: test/http/metrics.test.ts covers them.
  "GET /metrics 401",
  "GET /metrics 404"
])
/** 503 storage_unavailable needs a full disk, a held lock or a stopped database: test/binary/faults.test.ts provokes it. */
const unproducible = (key: string) => UNPRODUCIBLE.has(key) || key.endsWith(" 503")

/** Linting and compiling the schemas is CPU work; a busy machine must not turn it into a timeout. */
const SLOW = 60_000

const seen: Array<Seen> = []
let server: TestServer
let tight: TestServer
let doc: unknown

/** A real request whose answer is recorded against the route template it exercises. */
const hit = async (on: TestServer, template: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
  const res = await api(on)(method, path, options)
  const contentType = res.headers.get("content-type") ?? ""
  // A JSON answer is checked parsed; any other (the metrics text) as the text it is.
  seen.push({ template, method, status: res.status, contentType, body: /json/.test(contentType) ? res.body : res.text })
  return res
}
const json = (body: string): CallOptions => ({ raw: body, headers: { "content-type": "application/json" } })

beforeAll(async () => {
  // Webhook targets on loopback are allowed here: the answers, not the address checks, are under test.
  server = await startTestServer({ webhooks: { allowPrivate: true } })
  // Tiny limits: a few requests per key, then 429 for good; bodies over 8 KiB are 413.
  tight = await startTestServer({ config: { rateLimit: 0.001, rateBurst: 4, bodyLimit: 8192 } })
})
afterAll(async () => {
  await server.close()
  await tight.close()
})

describe("GET /api/openapi.json", () => {
  test("is valid OpenAPI 3.1 for Redocly (recommended ruleset) and Swagger Parser, and names this server", async () => {
    const res = await hit(server, "/api/openapi.json", "GET", "/api/openapi.json", { key: null })
    expect(res.status).toBe(200)
    doc = res.body
    const problems = await redoclyProblems(doc)
    expect(problems.filter((p) => p.severity === "error").map((p) => p.text)).toEqual([])
    expect(problems.filter((p) => !accepted(p)).map((p) => p.text)).toEqual([])
    expect(await swaggerParserError(doc)).toBeNull()
    expect(res.body.servers).toEqual([{ url: server.url, description: expect.any(String) }])
  }, SLOW)

  test("shares named schemas under components: every $ref resolves there, no $id repeats", () => {
    const text = JSON.stringify(doc)
    const refs = [...text.matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]!)
    expect(refs.length).toBeGreaterThan(0)
    const schemas = isJson(doc) && isJson(doc.components) && isJson(doc.components.schemas) ? doc.components.schemas : {}
    expect(refs.filter((r) => !r.startsWith("#/components/schemas/") || !(r.slice(21) in schemas))).toEqual([])
    const ids = allIds(doc)
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([])
    for (const name of ["Problem", "InvalidTransitionProblem", "Encounter", "Claim", "Event", "EncounterPage", "EventPage", "CompatEncounterPage", "CompatEncounter"]) {
      expect({ name, present: name in schemas }).toEqual({ name, present: true })
    }
    const compat = schemas.CompatEncounter
    const properties = isJson(compat) && isJson(compat.properties) ? Object.keys(compat.properties) : []
    expect(properties).toEqual(expect.arrayContaining(["encounter_id", "claims", "patient", "billing_provider", "diagnoses", "service_facility", "url"]))
    expect(properties.length).toBeGreaterThan(40)
  })
})

describe("every route, driven over HTTP", () => {
  const made: Array<{ id: string; claim: string; status: string }> = []
  const hooks: { endpoint: string; delivery: string } = { endpoint: "", delivery: "" }
  const ENDPOINTS = "/api/webhooks/endpoints"
  const ENDPOINT = "/api/webhooks/endpoints/{id}"

  test("successes", async () => {
    for (const path of ["/healthz", "/readyz", "/metrics"]) expect((await hit(server, path, "GET", path, { key: null })).status).toBe(200)
    expect((await hit(server, "/api/workspace", "GET", "/api/workspace")).status).toBe(200)
    const key = server.keys.aHooks
    // Registered before the creates, so that each create queues a delivery (the worker is not running).
    const endpoint = await hit(server, ENDPOINTS, "POST", ENDPOINTS, { key, body: { url: "http://127.0.0.1:9/hook", description: "EHR" } })
    expect(endpoint.status).toBe(201)
    hooks.endpoint = endpoint.body.id
    const typed = await hit(server, ENDPOINTS, "POST", ENDPOINTS, { key, body: { url: "https://127.0.0.1:9/x", event_types: ["ExternalApi.Encounter.StatusUpdated"] } })
    expect(typed.status).toBe(201)
    const bodies = createBodies()
    for (const body of bodies) {
      const res = await hit(server, "/api/encounters", "POST", "/api/encounters", json(body))
      expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 202, errors: undefined })
      const one = await hit(server, "/encounters/{id}", "GET", `/encounters/${res.body.encounter_id}`)
      made.push({ id: res.body.encounter_id, claim: one.body.latest_claim_id, status: one.body.latest_claim.status })
      await hit(server, "/api/encounters/{id}", "GET", `/api/encounters/${res.body.encounter_id}`)
      await hit(server, "/api/encounters/compat-version/{encounter_id}", "GET", `/api/encounters/compat-version/${res.body.encounter_id}`)
    }
    expect((await hit(server, "/api/encounters", "POST", "/api/encounters", json(bodies[0]!))).status).toBe(200)

    const draft = made.find((m) => m.status === "draft")!
    const move = (status: string) =>
      hit(server, "/api/claims/{claim_id}/status", "POST", `/api/claims/${draft.claim}/status`, { key: server.keys.aWriter, body: { status } })
    expect((await move("submitted_to_payer")).status).toBe(200)
    expect((await move("draft")).status).toBe(409)
    expect((await hit(server, "/api/claims/status-counts", "GET", "/api/claims/status-counts")).status).toBe(200)

    const lists: ReadonlyArray<readonly [string, string]> = [
      ["/encounters", "?limit=7"],
      ["/api/encounters", "?limit=7&claim_status=draft"],
      ["/api/encounters", "?limit=2&patient_last_name=t&date_of_service_from=2000-01-01&external_id_prefix=o"],
      ["/api/encounters/compat-version", "?limit=7"],
      ["/api/encounters/compat-version", "?claim_status=submitted_to_payer"],
      ["/api/encounters/compat-version/events", "?limit=7"],
      ["/api/encounters/compat-version/events", "?event_types=ExternalApi.Encounter.StatusUpdated"],
      ["/api/intake-requests", "?limit=7"],
      ["/api/intake-requests", "?outcome=accepted"]
    ]
    for (const [path, query] of lists) {
      const first = await hit(server, path, "GET", `${path}${query}`)
      expect(first.status).toBe(200)
      if (first.body.next_page_token !== null) {
        const next = await hit(server, path, "GET", `${path}${query}&page_token=${first.body.next_page_token}`)
        expect(next.status).toBe(200)
      }
    }
    const events = await hit(server, "/api/encounters/compat-version/events", "GET", "/api/encounters/compat-version/events")
    const eventId = events.body.items[0].id
    expect((await hit(server, "/api/encounters/compat-version/events/{event_id}", "GET", `/api/encounters/compat-version/events/${eventId}`)).status).toBe(200)
    const intake = await hit(server, "/api/intake-requests", "GET", "/api/intake-requests?limit=1")
    expect((await hit(server, "/api/intake-requests/{id}", "GET", `/api/intake-requests/${intake.body.items[0].id}`)).status).toBe(200)

    const at = (template: string) => template.replace("{id}", hooks.endpoint)
    for (const query of ["?limit=1", ""]) {
      const page = await hit(server, ENDPOINTS, "GET", `${ENDPOINTS}${query}`, { key })
      expect(page.status).toBe(200)
      if (page.body.next_page_token !== null) await hit(server, ENDPOINTS, "GET", `${ENDPOINTS}?limit=1&page_token=${page.body.next_page_token}`, { key })
    }
    expect((await hit(server, ENDPOINT, "GET", at(ENDPOINT), { key })).status).toBe(200)
    const disabled = await hit(server, ENDPOINT, "PATCH", at(ENDPOINT), { key, body: { status: "disabled", description: null } })
    expect([disabled.status, disabled.body.disabled_reason === null]).toEqual([200, false])
    expect((await hit(server, ENDPOINT, "PATCH", at(ENDPOINT), { key, body: { status: "enabled" } })).status).toBe(200)
    expect((await hit(server, `${ENDPOINT}/rotate-secret`, "POST", at(`${ENDPOINT}/rotate-secret`), { key })).status).toBe(200)
    const DELIVERIES = `${ENDPOINT}/deliveries`
    const deliveries = await hit(server, DELIVERIES, "GET", `${at(DELIVERIES)}?limit=2`, { key })
    expect(deliveries.status).toBe(200)
    expect(deliveries.body.next_page_token).not.toBeNull()
    await hit(server, DELIVERIES, "GET", `${at(DELIVERIES)}?limit=2&page_token=${deliveries.body.next_page_token}`, { key })
    expect((await hit(server, DELIVERIES, "GET", `${at(DELIVERIES)}?status=pending`, { key })).status).toBe(200)
    hooks.delivery = deliveries.body.items[0].id
    const retried = await hit(server, "/api/webhooks/deliveries/{id}/retry", "POST", `/api/webhooks/deliveries/${hooks.delivery}/retry`, { key })
    expect(retried.status).toBe(202)
    const recovered = await hit(server, `${ENDPOINT}/recover`, "POST", at(`${ENDPOINT}/recover`), { key, body: { since: "2020-01-01T00:00:00Z" } })
    expect([recovered.status, recovered.body.queued > 0]).toEqual([202, true])
    const doomed = await hit(server, ENDPOINTS, "POST", ENDPOINTS, { key, body: { url: "http://127.0.0.1:9/gone" } })
    expect((await hit(server, ENDPOINT, "DELETE", ENDPOINT.replace("{id}", doomed.body.id), { key })).status).toBe(204)
  }, SLOW)

  test("the clearinghouse routes: successes and declared errors", () => driveClearinghouse(hit, server, tight), SLOW)
  test("the status check routes: successes and declared errors", () => driveStatusChecks(hit, server, tight), SLOW)

  test("the clearinghouse connection routes: successes and declared errors", () => driveConnections(hit, server), SLOW)
  test("the work queue routes: successes and declared errors", () => driveTasks(hit, server, tight), SLOW)

  test("the correction routes: successes and declared errors", () => driveCorrections(hit, server, tight), SLOW)

  test("400, 401, 403, 404, 415 and 422 where the routes declare them", async () => {
    const [m] = made
    const authed = routes.filter((r) => r.auth)
    const concrete = (template: string) =>
      template
        .replace("{id}", m!.id)
        .replace("{encounter_id}", m!.id)
        .replace("{claim_id}", m!.claim)
        .replace("{event_id}", unknownUuid())
    for (const r of authed) await hit(server, r.path, r.method, concrete(r.path), { key: null, ...(r.method === "POST" ? { body: {} } : {}) })
    for (const list of ["/encounters", "/api/encounters", "/api/encounters/compat-version", "/api/encounters/compat-version/events", "/api/intake-requests"]) {
      await hit(server, list, "GET", `${list}?limit=abc`)
    }
    for (const template of ["/encounters/{id}", "/api/encounters/{id}", "/api/encounters/compat-version/{encounter_id}", "/api/encounters/compat-version/events/{event_id}", "/api/intake-requests/{id}"]) {
      await hit(server, template, "GET", template.replace(/\{\w+\}/, unknownUuid()))
    }
    const claimPath = `/api/claims/${m!.claim}/status`
    const writer = server.keys.aWriter
    await hit(server, "/api/claims/{claim_id}/status", "POST", `/api/claims/${unknownUuid()}/status`, { key: writer, body: { status: "coded" } })
    await hit(server, "/api/claims/{claim_id}/status", "POST", claimPath, { key: server.keys.a, body: { status: "coded" } })
    for (const [template, path, key] of [["/api/encounters", "/api/encounters", server.keys.a], ["/api/claims/{claim_id}/status", claimPath, writer]] as const) {
      await hit(server, template, "POST", path, { key, raw: "{", headers: { "content-type": "application/json" } })
      await hit(server, template, "POST", path, { key, raw: "{}", headers: { "content-type": "text/plain" } })
      await hit(server, template, "POST", path, { key, body: { status: "banana", external_id: "" } })
    }

    const hooksKey = server.keys.aHooks
    const webhookRoutes = routes.filter((r) => r.path.startsWith("/api/webhooks/"))
    for (const r of webhookRoutes) {
      await hit(server, r.path, r.method, r.path.replace("{id}", hooks.endpoint), { key: server.keys.a, ...(r.method === "GET" ? {} : { body: {} }) })
      if (r.path.includes("{id}")) await hit(server, r.path, r.method, r.path.replace("{id}", unknownUuid()), { key: hooksKey, ...(r.method === "GET" ? {} : { body: { since: "2020-01-01T00:00:00Z" } }) })
    }
    for (const list of [ENDPOINTS, `${ENDPOINT}/deliveries`]) await hit(server, list, "GET", `${list.replace("{id}", hooks.endpoint)}?limit=abc`, { key: hooksKey })
    const bodies: ReadonlyArray<readonly [string, string, unknown]> = [
      [ENDPOINTS, "POST", { url: "ftp://example.com", event_types: ["Nope"] }],
      [ENDPOINT, "PATCH", { url: "http://user:pw@example.com/" }],
      [`${ENDPOINT}/recover`, "POST", { since: "yesterday" }]
    ]
    for (const [template, method, bad] of bodies) {
      const path = template.replace("{id}", hooks.endpoint)
      await hit(server, template, method, path, { key: hooksKey, raw: "{", headers: { "content-type": "application/json" } })
      await hit(server, template, method, path, { key: hooksKey, raw: "{}", headers: { "content-type": "text/plain" } })
      await hit(server, template, method, path, { key: hooksKey, body: bad })
    }
    // 409: workspace b registers endpoints up to its limit, then one more.
    for (let i = 0; i <= DEFAULT_MAX_ENDPOINTS; i++) {
      if ((await hit(server, ENDPOINTS, "POST", ENDPOINTS, { key: server.keys.bHooks, body: { url: "http://127.0.0.1:9/limit" } })).status === 409) break
    }
  })

  test("users and the audit log (scope admin)", async () => {
    const key = server.keys.aAdmin
    const made = await hit(server, "/api/users", "POST", "/api/users", { key, body: { email: "openapi@clinic.test", name: "O. Pen", role: "viewer" } })
    await hit(server, "/api/users", "POST", "/api/users", { key, body: { email: "openapi@clinic.test", role: "viewer" } })
    await hit(server, "/api/users", "POST", "/api/users", { key, body: { email: "x", role: "owner" } })
    await hit(server, "/api/users", "POST", "/api/users", { key: server.keys.a, body: { email: "y@clinic.test", role: "viewer" } })
    const only = await hit(server, "/api/users", "POST", "/api/users", { key: server.keys.bAdmin, body: { email: "admin@clinic-b.test", role: "admin" } })
    await hit(server, "/api/users/{id}", "PATCH", `/api/users/${only.body.id}`, { key: server.keys.bAdmin, body: { role: "viewer" } })
    const user = `/api/users/${made.body.id}`
    await hit(server, "/api/users/{id}", "PATCH", user, { key, body: { role: "biller", name: null } })
    await hit(server, "/api/users/{id}", "PATCH", user, { key, body: { status: "gone" } })
    await hit(server, "/api/users/{id}", "PATCH", `/api/users/${unknownUuid()}`, { key, body: { role: "biller" } })
    await hit(server, "/api/users/{id}", "PATCH", user, { key: server.keys.a, body: { role: "biller" } })
    for (const [template, method, path] of [["/api/users", "POST", "/api/users"], ["/api/users/{id}", "PATCH", user]] as const) {
      await hit(server, template, method, path, { key, raw: "{", headers: { "content-type": "application/json" } })
      await hit(server, template, method, path, { key, raw: "{}", headers: { "content-type": "text/plain" } })
    }
    for (const [template, query] of [["/api/users", "limit=abc"], ["/api/audit", "since=yesterday"]] as const) {
      await hit(server, template, "GET", `${template}?limit=2`, { key })
      await hit(server, template, "GET", `${template}?${query}`, { key })
      await hit(server, template, "GET", template, { key: server.keys.a })
    }
    await hit(server, "/api/retention", "GET", "/api/retention", { key })
    await hit(server, "/api/retention", "GET", "/api/retention", { key: server.keys.a })
    await hit(server, "/api/retention", "PATCH", "/api/retention", { key, body: { raw_request_days: 30 } })
    await hit(server, "/api/retention", "PATCH", "/api/retention", { key, body: { audit_days: 1 } })
    await hit(server, "/api/retention", "PATCH", "/api/retention", { key: server.keys.a, body: { raw_request_days: 30 } })
    await hit(server, "/api/retention", "PATCH", "/api/retention", { key, raw: "{", headers: { "content-type": "application/json" } })
    await hit(server, "/api/retention", "PATCH", "/api/retention", { key, raw: "{}", headers: { "content-type": "text/plain" } })
  })

  test("413 and 429 on a server with tiny limits", async () => {
    const big = JSON.stringify({ ...validPayload("big"), metadata: { pad: "x".repeat(9000) } })
    await hit(tight, "/api/encounters", "POST", "/api/encounters", { key: tight.keys.b, ...json(big) })
    await hit(tight, "/api/claims/{claim_id}/status", "POST", `/api/claims/${unknownUuid()}/status`, { key: tight.keys.b, ...json(big) })
    for (const [template, method] of [["/api/webhooks/endpoints", "POST"], ["/api/webhooks/endpoints/{id}", "PATCH"], ["/api/webhooks/endpoints/{id}/recover", "POST"]] as const) {
      await hit(tight, template, method, template.replace("{id}", unknownUuid()), { key: tight.keys.aHooks, ...json(big) })
    }
    for (const r of routes.filter((r) => r.auth)) {
      const path = r.path.replace(/\{\w+\}/, unknownUuid())
      const options: CallOptions = r.method === "POST" ? { body: validPayload(`rl-${path}`) } : {}
      for (let i = 0; i < 5 && (await hit(tight, r.path, r.method, path, options)).status !== 429; i++);
    }
  })
})

describe("what the routes answered", () => {
  test("every answer is declared, with a schema its body is valid against", () => {
    const check = makeResponseChecker(doc)
    expect(seen.length).toBeGreaterThan(100)
    expect(seen.flatMap(check)).toEqual([])
  }, SLOW)

  test("the create and status bodies the server accepted are valid against the declared request bodies", () => {
    const check = makeRequestChecker(doc)
    const creates = createBodies().flatMap((b) => check("POST", "/api/encounters", JSON.parse(b)))
    const moves = [{ status: "submitted_to_payer" }, { status: "coded", note: "checked" }].flatMap((b) => check("POST", "/api/claims/{claim_id}/status", b))
    const hooks = [
      check("POST", "/api/webhooks/endpoints", { url: "https://example.com/hook", event_types: ["ExternalApi.Encounter.Created"], description: "EHR" }),
      check("PATCH", "/api/webhooks/endpoints/{id}", { status: "disabled", description: null }),
      check("POST", "/api/webhooks/endpoints/{id}/recover", { since: "2020-01-01T00:00:00Z" }),
      check("POST", "/api/webhooks/endpoints/{id}/recover", { since: "2020-01-01T00:00:00Z", page_token: "eyJkIjoibiJ9" })
    ].flat()
    expect([...creates, ...moves, ...hooks]).toEqual([])
    expect(check("POST", "/api/claims/{claim_id}/status", { status: "banana" })).not.toEqual([])
  }, SLOW)

  test("every declared status was produced (except those no test can provoke)", () => {
    const produced = new Set(seen.map((s) => `${s.method} ${s.template} ${s.status}`))
    const missing = routes.flatMap((r) =>
      Object.keys(r.responses)
        .map((status) => `${r.method} ${r.path} ${status}`)
        .filter((k) => !produced.has(k) && !unproducible(k))
    )
    expect(missing).toEqual([])
  })
})
