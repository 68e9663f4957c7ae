import { afterAll, describe, expect, test } from "bun:test"
import { Effect, ManagedRuntime } from "effect"
import { parse, UsageError } from "../../bin/args.js"
import { serveConfig, serveSpec } from "../../bin/serve.js"
import { ApiKeyId } from "../../lib/domain/ids.js"
import { memoryLayer } from "../../lib/layers.js"
import { withDefaults } from "../../server/config.js"
import { CSP } from "../../server/console/headers.js"
import { IDLE_MS, MAX_AGE_MS, makeSessionStore, type Created } from "../../server/console/sessions.js"
import { makeConsoleState } from "../../server/console/state.js"
import { open, type Route } from "../../server/route.js"
import { sameSecret as sameToken } from "../../server/same-secret.js"
import { startServer } from "../../server/server.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Answer, api, expectProblem } from "./client.js"
import { type ConsoleSession, consoleCall, signInConsole } from "./console-support.js"

const keyA = { kind: "key" as const, hash: "a".repeat(64), id: ApiKeyId.make("01a2079a-a420-7000-a0df-2fce210a5dab") }
const keyB = { kind: "key" as const, hash: "b".repeat(64), id: ApiKeyId.make("01a2079a-a420-7000-a0df-2fce210a5dac") }
const keyC = { kind: "key" as const, hash: "c".repeat(64), id: ApiKeyId.make("01a2079a-a420-7000-a0df-2fce210a5dad") }
const keyD = { kind: "key" as const, hash: "d".repeat(64), id: ApiKeyId.make("01a2079a-a420-7000-a0df-2fce210a5dae") }

const HOUR = 60 * 60 * 1000

/** A store on a clock the test moves. */
const storeAt = (start: number, options: { maxSessions?: number; perKey?: number; idleMs?: number; maxAgeMs?: number } = {}) => {
  let now = start
  const store = makeSessionStore({
    maxSessions: options.maxSessions ?? 100,
    perKey: options.perKey ?? 100,
    idleMs: options.idleMs ?? IDLE_MS,
    maxAgeMs: options.maxAgeMs ?? MAX_AGE_MS,
    now: () => now
  })
  return { store, advance: (ms: number) => (now += ms) }
}

const created = (c: Created) => {
  if (c._tag !== "Created") throw new Error("the store refused a session")
  return c
}

