import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ClaimStatuses, ClaimTransitions } from "../../lib/domain/claim-status.js"
import { WorkspaceId } from "../../lib/domain/ids.js"
import { countClaimsByStatus } from "../../lib/rules/count-claims.js"
import { createApiKey, revokeApiKey } from "../../lib/rules/workspaces.js"
import { CSP } from "../../server/console/headers.js"
import { seedEncounters, sendRejected } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, expectProblem, unknownUuid } from "./client.js"
import { type ConsoleSession, consoleCall, signInConsole } from "./console-support.js"

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
  await seedEncounters(server.url, server.keys.aWriter, 7, "con")
  await seedEncounters(server.url, server.keys.b, 2, "other")
  await sendRejected(server.url, server.keys.aWriter, "con-bad-1")
  await sendRejected(server.url, server.keys.b, "other-bad-1")
})
afterAll(() => server.close())

describe("console page and assets", () => {
  test("every console path answers the page with the strict CSP; it has no inline script or style", async () => {
    const paths = ["/console", "/console/", "/console/encounters", "/console/claims", `/console/encounters/${unknownUuid()}`, "/console/webhooks", `/console/webhooks/${unknownUuid()}`, "/console/clearinghouse", `/console/clearinghouse/files/${unknownUuid()}`]
    for (const path of paths) {
      const res = await fetch(`${server.url}${path}`)
      expect({ path, status: res.status, csp: res.headers.get("content-security-policy") }).toEqual({ path, status: 200, csp: CSP })
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8")
      const html = await res.text()
      expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="/console/assets/main.js">'])
      expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=|https?:\/\//)
    }
  })

  test("the page's scripts and stylesheet are served from the binary; no module imports from elsewhere", async () => {
    const seen = new Set<string>()
    const queue = ["main.js", "console.css"]
    while (queue.length > 0) {
      const name = queue.shift()!
      if (seen.has(name)) continue
      seen.add(name)
      const res = await fetch(`${server.url}/console/assets/${name}`)
      expect({ name, status: res.status, csp: res.headers.get("content-security-policy") }).toEqual({ name, status: 200, csp: CSP })
      const body = await res.text()
      for (const m of body.matchAll(/from\s+"([^"]+)"/g)) {
        expect(m[1]!).toMatch(/^\.\/[a-z-]+\.js$/)
        queue.push(m[1]!.slice(2))
      }
    }
    expect(seen.size).toBeGreaterThan(5)
    const again = await fetch(`${server.url}/console/assets/main.js`)
    const etag = again.headers.get("etag") ?? ""
    expect((await fetch(`${server.url}/console/assets/main.js`, { headers: { "if-none-match": etag } })).status).toBe(304)
    expectProblem(await api(server)("GET", "/console/assets/nope.js", { key: null }), 404, "not_found")
  })

  test("console endpoints stay out of the API description", async () => {
    const doc = await api(server)("GET", "/api/openapi.json", { key: null })
    expect(Object.keys(doc.body.paths).filter((p) => p.startsWith("/console"))).toEqual([])
  })
})

