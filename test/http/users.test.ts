import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { startTestServer, type TestServer } from "../support/server.js"
import { seedEncounters } from "../support/console-seed.js"
import { api, expectProblem } from "./client.js"
import { type ConsoleSession, consoleCall, consoleUser, signInConsole, signInPassword } from "./console-support.js"

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
  await seedEncounters(server.url, server.keys.aWriter, 2, "usr")
})
afterAll(() => server.close())

const admin = () => ({ key: server.keys.aAdmin })

const rawSignIn = (body: unknown) => consoleCall(server, undefined, "POST", "/console/api/session", { body })

describe("users over the API (scope admin)", () => {
  test("create answers 201 with a one-time password shown once; list and patch; refusals", async () => {
    const call = api(server)
    const made = await call("POST", "/api/users", { ...admin(), body: { email: " Dana@Clinic.Test ", name: "Dana", role: "biller" } })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ email: "dana@clinic.test", role: "biller", status: "active", must_change_password: true })
    expect(made.body.initial_password.length).toBeGreaterThanOrEqual(12)
    expectProblem(await call("POST", "/api/users", { ...admin(), body: { email: "dana@clinic.test", role: "viewer" } }), 409, "email_taken")
    expectProblem(await call("POST", "/api/users", { ...admin(), body: { email: "nope", role: "boss" } }), 422, "validation_failed")
    expectProblem(await call("POST", "/api/users", { key: server.keys.aHooks, body: { email: "x@clinic.test", role: "viewer" } }), 403, "forbidden")
    const list = await call("GET", "/api/users", admin())
    const listed = list.body.items.find((u: { email: string }) => u.email === "dana@clinic.test")
    expect(listed).toBeDefined()
    expect(JSON.stringify(list.body)).not.toContain("password_hash")
    expect(JSON.stringify(list.body)).not.toContain(made.body.initial_password)
    const patched = await call("PATCH", `/api/users/${made.body.id}`, { ...admin(), body: { role: "viewer", status: "disabled" } })
    expect(patched.body).toMatchObject({ role: "viewer", status: "disabled" })
    expectProblem(await call("PATCH", `/api/users/${made.body.id}`, { ...admin(), body: { status: "gone" } }), 422, "validation_failed")
    // Another workspace's user is not found.
    expectProblem(await call("PATCH", `/api/users/${made.body.id}`, { key: server.keys.bAdmin, body: { role: "admin" } }), 404, "not_found")
  })

  test("the last active admin keeps its role and status", async () => {
    const only = await api(server)("POST", "/api/users", { key: server.keys.bAdmin, body: { email: "boss@clinic-b.test", role: "admin" } })
    expectProblem(await api(server)("PATCH", `/api/users/${only.body.id}`, { key: server.keys.bAdmin, body: { role: "viewer" } }), 409, "last_admin")
    expectProblem(await api(server)("PATCH", `/api/users/${only.body.id}`, { key: server.keys.bAdmin, body: { status: "disabled" } }), 409, "last_admin")
  })
})

describe("retention over the API (scope admin)", () => {
  test("defaults, a change, refusals naming the field, another workspace untouched, and the change on the audit log", async () => {
    const call = api(server)
    const before = await call("GET", "/api/retention", { key: server.keys.bAdmin })
    expect(before.status).toBe(200)
    expect(before.body).toEqual({ raw_request_days: null, audit_days: 6 * 366 })
    const changed = await call("PATCH", "/api/retention", { key: server.keys.bAdmin, body: { raw_request_days: 90 } })
    expect(changed.status).toBe(200)
    expect(changed.body).toEqual({ raw_request_days: 90, audit_days: 6 * 366 })
    expect((await call("PATCH", "/api/retention", { key: server.keys.bAdmin, body: { audit_days: 400 } })).body).toEqual({ raw_request_days: 90, audit_days: 400 })
    const short = await call("PATCH", "/api/retention", { key: server.keys.bAdmin, body: { audit_days: 30, raw_request_days: 0 } })
    expectProblem(short, 422, "validation_failed")
    expect(short.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["audit_days", "raw_request_days"])
    expectProblem(await call("PATCH", "/api/retention", { key: server.keys.bAdmin, body: { raw_request_days: "ninety" } }), 422, "validation_failed")
    expect((await call("PATCH", "/api/retention", { key: server.keys.bAdmin, body: { raw_request_days: null } })).body).toEqual({ raw_request_days: null, audit_days: 400 })
    expectProblem(await call("GET", "/api/retention", { key: server.keys.b }), 403, "forbidden")
    expect((await call("GET", "/api/retention", admin())).body).toEqual({ raw_request_days: null, audit_days: 6 * 366 })
    const log = await call("GET", "/api/audit?action=retention.update", { key: server.keys.bAdmin })
    expect(log.body.items.map((e: { outcome: string }) => e.outcome)).toEqual(["ok", "failed", "failed", "ok", "ok"])
  })
})