describe("console session store", () => {
  test("the defaults: 15 minutes idle, 12 hours in all", () => {
    expect([IDLE_MS, MAX_AGE_MS]).toEqual([15 * 60 * 1000, 12 * HOUR])
  })

  test("a session idle for longer than the idle limit is gone; use restarts its idle time", () => {
    const { store, advance } = storeAt(1_000_000, { maxAgeMs: 100 * HOUR })
    const a = created(store.create(keyA))
    const b = created(store.create(keyA))
    advance(IDLE_MS - 1000)
    expect(store.find(a.token)?.subject.id).toBe(keyA.id)
    advance(2000)
    expect(store.find(a.token)).toBeDefined()
    expect(store.find(b.token)).toBeUndefined()
    advance(IDLE_MS + 1)
    expect(store.find(a.token)).toBeUndefined()
  })

  test("the absolute lifetime ends a session however busy it is", () => {
    const { store, advance } = storeAt(5_000, { idleMs: 30 * 60 * 1000, maxAgeMs: 3 * HOUR })
    const a = created(store.create(keyA))
    // Used every 20 minutes (never idle for 30) for just under 3 hours: alive.
    for (let t = 0; t < 8; t++) {
      advance(20 * 60 * 1000)
      expect(store.find(a.token)).toBeDefined()
    }
    advance(20 * 60 * 1000 - 1)
    expect(store.find(a.token)?.createdAt).toBe(5_000)
    advance(2)
    expect(store.find(a.token)).toBeUndefined()
    expect(store.size()).toBe(0)
    // A new sign-in starts a new lifetime.
    const again = created(store.create(keyA))
    for (let t = 0; t < 9; t++) {
      advance(20 * 60 * 1000 - 1)
      expect(store.find(again.token)).toBeDefined()
    }
  })

  test("tokens and CSRF tokens are random and distinct; the session keeps neither the key nor the token", () => {
    const { store } = storeAt(0)
    const a = created(store.create(keyA))
    const b = created(store.create(keyA))
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(new Set([a.token, b.token, a.session.csrf, b.session.csrf]).size).toBe(4)
    expect(Object.values(a.session)).not.toContain(a.token)
    expect(store.find(`${a.token.slice(0, -1)}x`)).toBeUndefined()
  })

  test("each key holds at most perKey sessions: a further sign-in ends that key's oldest, never another key's", () => {
    const { store, advance } = storeAt(0, { perKey: 3, maxSessions: 10 })
    const b = created(store.create(keyB))
    const a: Array<string> = []
    for (let i = 0; i < 3 + 1; i++) {
      advance(1)
      a.push(created(store.create(keyA)).token)
    }
    expect(a.map((t) => store.find(t) !== undefined)).toEqual([false, true, true, true])
    // Even the oldest of the key goes (not the least recently used): A's second, though just used.
    store.find(a[1]!)
    advance(1)
    a.push(created(store.create(keyA)).token)
    expect(a.map((t) => store.find(t) !== undefined)).toEqual([false, false, true, true, true])
    // Thousands more sign-ins with A leave B's session alone.
    for (let i = 0; i < 5_000; i++) store.create(keyA)
    expect(store.find(b.token)?.subject.id).toBe(keyB.id)
    expect(store.size()).toBe(4)
  })

  test("at maxSessions a sign-in is refused and no session is ended; expired sessions make room", () => {
    const { store, advance } = storeAt(0, { maxSessions: 3, perKey: 3, idleMs: HOUR })
    const a = created(store.create(keyA))
    const b = created(store.create(keyB))
    advance(30 * 60 * 1000)
    const c = created(store.create(keyC))
    expect(store.create(keyD)._tag).toBe("Full")
    expect([a, b, c].map((s) => store.find(s.token) !== undefined)).toEqual([true, true, true])
    // A key that already has sessions is refused too rather than ending others' (its own stay).
    expect(store.create(keyA)._tag).toBe("Full")
    expect(store.find(a.token)).toBeDefined()
    advance(HOUR + 1)
    store.find(c.token)
    advance(1)
    const d = created(store.create(keyD))
    expect(store.find(d.token)?.subject.id).toBe(keyD.id)
  })

  test("sign-out removes exactly that session", () => {
    const { store } = storeAt(0)
    const a = created(store.create(keyA))
    const b = created(store.create(keyA))
    store.remove(a.token)
    expect([store.find(a.token), store.find(b.token)?.subject.id]).toEqual([undefined, keyA.id])
    const c = created(store.create(keyA))
    expect(store.find(c.token)).toBeDefined()
  })

  test("CSRF tokens compare equal only when identical, whatever their lengths", () => {
    expect(sameToken("abc", "abc")).toBe(true)
    expect(sameToken("abc", "abd")).toBe(false)
    expect(sameToken("abc", "abcd")).toBe(false)
    expect(sameToken("", "x")).toBe(false)
  })
})

describe("console sign-in limits (the state's own clock)", () => {
  const limits = (perKey: number, perAddress: number) => ({ ...withDefaults({}).console, signInsPerKey: perKey, signInsPerAddress: perAddress })

  test("per key: N a minute, all at once; the next is refused with the seconds until one comes back", () => {
    let now = 0
    const state = makeConsoleState(limits(3, 0), () => now)
    for (let i = 0; i < 3; i++) expect(state.admitSignIn("k1", `10.0.0.${i}`)).toBeUndefined()
    expect(state.admitSignIn("k1", "10.0.0.9")?.retryAfterSeconds).toBe(20)
    expect(state.admitSignIn("k2", "10.0.0.9")).toBeUndefined()
    now += 20_000
    expect(state.admitSignIn("k1", "10.0.0.9")).toBeUndefined()
    expect(state.admitSignIn("k1", "10.0.0.9")).toBeDefined()
  })

  test("per address: any keys; an IPv6 /64 counts as one address, an IPv4-mapped address as its IPv4", () => {
    const state = makeConsoleState(limits(0, 2), () => 0)
    expect(state.admitSignIn("k1", "2001:db8:1:2::1")).toBeUndefined()
    expect(state.admitSignIn("k2", "2001:db8:1:2:ffff::7")).toBeUndefined()
    expect(state.admitSignIn("k3", "2001:db8:1:2::99")).toBeDefined()
    expect(state.admitSignIn("k3", "2001:db8:1:3::1")).toBeUndefined()
    expect(state.admitSignIn("k4", "192.0.2.1")).toBeUndefined()
    expect(state.admitSignIn("k5", "::ffff:192.0.2.1")).toBeUndefined()
    expect(state.admitSignIn("k6", "192.0.2.1")).toBeDefined()
  })
})

