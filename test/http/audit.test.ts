import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { servedRoutes } from "../../server/api.js"
import { seedEncounters, seedExchange, type SeededExchange, sendRejected } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { validPayload } from "../support/payloads.js"
import { api, expectProblem } from "./client.js"
import { consoleCall, signInConsole } from "./console-support.js"

let server: TestServer
let exchange: SeededExchange

beforeAll(async () => {
  server = await startTestServer()
  await seedEncounters(server.url, server.keys.aWriter, 3, "aud")
  await sendRejected(server.url, server.keys.aWriter, "aud-bad-1")
  exchange = await seedExchange(server.url, server.keys.aWriter, "audx")
})
afterAll(() => server.close())

/** What a seeded encounter holds that must never reach the log: names, birth date, external ids, search values. */
const PHI = ["Avery", "Testpatient", "Jordan", "Samplesmith", "1984-03-27", "aud-1001", "pt-1000", "Quixote"]

const auditOf = async (query: string) => {
  const res = await api(server)("GET", `/api/audit?${query}`, { key: server.keys.aAdmin })
  expect(res.status).toBe(200)
  return res.body.items as ReadonlyArray<Record<string, any>>
}

describe("audit declarations", () => {
  test("every authenticated API route and every console data route says what patient data it touches (or none)", () => {
    const undeclared = servedRoutes
      .filter((r) => r.auth || (r.path.startsWith("/console/api/") && !(r.method === "POST" && r.path === "/console/api/session")))
      .filter((r) => r.audit === undefined)
      .map((r) => `${r.method} ${r.path}`)
    expect(undeclared).toEqual([])
  })
})

