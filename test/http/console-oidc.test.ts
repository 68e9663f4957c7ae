import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { CustomFetch } from "openid-client"
import { parse, UsageError } from "../../bin/args.js"
import { serveConfig, serveSpec } from "../../bin/serve.js"
import { flushLog } from "../../server/log.js"
import { capturedLogs, startTestServer, type TestServer } from "../support/server.js"
import { authorizeAt, freePort, type RunningProvider, startProvider } from "../support/oidc-provider.js"
import { seedEncounters } from "../support/console-seed.js"
import { api } from "./client.js"
import { type ConsoleSession, consoleCall, consoleUser } from "./console-support.js"

const SECRET = "a client secret of encounterd at the test provider"
const OTHER_SECRET = "a client secret of another application"

let provider: RunningProvider
let plain: TestServer
let sso: TestServer
let skewed: TestServer
let audience: TestServer

/**
 * The audience server's way to the provider: its token request authenticates as the other
 * application, so the provider issues an ID token for that one (`aud` is not encounterd's).
 */
const asOtherClient: CustomFetch = (url, options) => {
  const headers = new Headers(options.headers)
  if (url.endsWith("/token")) headers.set("authorization", `Basic ${btoa(`other-app:${OTHER_SECRET}`)}`)
  return fetch(url, { method: options.method, redirect: options.redirect, headers, ...(options.body !== undefined ? { body: options.body as BodyInit } : {}), ...(options.signal !== undefined ? { signal: options.signal } : {}) })
}

beforeAll(async () => {
  const port = await freePort()
  const issuer = `http://127.0.0.1:${port}`
  const oidc = { issuer, clientId: "encounterd", clientSecret: SECRET }
  plain = await startTestServer()
  sso = await startTestServer({ config: { oidc } })
  // Its clock two hours ahead: every ID token the provider issues (valid one hour) has expired.
  skewed = await startTestServer({ config: { oidc: { ...oidc, clockSkewSeconds: 7200 } } })
  audience = await startTestServer({ config: { oidc }, oidcFetch: asOtherClient })
  const callbacks = [sso, skewed, audience].map((s) => `${s.url}/console/oidc/callback`)
  provider = await startProvider(
    port,
    [
      { clientId: "encounterd", clientSecret: SECRET, redirectUris: callbacks },
      { clientId: "other-app", clientSecret: OTHER_SECRET, redirectUris: callbacks }
    ],
    {
      dana: { email: "Dana.SSO@clinic.test" },
      unverified: { email: "dana.sso@clinic.test", emailVerified: false },
      stranger: { email: "stranger@clinic.test" },
      twice: { email: "twice@clinic.test" },
      disabled: { email: "gone@clinic.test" }
    }
  )
  for (const s of [sso, skewed, audience]) {
    await api(s)("POST", "/api/users", { key: s.keys.aAdmin, body: { email: "dana.sso@clinic.test", role: "biller" } })
  }
  await seedEncounters(sso.url, sso.keys.aWriter, 1, "sso")
  await api(sso)("POST", "/api/users", { key: sso.keys.aAdmin, body: { email: "twice@clinic.test", role: "viewer" } })
  await api(sso)("POST", "/api/users", { key: sso.keys.bAdmin, body: { email: "twice@clinic.test", role: "admin" } })
  const gone = await api(sso)("POST", "/api/users", { key: sso.keys.aAdmin, body: { email: "gone@clinic.test", role: "viewer" } })
  await api(sso)("PATCH", `/api/users/${gone.body.id}`, { key: sso.keys.aAdmin, body: { status: "disabled" } })
})
afterAll(async () => {
  await Promise.all([plain, sso, skewed, audience].map((s) => s?.close()))
  await provider?.close()
})

/** What the servers logged since `before` (log lines are written once per turn of the event loop: flushed first). */
const logsSince = (before: number): string => {
  flushLog()
  return capturedLogs.slice(before).join("")
}

interface Started {
  readonly location: URL
  readonly pendingCookie: string
}

/** `GET /console/oidc/login` as a browser: where it is sent and the cookie it is given. */
const startLogin = async (server: TestServer, query = ""): Promise<Started> => {
  const res = await fetch(`${server.url}/console/oidc/login${query}`, { redirect: "manual" })
  expect(res.status).toBe(302)
  const setCookie = res.headers.get("set-cookie") ?? ""
  expect(setCookie).toMatch(/^encounterd_oidc=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/console\/oidc; HttpOnly; SameSite=Lax$/)
  return { location: new URL(res.headers.get("location") ?? ""), pendingCookie: setCookie.split(";")[0]! }
}