/** A console sign-in as the page sends it; `headers` adds e.g. X-Forwarded-For. */
const signIn = (server: TestServer, key: string, headers: Record<string, string> = {}): Promise<Answer> =>
  consoleCall(server, undefined, "POST", "/console/api/session", { body: { api_key: key }, headers })

const sessionOf = (res: Answer): ConsoleSession => ({
  cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "",
  csrf: typeof res.body?.csrf_token === "string" ? res.body.csrf_token : "",
  setCookie: res.headers.get("set-cookie") ?? ""
})

/** Every console answer, refusals included: the console's CSP and not stored. */
const expectConsoleHeaders = (res: Answer | Response) => {
  expect({ csp: res.headers.get("content-security-policy"), cache: res.headers.get("cache-control") }).toEqual({ csp: CSP, cache: "no-store" })
  expect(res.headers.get("x-frame-options")).toBe("DENY")
}

const expectRateLimited = (res: Answer) => {
  expectProblem(res, 429, "rate_limited")
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0)
  expectConsoleHeaders(res)
}

const servers: Array<TestServer> = []
afterAll(async () => {
  for (const s of servers) await s.close()
})
const serverWith = async (config: Parameters<typeof startTestServer>[0] = {}) => {
  const s = await startTestServer(config)
  servers.push(s)
  return s
}