describe("console sessions", () => {
  test("sign-in sets an opaque HttpOnly SameSite=Strict cookie; key sign-in is off unless the server allows it", async () => {
    const s = await signInConsole(server, server.keys.a)
    expect(s.setCookie).toMatch(/^encounterd_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/)
    const info = await consoleCall(server, s, "GET", "/console/api/session")
    expect({ status: info.status, slug: info.body.workspace.slug, role: info.body.role, scopes: info.body.scopes, csrf: info.body.csrf_token }).toEqual({
      status: 200,
      slug: "clinic-a",
      role: "viewer",
      scopes: [],
      csrf: s.csrf
    })
    expect(info.body.user.email).toBe("a-viewer@clinic.test")
    expect(info.headers.get("cache-control")).toBe("no-store")
    const key = await consoleCall(server, undefined, "POST", "/console/api/session", { body: { api_key: server.keys.aAdmin } })
    expectProblem(key, 422, "validation_failed")
    expect(key.body.errors[0].path).toBe("api_key")
    expectProblem(await consoleCall(server, undefined, "POST", "/console/api/session", { body: {} }), 422, "validation_failed")
  })

  test("over an https public URL the cookie is Secure with the __Host- prefix", async () => {
    const secure = await startTestServer({ config: { publicUrl: "https://console.example.test" } })
    try {
      const s = await signInConsole(secure, secure.keys.a)
      expect(s.setCookie).toMatch(/^__Host-encounterd_session=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/)
      expect((await consoleCall(secure, s, "GET", "/console/api/session")).status).toBe(200)
    } finally {
      await secure.close()
    }
  })

  test("without a session, or with an unknown one, console data is refused", async () => {
    expectProblem(await consoleCall(server, undefined, "GET", "/console/api/encounters"), 401, "session_required")
    const forged = { cookie: "encounterd_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", csrf: "x", setCookie: "" }
    const res = await consoleCall(server, forged, "GET", "/console/api/encounters")
    expectProblem(res, 401, "session_required")
    expect(res.headers.get("set-cookie")).toContain("Max-Age=0")
  })

  test("sign-out needs the CSRF token, then ends the session", async () => {
    const s = await signInConsole(server, server.keys.a)
    expectProblem(await consoleCall(server, s, "POST", "/console/api/sign-out", { csrf: null }), 403, "csrf_failed")
    expect((await consoleCall(server, s, "GET", "/console/api/session")).status).toBe(200)
    const out = await consoleCall(server, s, "POST", "/console/api/sign-out")
    expect(out.status).toBe(204)
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0")
    expectProblem(await consoleCall(server, s, "GET", "/console/api/session"), 401, "session_required")
  })

  test("with --console-key-sign-in an admin key signs in, another key is refused; a revoked key ends its sessions", async () => {
    const keyed = await startTestServer({ config: { console: { keySignIn: true } } })
    try {
      const bad = await consoleCall(keyed, undefined, "POST", "/console/api/session", { body: { api_key: "eik_nope" } })
      expectProblem(bad, 401, "unauthorized")
      const writer = await consoleCall(keyed, undefined, "POST", "/console/api/session", { body: { api_key: keyed.keys.aWriter } })
      expectProblem(writer, 403, "forbidden")
      const fresh = await keyed.runtime.runPromise(createApiKey("clinic-a", ["admin"]))
      const s = await signInConsole(keyed, fresh.key)
      const info = await consoleCall(keyed, s, "GET", "/console/api/session")
      expect({ role: info.body.role, user: info.body.user, scopes: info.body.scopes }).toEqual({ role: null, user: null, scopes: ["encounters", "admin"] })
      expect((await consoleCall(keyed, s, "GET", "/console/api/encounters")).status).toBe(200)
      await keyed.runtime.runPromise(revokeApiKey(fresh.id))
      const res = await consoleCall(keyed, s, "GET", "/console/api/encounters")
      expectProblem(res, 401, "session_required")
      expect(res.headers.get("set-cookie")).toMatch(/^encounterd_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/)
    } finally {
      await keyed.close()
    }
  })
})