/** Back from the provider to the callback with the pending cookie: where the console sends the browser, and its session. */
const finishLogin = async (server: TestServer, callback: URL, pendingCookie: string) => {
  const res = await fetch(callback, { redirect: "manual", headers: { cookie: pendingCookie } })
  const setCookie = res.headers.get("set-cookie") ?? ""
  const session: ConsoleSession | undefined = setCookie.startsWith("encounterd_session=") ? { cookie: setCookie.split(";")[0]!, csrf: "", setCookie } : undefined
  return { status: res.status, location: res.headers.get("location"), session }
}

/** The whole round: login, the provider's pages (as `login`), the callback. `tamper` edits the authorization URL first. */
const signInSso = async (server: TestServer, login: string, options: { readonly query?: string; readonly tamper?: (url: URL) => void } = {}) => {
  const started = await startLogin(server, options.query)
  options.tamper?.(started.location)
  const callback = await authorizeAt(started.location.href, login, `${server.url}/console/oidc/callback`)
  return { ...(await finishLogin(server, callback, started.pendingCookie)), callback, started }
}

describe("OpenID Connect sign-in against a real provider", () => {
  test("the authorization request: code flow, PKCE S256, state, nonce, scope openid email, the callback under the public URL", async () => {
    const { location } = await startLogin(sso)
    expect(location.origin).toBe(provider.issuer)
    const p = location.searchParams
    expect({ type: p.get("response_type"), client: p.get("client_id"), scope: p.get("scope"), method: p.get("code_challenge_method") }).toEqual({
      type: "code",
      client: "encounterd",
      scope: "openid email",
      method: "S256"
    })
    expect(p.get("redirect_uri")).toBe(`${sso.url}/console/oidc/callback`)
    expect(p.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(p.get("state")?.length).toBeGreaterThanOrEqual(22)
    expect(p.get("nonce")?.length).toBeGreaterThanOrEqual(22)
    expect(p.get("nonce")).not.toBe(p.get("state"))
  })

  test("good login: the verified email's user gets the console session a password sign-in makes", async () => {
    const before = capturedLogs.length
    const done = await signInSso(sso, "dana")
    expect({ status: done.status, location: done.location }).toEqual({ status: 302, location: "/console" })
    expect(done.session).toBeDefined()
    const info = await consoleCall(sso, done.session, "GET", "/console/api/session")
    expect(info.status).toBe(200)
    expect({ email: info.body.user.email, role: info.body.role, must: info.body.must_change_password }).toEqual({ email: "dana.sso@clinic.test", role: "biller", must: false })
    const list = await consoleCall(sso, done.session, "GET", "/console/api/encounters")
    expect(list.status).toBe(200)
    expect(list.body.items.length).toBeGreaterThan(0)
    // A write with the session's CSRF token works as after a password sign-in.
    const out = await consoleCall(sso, { ...done.session!, csrf: info.body.csrf_token }, "POST", "/console/api/sign-out")
    expect(out.status).toBe(204)
    // The callback is good once: replayed, it finds no pending sign-in.
    const again = await finishLogin(sso, done.callback, done.started.pendingCookie)
    expect({ location: again.location, session: again.session }).toEqual({ location: "/console?sign_in_error=sign_in_expired", session: undefined })
    const logged = logsSince(before)
    expect(logged).toContain('"msg":"oidc sign-in"')
    expect(logged).not.toContain("clinic.test")
    expect(logged).not.toContain(done.callback.searchParams.get("code") ?? "no code")
    expect(logged).not.toContain(SECRET)
  })

  test("wrong audience: an ID token issued to another client is refused", async () => {
    const before = capturedLogs.length
    const done = await signInSso(audience, "dana", { tamper: (url) => url.searchParams.set("client_id", "other-app") })
    expect({ location: done.location, session: done.session }).toEqual({ location: "/console?sign_in_error=token_invalid", session: undefined })
    expect(logsSince(before)).toContain('"cause":"OAUTH_JWT_CLAIM_COMPARISON_FAILED aud"')
  })

  test("expired ID token: refused", async () => {
    const before = capturedLogs.length
    const done = await signInSso(skewed, "dana")
    expect({ location: done.location, session: done.session }).toEqual({ location: "/console?sign_in_error=token_invalid", session: undefined })
    expect(logsSince(before)).toContain('"cause":"OAUTH_JWT_TIMESTAMP_CHECK_FAILED exp"')
  })

  test("wrong nonce: an ID token carrying another nonce than the one kept for this browser is refused", async () => {
    const before = capturedLogs.length
    const done = await signInSso(sso, "dana", { tamper: (url) => url.searchParams.set("nonce", "a-nonce-this-server-never-made") })
    expect({ location: done.location, session: done.session }).toEqual({ location: "/console?sign_in_error=token_invalid", session: undefined })
    expect(logsSince(before)).toContain('"cause":"OAUTH_JWT_CLAIM_COMPARISON_FAILED nonce"')
  })

  test("unknown email, a disabled user and an unverified email are refused; no self-registration", async () => {
    const stranger = await signInSso(sso, "stranger")
    expect({ location: stranger.location, session: stranger.session }).toEqual({ location: "/console?sign_in_error=unknown_user", session: undefined })
    const users = await api(sso)("GET", "/api/users", { key: sso.keys.aAdmin })
    expect(JSON.stringify(users.body)).not.toContain("stranger@clinic.test")
    const disabled = await signInSso(sso, "disabled")
    expect(disabled.location).toBe("/console?sign_in_error=unknown_user")
    const unverified = await signInSso(sso, "unverified")
    expect({ location: unverified.location, session: unverified.session }).toEqual({ location: "/console?sign_in_error=email_unverified", session: undefined })
  })

  test("an email in several workspaces needs the workspace given at login", async () => {
    const unnamed = await signInSso(sso, "twice")
    expect(unnamed.location).toBe("/console?sign_in_error=workspace_required")
    const named = await signInSso(sso, "twice", { query: "?workspace=clinic-b" })
    expect(named.location).toBe("/console")
    const info = await consoleCall(sso, named.session, "GET", "/console/api/session")
    expect({ slug: info.body.workspace.slug, role: info.body.role }).toEqual({ slug: "clinic-b", role: "admin" })
  })

  test("a callback without this browser's pending sign-in, or with the provider's error, goes back to the sign-in page", async () => {
    const started = await startLogin(sso)
    const state = started.location.searchParams.get("state") ?? ""
    const foreign = await finishLogin(sso, new URL(`${sso.url}/console/oidc/callback?code=abc&state=${state}`), "")
    expect(foreign.location).toBe("/console?sign_in_error=sign_in_expired")
    const denied = await finishLogin(sso, new URL(`${sso.url}/console/oidc/callback?error=access_denied&state=${state}`), started.pendingCookie)
    expect(denied.location).toBe("/console?sign_in_error=provider_refused")
  })

  test("a provider that cannot be reached: back to the sign-in page with a code, never a 500", async () => {
    const down = await startTestServer({ config: { oidc: { issuer: `http://127.0.0.1:${await freePort()}`, clientId: "encounterd", clientSecret: SECRET } } })
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${down.url}/console/oidc/login`, { redirect: "manual" })
        expect({ status: res.status, location: res.headers.get("location") }).toEqual({ status: 302, location: "/console?sign_in_error=provider_unavailable" })
      }
    } finally {
      await down.close()
    }
  })

  test("the sign-in page is told whether single sign-on is on; without --oidc-issuer the routes only send back", async () => {
    expect((await fetch(`${sso.url}/console/api/sign-in-options`).then((r) => r.json())).oidc).toBe(true)
    expect((await fetch(`${plain.url}/console/api/sign-in-options`).then((r) => r.json())).oidc).toBe(false)
    const off = await fetch(`${plain.url}/console/oidc/login`, { redirect: "manual" })
    expect({ status: off.status, location: off.headers.get("location") }).toEqual({ status: 302, location: "/console?sign_in_error=sso_off" })
    // A password user of the same server still signs in by password.
    expect((await consoleUser(sso, "a", "viewer")).email).toBe("a-viewer@clinic.test")
  })
})

describe("serve's single sign-on flags", () => {
  const configOf = (argv: ReadonlyArray<string>) => {
    const parsed = parse(serveSpec, argv)
    if (parsed === "help") throw new Error("help")
    return serveConfig(parsed)
  }

  test("the secret is read from its file and trimmed; issuer, client id, secret file and public URL go together; http only on loopback", () => {
    const dir = mkdtempSync(join(tmpdir(), "encounterd-oidc-flags-"))
    const file = join(dir, "secret")
    writeFileSync(file, "  the secret at the provider\n")
    const flags = ["--oidc-issuer", "https://id.clinic.test", "--oidc-client-id", "encounterd", "--oidc-client-secret-file", file]
    expect(configOf([...flags, "--public-url", "https://claims.clinic.test"]).oidc).toEqual({
      issuer: "https://id.clinic.test",
      clientId: "encounterd",
      clientSecret: "the secret at the provider"
    })
    expect(configOf([]).oidc).toBeUndefined()
    expect(() => configOf(flags)).toThrow(UsageError)
    expect(() => configOf([...flags.slice(0, 4), "--public-url", "https://claims.clinic.test"])).toThrow("--oidc-client-secret-file")
    expect(() => configOf(["--oidc-client-id", "encounterd"])).toThrow("--oidc-issuer")
    expect(() => configOf(["--oidc-issuer", "http://id.clinic.test", ...flags.slice(2), "--public-url", "https://claims.clinic.test"])).toThrow("https")
    expect(configOf(["--oidc-issuer", "http://127.0.0.1:9999", ...flags.slice(2), "--public-url", "http://127.0.0.1:8080"]).oidc?.issuer).toBe("http://127.0.0.1:9999")
    writeFileSync(file, "\n")
    expect(() => configOf([...flags, "--public-url", "https://claims.clinic.test"])).toThrow("empty")
  })
})