describe("console sign-in over HTTP", () => {
  test("per key: the key's sign-ins past the limit answer 429 problem+json with Retry-After; other keys sign in", async () => {
    const server = await serverWith({ config: { console: { signInsPerKey: 3, signInsPerAddress: 0, keySignIn: true } } })
    for (let i = 0; i < 3; i++) expect((await signIn(server, server.keys.aAdmin)).status).toBe(200)
    expectRateLimited(await signIn(server, server.keys.aAdmin))
    expect((await signIn(server, server.keys.bAdmin)).status).toBe(200)
    // Attempts with a key that does not exist count the same, before it is looked up.
    for (let i = 0; i < 3; i++) expectProblem(await signIn(server, "eik_guess"), 401, "unauthorized")
    expectRateLimited(await signIn(server, "eik_guess"))
    const scrape = await fetch(`${server.url}/metrics`)
    expect(await scrape.text()).toMatch(/^encounterd_rate_limited_total 2$/m)
  })

  test("per client address: past the limit every key is refused from that address; X-Forwarded-For counts only from a trusted proxy", async () => {
    const direct = await serverWith({ config: { console: { signInsPerKey: 0, signInsPerAddress: 3, keySignIn: true } } })
    const keys = [direct.keys.aAdmin, direct.keys.bAdmin, direct.keys.aAdmin]
    for (const [i, key] of keys.entries()) expect((await signIn(direct, key, { "x-forwarded-for": `203.0.113.${i}` })).status).toBe(200)
    // The header is not believed from an untrusted peer: all of these came from 127.0.0.1.
    expectRateLimited(await signIn(direct, direct.keys.bAdmin, { "x-forwarded-for": "203.0.113.77" }))

    const proxied = await serverWith({ config: { trustedProxies: ["127.0.0.1"], console: { signInsPerKey: 0, signInsPerAddress: 2, keySignIn: true } } })
    const from = (client: string) => ({ "x-forwarded-for": `198.51.100.250, ${client}` })
    expect((await signIn(proxied, proxied.keys.aAdmin, from("203.0.113.5"))).status).toBe(200)
    expect((await signIn(proxied, proxied.keys.bAdmin, from("203.0.113.5"))).status).toBe(200)
    expectRateLimited(await signIn(proxied, proxied.keys.aAdmin, from("203.0.113.5")))
    // Another client behind the same proxy is counted on its own.
    expect((await signIn(proxied, proxied.keys.aAdmin, from("203.0.113.6"))).status).toBe(200)
  })

  test("per-subject session bound: signing in N+1 times as user A ends A's oldest session, never B's", async () => {
    const server = await serverWith({ config: { console: { sessionsPerKey: 2, signInsPerKey: 0, signInsPerAddress: 0 } } })
    const b = await signInConsole(server, server.keys.b)
    const a = [await signInConsole(server, server.keys.a), await signInConsole(server, server.keys.a)]
    for (let i = 0; i < 50; i++) a.push(await signInConsole(server, server.keys.a))
    const status = async (s: ConsoleSession) => (await consoleCall(server, s, "GET", "/console/api/session")).status
    expect(await status(b)).toBe(200)
    expect(await status(a[0]!)).toBe(401)
    expect([await status(a[a.length - 2]!), await status(a[a.length - 1]!)]).toEqual([200, 200])
  })

  test("at --console-max-sessions a sign-in answers 503 console_sessions_full; the sessions held go on", async () => {
    const server = await serverWith({ config: { console: { maxSessions: 2, signInsPerKey: 0, signInsPerAddress: 0, keySignIn: true } } })
    const a = await signInConsole(server, server.keys.a)
    const b = await signInConsole(server, server.keys.b)
    const full = await signIn(server, server.keys.aAdmin)
    expectProblem(full, 503, "console_sessions_full")
    expect(full.headers.get("retry-after")).toBe("60")
    expectConsoleHeaders(full)
    expect((await consoleCall(server, a, "GET", "/console/api/session")).status).toBe(200)
    expect((await consoleCall(server, b, "GET", "/console/api/session")).status).toBe(200)
    expect((await consoleCall(server, a, "POST", "/console/api/sign-out")).status).toBe(204)
    expect((await signIn(server, server.keys.aAdmin)).status).toBe(200)
  })
})

describe("console API routes and the key's rate limit", () => {
  test("a key's console requests spend the key's tokens, the same bucket as its API requests (429 with Retry-After)", async () => {
    const server = await serverWith({ config: { rateLimit: 1, rateBurst: 4, console: { keySignIn: true } } })
    const s = sessionOf(await signIn(server, server.keys.aAdmin))
    const first = await consoleCall(server, s, "GET", "/console/api/encounters")
    expect(first.status).toBe(200)
    expect(first.headers.get("ratelimit-limit")).toBe("4")
    expect(first.headers.get("ratelimit-remaining")).toBe("3")
    const statuses: Array<number> = []
    let refused: Answer | undefined
    for (let i = 0; i < 6; i++) {
      const res = await consoleCall(server, s, "GET", "/console/api/encounters")
      statuses.push(res.status)
      if (res.status === 429) refused ??= res
    }
    expect(statuses.filter((x) => x === 200).length).toBeLessThanOrEqual(4)
    expectRateLimited(refused!)
    // The key's API requests are refused too: one bucket per key.
    expectProblem(await api(server)("GET", "/api/workspace", { key: server.keys.aAdmin }), 429, "rate_limited")
    // Another key's console session is not affected.
    const other = await signInConsole(server, server.keys.b)
    expect((await consoleCall(server, other, "GET", "/console/api/encounters")).status).toBe(200)
  })
})