describe("each read path appends an entry, with no patient data in it", () => {
  test("API reads, lists, compat, intake log, remittances, X12 file contents and exports; console views", async () => {
    const call = api(server)
    const list = await call("GET", "/api/encounters?patient_last_name=Quixote&limit=5")
    expect(list.status).toBe(200)
    const all = await call("GET", "/api/encounters?limit=5")
    const encounter = all.body.items[0]
    const claimId = String(encounter.latest_claim.id)
    const reads: ReadonlyArray<readonly [string, string, string | null]> = [
      [`/api/encounters/${encounter.id}`, "encounter.read", encounter.id],
      [`/encounters/${encounter.id}`, "encounter.read", encounter.id],
      ["/api/encounters/compat-version?limit=2", "encounter.list", null],
      [`/api/encounters/compat-version/${encounter.id}`, "encounter.read", encounter.id],
      ["/api/encounters/compat-version/events?limit=2", "event.list", null],
      ["/api/intake-requests?limit=2", "intake_request.list", null],
      [`/api/claims/${claimId}/remittances`, "remittance.list", claimId],
      ["/api/x12/files", "x12_file.list", null],
      [`/api/x12/files/${exchange.fileIds[0]}`, "x12_file.read", exchange.fileIds[0]!],
      [`/api/x12/files/${exchange.fileIds[0]}/outcomes`, "x12_file.outcomes", exchange.fileIds[0]!],
      [`/api/x12/837p-batches/${exchange.batchId}/file`, "x12_batch.file", exchange.batchId]
    ]
    for (const [path] of reads) expect({ path, status: (await call("GET", path, { key: server.keys.aWriter })).status }).toEqual({ path, status: 200 })
    const intake = await call("GET", "/api/intake-requests?limit=1")
    const intakeId = String(intake.body.items[0].id)
    expect((await call("GET", `/api/intake-requests/${intakeId}`)).status).toBe(200)

    const viewer = await signInConsole(server, server.keys.a)
    for (const path of ["/console/api/encounters?patient_last_name=Quixote", `/console/api/encounters/${encounter.id}`, "/console/api/intake-requests", `/console/api/intake-requests/${intakeId}`, "/console/api/events", `/console/api/x12/files/${exchange.fileIds[0]}`]) {
      expect({ path, status: (await consoleCall(server, viewer, "GET", path)).status }).toEqual({ path, status: 200 })
    }

    const entries = await auditOf("limit=100")
    const seen = (action: string, id: string | null, kind = "key") =>
      entries.some((e) => e.action === action && e.resource.id === id && e.actor.kind === kind && e.outcome === "ok")
    for (const [path, action, id] of reads) expect({ path, action, found: seen(action, id) }).toEqual({ path, action, found: true })
    expect(seen("intake_request.read", intakeId)).toBe(true)
    expect(seen("encounter.list", null)).toBe(true)
    for (const [action, id] of [["encounter.list", null], ["encounter.read", encounter.id], ["intake_request.read", intakeId], ["event.list", null], ["x12_file.read", exchange.fileIds[0]]] as const) {
      expect({ action, console: seen(action, id, "user") }).toEqual({ action, console: true })
    }
    const one = entries.find((e) => e.actor.kind === "user")!
    expect(one.actor.name).toBe("a-viewer@clinic.test")
    expect(Object.keys(one).sort()).toEqual(["action", "actor", "at", "client_ip", "id", "outcome", "request_id", "resource", "workspace_id"])
    expect(one.client_ip).toBe("127.0.0.1")
    const text = JSON.stringify(entries)
    for (const value of PHI) expect({ value, present: text.includes(value) }).toEqual({ value, present: false })
    // Keys are named by their prefix, never by the key.
    expect(text.includes(server.keys.aWriter)).toBe(false)
  })

  test("not found, denied and another workspace's record are recorded with their outcome; nothing of workspace a shows in b's log", async () => {
    const call = api(server)
    const missing = "01a2079a-a420-7000-a0df-2fce210a5dab"
    expect((await call("GET", `/api/encounters/${missing}`)).status).toBe(404)
    expect((await call("POST", `/api/claims/${missing}/status`, { body: { status: "coded" } })).status).toBe(403)
    const mine = await auditOf(`resource=${missing}`)
    expect(mine.map((e) => [e.action, e.outcome]).sort()).toEqual([["claim.status", "denied"], ["encounter.read", "not_found"]])
    const other = await api(server)("GET", "/api/audit?limit=100", { key: server.keys.bAdmin })
    expect(other.body.items.every((e: { workspace_id: string }) => e.workspace_id === server.workspaces.b)).toBe(true)
    expect(other.body.items.some((e: { resource: { id: string } }) => e.resource.id === missing)).toBe(false)
  })

  test("a change's entry is written with the change (one entry, ok); a rejected create's intake write carries it as failed; a refused move appends its own", async () => {
    const call = api(server)
    const made = await call("POST", "/api/encounters", { key: server.keys.aWriter, body: validPayload("aud-carry-1") })
    expect(made.status).toBe(202)
    const rejected = await call("POST", "/api/encounters", { key: server.keys.aWriter, body: { ...validPayload("aud-carry-2"), patient: null } })
    expect(rejected.status).toBe(422)
    const claim = String((await call("GET", `/api/encounters/${made.body.encounter_id}`)).body.latest_claim.id)
    expect((await call("POST", `/api/claims/${claim}/status`, { key: server.keys.aWriter, body: { status: "coded" } })).status).toBe(200)
    expect((await call("POST", `/api/claims/${claim}/status`, { key: server.keys.aWriter, body: { status: "draft" } })).status).toBe(409)
    const byRequest = async (requestId: string | null) => (await auditOf("limit=100")).filter((e) => e.request_id === requestId)
    expect((await byRequest(made.headers.get("x-request-id"))).map((e) => [e.action, e.outcome])).toEqual([["encounter.create", "ok"]])
    expect((await byRequest(rejected.headers.get("x-request-id"))).map((e) => [e.action, e.outcome])).toEqual([["encounter.create", "failed"]])
    const moves = (await auditOf(`resource=${claim}&action=claim.status`)).map((e) => e.outcome)
    expect(moves).toEqual(["failed", "ok"])
  })

  test("filters by actor, action and time; pages; refuses an unknown parameter; needs the admin scope", async () => {
    const byAction = await auditOf("action=encounter.read&limit=2")
    expect(byAction.length).toBe(2)
    expect(byAction.every((e) => e.action === "encounter.read")).toBe(true)
    const page = await api(server)("GET", "/api/audit?action=encounter.read&limit=2", { key: server.keys.aAdmin })
    const next = await api(server)("GET", `/api/audit?action=encounter.read&limit=2&page_token=${page.body.next_page_token}`, { key: server.keys.aAdmin })
    expect(next.body.items.length).toBeGreaterThan(0)
    expect(next.body.items.every((e: { at: string }) => e.at <= page.body.items[1].at)).toBe(true)
    const actor = String(byAction[0]!.actor.id)
    expect((await auditOf(`actor=${actor}&limit=100`)).every((e) => e.actor.id === actor)).toBe(true)
    expect(await auditOf("until=2000-01-01T00:00:00Z")).toEqual([])
    expect((await auditOf("since=2000-01-01T00:00:00Z&limit=1")).length).toBe(1)
    expect(await auditOf("since=2999-01-01T00:00:00Z")).toEqual([])
    expectProblem(await api(server)("GET", "/api/audit?actr=x", { key: server.keys.aAdmin }), 400, "invalid_parameter")
    expectProblem(await api(server)("GET", "/api/audit?since=yesterday", { key: server.keys.aAdmin }), 400, "invalid_parameter")
    expectProblem(await api(server)("GET", "/api/audit", { key: server.keys.aHooks }), 403, "forbidden")
  })
})