describe("console writes", () => {
  const firstClaim = async (externalId: string) => {
    const list = await api(server)("GET", `/api/encounters?external_id=${externalId}`)
    return { claimId: String(list.body.items[0].latest_claim.id), encounterId: String(list.body.items[0].id) }
  }

  test("a status move without, or with a wrong, CSRF token or from another origin is refused and changes nothing", async () => {
    const s = await signInConsole(server, server.keys.aWriter)
    const { claimId, encounterId } = await firstClaim("con-1002")
    const path = `/console/api/claims/${claimId}/status`
    expectProblem(await consoleCall(server, s, "POST", path, { body: { status: "coded" }, csrf: null }), 403, "csrf_failed")
    expectProblem(await consoleCall(server, s, "POST", path, { body: { status: "coded" }, csrf: `${s.csrf}x` }), 403, "csrf_failed")
    const foreign = { body: { status: "coded" }, headers: { origin: "https://evil.example" } }
    expectProblem(await consoleCall(server, s, "POST", path, foreign), 403, "csrf_failed")
    const crossSite = { body: { api_key: server.keys.a }, headers: { origin: "https://evil.example" } }
    expectProblem(await consoleCall(server, undefined, "POST", "/console/api/session", crossSite), 403, "csrf_failed")
    const read = await api(server)("GET", `/api/encounters/${encounterId}`)
    expect(read.body.latest_claim.status).toBe("draft")
  })

  test("a move follows the transition table and appears in the encounter's timeline only", async () => {
    const s = await signInConsole(server, server.keys.aWriter)
    const { claimId, encounterId } = await firstClaim("con-1003")
    const other = await firstClaim("con-1004")
    const path = `/console/api/claims/${claimId}/status`
    const refused = await consoleCall(server, s, "POST", path, { body: { status: "paid" } })
    expectProblem(refused, 409, "invalid_transition")
    const moved = await consoleCall(server, s, "POST", path, { body: { status: "coded", note: "checked" } })
    expect({ status: moved.status, claim: moved.body.claim.status }).toEqual({ status: 200, claim: "coded" })
    await consoleCall(server, s, "POST", `/console/api/claims/${other.claimId}/status`, { body: { status: "not_billable" } })
    const detail = await consoleCall(server, s, "GET", `/console/api/encounters/${encounterId}`)
    expect(detail.body.allowed_transitions).toEqual([...ClaimTransitions.coded])
    expect(
      detail.body.timeline.events.map((e: { event_type: string; payload: { encounter_id: string; status: string } }) => [
        e.event_type,
        e.payload.encounter_id,
        e.payload.status
      ])
    ).toEqual([
      ["ExternalApi.Encounter.Created", encounterId, "draft"],
      ["ExternalApi.Encounter.StatusUpdated", encounterId, "coded"]
    ])
  })

  test("a key without claims:write cannot move a claim", async () => {
    const s = await signInConsole(server, server.keys.a)
    const { claimId } = await firstClaim("con-1005")
    expectProblem(await consoleCall(server, s, "POST", `/console/api/claims/${claimId}/status`, { body: { status: "coded" } }), 403, "forbidden")
  })
})