describe("every console answer carries the CSP and Cache-Control: no-store", () => {
  test("401, 403, 404 and 405 under /console", async () => {
    const server = await serverWith({ config: { console: { keySignIn: true } } })
    const s = await signInConsole(server, server.keys.a)
    const noSession = await consoleCall(server, undefined, "GET", "/console/api/encounters")
    expectProblem(noSession, 401, "session_required")
    expectConsoleHeaders(noSession)
    const badKey = await signIn(server, "eik_nope")
    expectProblem(badKey, 401, "unauthorized")
    expectConsoleHeaders(badKey)
    const csrf = await consoleCall(server, s, "POST", "/console/api/sign-out", { csrf: null })
    expectProblem(csrf, 403, "csrf_failed")
    expectConsoleHeaders(csrf)
    const scope = await consoleCall(server, s, "POST", `/console/api/claims/${"0".repeat(8)}-0000-7000-8000-${"0".repeat(12)}/status`, { body: { status: "submitted_to_payer" } })
    expect(scope.status).toBe(403)
    expectConsoleHeaders(scope)
    for (const path of ["/console/api/nope", "/console/assets/nope.js", "/console/nope/deeper"]) {
      const res = await consoleCall(server, s, "GET", path)
      expectProblem(res, 404, "not_found")
      expectConsoleHeaders(res)
    }
    const wrongMethod = await fetch(`${server.url}/console/api/session`, { method: "DELETE" })
    expect(wrongMethod.status).toBe(405)
    expectConsoleHeaders(wrongMethod)
    // The API's own answers are left as they were.
    const apiMissing = await api(server)("GET", "/api/nope")
    expect(apiMissing.headers.get("content-security-policy")).toBeNull()
  })

  test("500 under /console, from a failed handler or a throw", async () => {
    const doc = (path: string) => ({ method: "GET" as const, path, operationId: path, tag: "Test", summary: "fault", responses: {} })
    const routes: ReadonlyArray<Route> = [
      open(doc("/console/api/defect"), () => Effect.die(new Error("boom"))),
      open(doc("/console/api/throws"), () => {
        throw new TypeError("thrown outside any effect")
      })
    ]
    const runtime = ManagedRuntime.make(memoryLayer)
    const server = startServer(runtime, withDefaults({ port: 0, rateLimit: 0 }), { routes })
    try {
      for (const path of ["/console/api/defect", "/console/api/throws"]) {
        const res = await fetch(`${server.url}${path}`)
        expect(res.status).toBe(500)
        expectConsoleHeaders(res)
      }
    } finally {
      await server.stop()
      await runtime.dispose()
    }
  })
})

describe("serve flags", () => {
  const configOf = (argv: ReadonlyArray<string>) => {
    const parsed = parse(serveSpec, argv)
    if (parsed === "help") throw new Error("help")
    return serveConfig(parsed)
  }

  test("defaults, and each console limit and the trusted proxies set by its flag", () => {
    expect(configOf([]).console).toEqual({
      sessionIdleMs: 15 * 60 * 1000,
      sessionMaxAgeMs: 12 * HOUR,
      sessionsPerKey: 20,
      maxSessions: 10_000,
      signInsPerKey: 10,
      signInsPerAddress: 30,
      keySignIn: false
    })
    expect(configOf([]).trustedProxies).toEqual([])
    const set = configOf([
      "--console-session-idle", "30m",
      "--console-session-max-age", "8h",
      "--console-sessions-per-key", "5",
      "--console-max-sessions", "500",
      "--console-sign-ins-per-key", "0",
      "--console-sign-ins-per-address", "60",
      "--console-key-sign-in",
      "--trusted-proxy", "127.0.0.1",
      "--trusted-proxy", "::1,10.0.0.2"
    ])
    expect(set.console).toEqual({
      sessionIdleMs: 30 * 60 * 1000,
      sessionMaxAgeMs: 8 * HOUR,
      sessionsPerKey: 5,
      maxSessions: 500,
      signInsPerKey: 0,
      signInsPerAddress: 60,
      keySignIn: true
    })
    expect(set.trustedProxies).toEqual(["127.0.0.1", "::1", "10.0.0.2"])
  })

  test("bad values are usage errors", () => {
    for (const argv of [
      ["--console-session-max-age", "10s"],
      ["--console-session-max-age", "12 hours"],
      ["--console-session-idle", "31d"],
      ["--console-sessions-per-key", "0"],
      ["--console-max-sessions", "-1"],
      ["--console-sign-ins-per-key", "1.5"],
      ["--trusted-proxy", "proxy.internal"]
    ]) {
      expect(() => configOf(argv)).toThrow(UsageError)
    }
  })
})