describe("password sign-in", () => {
  test("a one-time password signs in only to change it; the new one must be 12 characters; then the console opens", async () => {
    const made = await api(server)("POST", "/api/users", { ...admin(), body: { email: "erin@clinic.test", role: "viewer" } })
    const first = await signInPassword(server, "erin@clinic.test", made.body.initial_password)
    const info = await consoleCall(server, first, "GET", "/console/api/session")
    expect({ must: info.body.must_change_password, role: info.body.role, idle: info.body.idle_timeout_seconds }).toEqual({ must: true, role: "viewer", idle: 900 })
    expectProblem(await consoleCall(server, first, "GET", "/console/api/encounters"), 403, "password_change_required")
    const short = await consoleCall(server, first, "POST", "/console/api/password", { body: { current_password: made.body.initial_password, new_password: "short" } })
    expectProblem(short, 422, "validation_failed")
    const wrong = await consoleCall(server, first, "POST", "/console/api/password", { body: { current_password: "not it at all!", new_password: "a long enough passphrase" } })
    expectProblem(wrong, 401, "sign_in_refused")
    const changed = await consoleCall(server, first, "POST", "/console/api/password", { body: { current_password: made.body.initial_password, new_password: "a long enough passphrase" } })
    expect(changed.status).toBe(200)
    expect(changed.body.must_change_password).toBe(false)
    const next: ConsoleSession = { cookie: (changed.headers.get("set-cookie") ?? "").split(";")[0]!, csrf: changed.body.csrf_token, setCookie: "" }
    expect((await consoleCall(server, next, "GET", "/console/api/encounters")).status).toBe(200)
    // The old session ended with the change; the one-time password no longer works.
    expectProblem(await consoleCall(server, first, "GET", "/console/api/session"), 401, "session_required")
    expectProblem(await rawSignIn({ email: "erin@clinic.test", password: made.body.initial_password }), 401, "sign_in_refused")
    expect((await signInPassword(server, "ERIN@clinic.test", "a long enough passphrase")).cookie).toMatch(/^encounterd_session=/)
  })

  test("unknown email, wrong password and a disabled user are one refusal; missing fields are 422", async () => {
    const user = await consoleUser(server, "a", "biller", "-refusals")
    const unknown = await rawSignIn({ email: "nobody@clinic.test", password: "whatever it may be" })
    const wrong = await rawSignIn({ email: user.email, password: "whatever it may be" })
    expectProblem(unknown, 401, "sign_in_refused")
    expectProblem(wrong, 401, "sign_in_refused")
    expect(unknown.body.detail).toBe(wrong.body.detail)
    await api(server)("PATCH", `/api/users/${user.id}`, { ...admin(), body: { status: "disabled" } })
    const disabled = await rawSignIn({ email: user.email, password: user.password })
    expectProblem(disabled, 401, "sign_in_refused")
    expect(disabled.body.detail).toBe(wrong.body.detail)
    expectProblem(await rawSignIn({ email: user.email }), 422, "validation_failed")
  })

  test("after 5 failures a user is locked (429 with Retry-After) even with the right password; enabling again clears it", async () => {
    const user = await consoleUser(server, "a", "viewer", "-lockout")
    for (let i = 0; i < 5; i++) expectProblem(await rawSignIn({ email: user.email, password: `wrong guess number ${i}` }), 401, "sign_in_refused")
    const locked = await rawSignIn({ email: user.email, password: user.password })
    expectProblem(locked, 429, "sign_in_locked")
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0)
    await api(server)("PATCH", `/api/users/${user.id}`, { ...admin(), body: { status: "disabled" } })
    await api(server)("PATCH", `/api/users/${user.id}`, { ...admin(), body: { status: "active" } })
    expect((await rawSignIn({ email: user.email, password: user.password })).status).toBe(200)
  })

  test("an email in two workspaces signs in by its password where it is good, and asks for the workspace when good in both", async () => {
    const a = await api(server)("POST", "/api/users", { ...admin(), body: { email: "sam@both.test", role: "viewer" } })
    const b = await api(server)("POST", "/api/users", { key: server.keys.bAdmin, body: { email: "sam@both.test", role: "biller" } })
    expect((await rawSignIn({ email: "sam@both.test", password: a.body.initial_password })).body.workspace.slug).toBe("clinic-a")
    expect((await rawSignIn({ email: "sam@both.test", password: b.body.initial_password })).body.workspace.slug).toBe("clinic-b")
    // The same password in both (a user changed both to it): the workspace is asked for.
    for (const [created, ws] of [[a, "clinic-a"], [b, "clinic-b"]] as const) {
      const s = await signInPassword(server, "sam@both.test", created.body.initial_password, ws)
      const changed = await consoleCall(server, s, "POST", "/console/api/password", { body: { current_password: created.body.initial_password, new_password: "the same in both places" } })
      expect(changed.status).toBe(200)
    }
    expectProblem(await rawSignIn({ email: "sam@both.test", password: "the same in both places" }), 400, "workspace_required")
    const chosen = await rawSignIn({ email: "sam@both.test", password: "the same in both places", workspace: "clinic-b" })
    expect({ ws: chosen.body.workspace.slug, role: chosen.body.role }).toEqual({ ws: "clinic-b", role: "biller" })
  })
})