describe("console reads", () => {
  test("encounter rows: patient, date of service, total charge, claim status; filter by external id", async () => {
    const s = await signInConsole(server, server.keys.a)
    const res = await consoleCall(server, s, "GET", "/console/api/encounters?external_id=con-1006")
    expect(res.body.items).toEqual([
      expect.objectContaining({ external_id: "con-1006", patient_name: "Taylor Mockford", date_of_service: "2026-10-06", total_charge_cents: 33800, claim_status: "draft" })
    ])
  })

  test("the created range is inclusive of whole UTC days; bad dates name the field", async () => {
    const s = await signInConsole(server, server.keys.a)
    // The day the seeded encounters were created (not the clock's day now: the run may span midnight).
    const newest = await consoleCall(server, s, "GET", "/console/api/encounters?limit=1")
    const today = String(newest.body.items[0].created_at).slice(0, 10)
    const yesterday = new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10)
    const oldest = await consoleCall(server, s, "GET", "/console/api/encounters?external_id=con-1001")
    expect(String(oldest.body.items[0].created_at).slice(0, 10)).toBe(today)
    const all = await consoleCall(server, s, "GET", `/console/api/encounters?created_from=${today}&created_to=${today}`)
    expect(all.body.items.length).toBe(7)
    const none = await consoleCall(server, s, "GET", `/console/api/encounters?created_to=${yesterday}`)
    expect(none.body.items).toEqual([])
    const later = await consoleCall(server, s, "GET", `/console/api/encounters?created_from=2999-01-01`)
    expect(later.body.items).toEqual([])
    const bad = await consoleCall(server, s, "GET", "/console/api/encounters?created_from=last-week&created_to=2020-01-01&claim_status=nope")
    expectProblem(bad, 400, "invalid_parameter")
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["claim_status", "created_from"])
    const reversed = await consoleCall(server, s, "GET", "/console/api/encounters?created_from=2026-02-02&created_to=2026-02-01")
    expect(reversed.body.errors.map((e: { path: string }) => e.path)).toEqual(["created_to"])
  })

  test("pages walk forward and back without gaps or repeats, and tokens are bound to their filters", async () => {
    const s = await signInConsole(server, server.keys.a)
    const base = "/console/api/encounters?limit=3&created_to=2999-12-31"
    const seen: Array<string> = []
    let token: string | null = null
    let last: { prev: string | null } = { prev: null }
    do {
      const page = await consoleCall(server, s, "GET", token === null ? base : `${base}&page_token=${token}`)
      seen.push(...page.body.items.map((i: { external_id: string }) => i.external_id))
      token = page.body.next_page_token
      last = { prev: page.body.prev_page_token }
    } while (token !== null)
    expect(seen).toEqual(["con-1007", "con-1006", "con-1005", "con-1004", "con-1003", "con-1002", "con-1001"])
    const back = await consoleCall(server, s, "GET", `${base}&page_token=${last.prev}`)
    expect(back.body.items.map((i: { external_id: string }) => i.external_id)).toEqual(["con-1004", "con-1003", "con-1002"])
    const first = await consoleCall(server, s, "GET", base)
    const misused = await consoleCall(server, s, "GET", `/console/api/encounters?limit=3&page_token=${first.body.next_page_token}`)
    expectProblem(misused, 400, "invalid_parameter")
  })

  test("another workspace's encounter is not found", async () => {
    const s = await signInConsole(server, server.keys.a)
    const theirs = await api(server)("GET", "/api/encounters?external_id=other-1001", { key: server.keys.b })
    expectProblem(await consoleCall(server, s, "GET", `/console/api/encounters/${theirs.body.items[0].id}`), 404, "not_found")
    const mine = await consoleCall(server, s, "GET", "/console/api/encounters?external_id=other-1001")
    expect(mine.body.items).toEqual([])
  })

  test("claim counts per status are exact, every status of the vocabulary listed, the workspace's own only", async () => {
    const s = await signInConsole(server, server.keys.b)
    const res = await consoleCall(server, s, "GET", "/console/api/claims/counts")
    expect(res.body.counts.map((c: { status: string }) => c.status)).toEqual([...ClaimStatuses])
    const draft = res.body.counts.find((c: { status: string }) => c.status === "draft")
    // other-1001: one line of $125.00; other-1002: $185.00 and $28.00.
    expect(draft).toEqual({ status: "draft", count: 2, billed_cents: 12500 + 18500 + 2800, allowed_transitions: [...ClaimTransitions.draft] })
    expect(res.body.counts.reduce((n: number, c: { count: number }) => n + c.count, 0)).toBe(2)
    const counted = await server.runtime.runPromise(countClaimsByStatus(WorkspaceId.make(server.workspaces.a)))
    const total = (await api(server)("GET", "/api/encounters?limit=100")).body.items.length
    expect(counted.reduce((n, c) => n + c.count, 0)).toBe(total)
  })
})