describe("roles on every console call", () => {
  test("a viewer reads but may not move a claim (403, and the page is told by its scopes); a biller may; webhooks are an admin's", async () => {
    const list = await api(server)("GET", "/api/encounters?external_id=usr-1001")
    const claimId = String(list.body.items[0].latest_claim.id)
    const viewer = await signInConsole(server, server.keys.a)
    const biller = await signInConsole(server, server.keys.aWriter)
    const adminSession = await signInConsole(server, server.keys.aHooks)
    expect((await consoleCall(server, viewer, "GET", "/console/api/encounters")).status).toBe(200)
    const refused = await consoleCall(server, viewer, "POST", `/console/api/claims/${claimId}/status`, { body: { status: "coded" } })
    expectProblem(refused, 403, "forbidden")
    expect(refused.body.detail).toContain("viewer")
    expect((await consoleCall(server, viewer, "GET", "/console/api/session")).body.scopes).not.toContain("claims:write")
    expect((await consoleCall(server, biller, "POST", `/console/api/claims/${claimId}/status`, { body: { status: "coded" } })).status).toBe(200)
    expectProblem(await consoleCall(server, biller, "GET", "/console/api/webhooks/endpoints"), 403, "forbidden")
    expect((await consoleCall(server, adminSession, "GET", "/console/api/webhooks/endpoints")).status).toBe(200)
  })

  test("a role changed or a user disabled applies at the user's next request", async () => {
    const user = await consoleUser(server, "a", "biller", "-changes")
    const s = await signInPassword(server, user.email, user.password)
    expect((await consoleCall(server, s, "GET", "/console/api/session")).body.scopes).toContain("claims:write")
    await api(server)("PATCH", `/api/users/${user.id}`, { ...admin(), body: { role: "viewer" } })
    expect((await consoleCall(server, s, "GET", "/console/api/session")).body.scopes).toEqual([])
    await api(server)("PATCH", `/api/users/${user.id}`, { ...admin(), body: { status: "disabled" } })
    expectProblem(await consoleCall(server, s, "GET", "/console/api/encounters"), 401, "session_required")
  })
})