describe("console claims work list and search", () => {
  // One session for both: sign-ins per key are limited, and the other tests sign in too.
  let s: ConsoleSession
  beforeAll(async () => {
    s = await signInConsole(server, server.keys.aWriter)
  })

  test("a status's claims by age or amount, with days in the status, paged; bad values are 400", async () => {
    const work = (query: string) => consoleCall(server, s, "GET", `/console/api/claims/work?${query}`)
    const ids = (res: { body: { items: ReadonlyArray<{ external_id: string }> } }) => res.body.items.map((i) => i.external_id)
    const byAge = await work("status=draft")
    expect(byAge.status).toBe(200)
    // Longest in the status first: the oldest status time first.
    const since = byAge.body.items.map((i: { claim_status_changed_at: string }) => i.claim_status_changed_at)
    expect(since).toEqual([...since].sort())
    expect(byAge.body.items[0]).toMatchObject({ external_id: "con-1001", days_in_status: 0, total_charge_cents: 12500, claim_status: "draft" })
    const byAmount = await work("status=draft&sort=amount&limit=2")
    const amounts = byAmount.body.items.map((i: { total_charge_cents: number }) => i.total_charge_cents)
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a))
    const next = await work(`status=draft&sort=amount&limit=2&page_token=${byAmount.body.next_page_token}`)
    expect(next.body.items[0].total_charge_cents).toBeLessThanOrEqual(amounts[1])
    const ascending = await work("status=draft&sort=amount&order=asc&limit=100")
    expect(ids(ascending)).toEqual(ids(await work("status=draft&sort=amount&limit=100")).reverse())
    for (const [query, path] of [["", "status"], ["status=nope", "status"], ["status=draft&sort=size", "sort"], ["status=draft&order=up", "order"], [`status=draft&sort=amount&page_token=${byAge.body.next_page_token ?? "x"}`, "page_token"]]) {
      const res = await work(query!)
      expectProblem(res, 400, "invalid_parameter")
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path])
    }
  })

  test("the encounter list takes the search filters; empty values are no filter", async () => {
    const list = (query: string) => consoleCall(server, s, "GET", `/console/api/encounters?${query}`)
    const ids = (res: { body: { items: ReadonlyArray<{ external_id: string }> } }) => res.body.items.map((i) => i.external_id)
    // Seeded: con-1001 Avery Testpatient (2026-10-01), con-1002 Jordan Samplesmith (2026-10-02), ...
    expect(ids(await list("patient_last_name=samplesm"))).toEqual(["con-1002"])
    expect(ids(await list("date_of_service_from=2026-10-02&date_of_service_to=2026-10-03&patient_last_name="))).toEqual(["con-1003", "con-1002"])
    expect(ids(await list("external_id_prefix=con-100&patient_date_of_birth=1984-03-27&payer_id=")).length).toBe(7)
    const bad = await list("patient_date_of_birth=1984-13-01&date_of_service_from=x")
    expectProblem(bad, 400, "invalid_parameter")
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(["patient_date_of_birth", "date_of_service_from"])
  })
})

describe("console intake log", () => {
  test("rejected requests with their errors; one request with its body as received", async () => {
    const s = await signInConsole(server, server.keys.a)
    const list = await consoleCall(server, s, "GET", "/console/api/intake-requests?outcome=rejected")
    expect(list.body.items.map((i: { external_id: string; outcome: string }) => [i.external_id, i.outcome])).toEqual([["con-bad-1", "rejected"]])
    const [rejected] = list.body.items
    expect(rejected.errors.map((e: { path: string }) => e.path)).toContain("billing_provider.npi")
    const one = await consoleCall(server, s, "GET", `/console/api/intake-requests/${rejected.id}`)
    expect({ status: one.status, type: one.body.content_type, external: JSON.parse(one.body.body).external_id }).toEqual({
      status: 200,
      type: "application/json",
      external: "con-bad-1"
    })
    expectProblem(await consoleCall(server, s, "GET", "/console/api/intake-requests?outcome=lost"), 400, "invalid_parameter")
  })

  test("another workspace's request is not found, nor listed", async () => {
    const s = await signInConsole(server, server.keys.a)
    const theirs = await api(server)("GET", "/api/intake-requests?external_id=other-bad-1", { key: server.keys.b })
    expectProblem(await consoleCall(server, s, "GET", `/console/api/intake-requests/${theirs.body.items[0].id}`), 404, "not_found")
    const mine = await consoleCall(server, s, "GET", "/console/api/intake-requests?external_id=other-bad-1")
    expect(mine.body.items).toEqual([])
  })

  test("an encounter names the accepted request it came from", async () => {
    const s = await signInConsole(server, server.keys.a)
    const row = await consoleCall(server, s, "GET", "/console/api/encounters?external_id=con-1001")
    const detail = await consoleCall(server, s, "GET", `/console/api/encounters/${row.body.items[0].id}`)
    const intake = await consoleCall(server, s, "GET", `/console/api/intake-requests/${detail.body.intake_request_id}`)
    expect([intake.body.outcome, intake.body.encounter_id, intake.body.external_id]).toEqual(["accepted", row.body.items[0].id, "con-1001"])
  })
})
