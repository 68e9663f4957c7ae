import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import fc from "fast-check"
import { insurancePayload, validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { uniqueId } from "./client.js"

/** Property-based hostile input: whatever arrives, the API answers in time, below 500, as problem+json. */
const LIMIT = 65536
let server: TestServer
let claimId: string
let token: string
beforeAll(async () => {
  server = await startTestServer({ config: { bodyLimit: LIMIT } })
  for (let i = 0; i < 3; i++) {
    const made = await send("/api/encounters", post(validPayload(uniqueId("hostile-seed"))))
    expect(made.status).toBe(202)
    claimId = (await send(`/encounters/${made.body.encounter_id}`, { headers: auth(server.keys.a) })).body.latest_claim_id
  }
  token = (await send("/encounters?limit=1", { headers: auth(server.keys.a) })).body.next_page_token
  expect(typeof claimId === "string" && typeof token === "string").toBe(true)
})
afterAll(() => server.close())

interface Reply { readonly status: number; readonly headers: Headers; readonly text: string; readonly body: any; readonly ms: number }

const auth = (key: string) => ({ authorization: `Bearer ${key}` })
const post = (body: unknown, key = server.keys.a, raw = false): RequestInit => ({
  method: "POST",
  headers: { ...auth(key), "content-type": "application/json" },
  body: raw ? (body as BodyInit) : JSON.stringify(body)
})

/** One request; a missing answer after 5 s is a failure (a hang), not a timeout of the test. */
const send = async (path: string, init: RequestInit & { duplex?: "half" } = {}): Promise<Reply> => {
  const started = performance.now()
  const signal = AbortSignal.timeout(5000)
  try {
    const res = await fetch(`${server.url}${path}`, { ...init, signal } as RequestInit)
    const text = await res.text()
    const body = (() => { try { return JSON.parse(text) } catch { return undefined } })()
    return { status: res.status, headers: res.headers, text, body, ms: performance.now() - started }
  } catch (e) {
    if (signal.aborted) throw new Error(`hang: no answer within 5 s to ${init.method ?? "GET"} ${path.slice(0, 300)}`)
    throw e
  }
}

const show = (r: Reply) => `${r.status} [${r.headers.get("content-type")}] ${r.text.slice(0, 400)}`

/** The invariants of every answer, and the statuses this request may get. */
const check = (r: Reply, allowed: ReadonlyArray<number>): Reply => {
  if (r.status >= 500 || !allowed.includes(r.status)) throw new Error(`answer ${show(r)}; expected one of ${allowed.join(", ")}`)
  const rid = r.headers.get("x-request-id")
  if (rid === null || rid === "") throw new Error(`no X-Request-Id on ${show(r)}`)
  if (r.status >= 400) {
    const b = r.body
    const problem = (r.headers.get("content-type") ?? "").startsWith("application/problem+json") && typeof b === "object" && b !== null &&
      typeof b.code === "string" && b.code !== "" && b.status === r.status && typeof b.request_id === "string" && b.request_id === rid
    if (!problem) throw new Error(`not a problem+json answer: ${show(r)}`)
    if (r.status === 422) {
      const ok = Array.isArray(b.errors) && b.errors.length > 0 &&
        b.errors.every((e: any) => typeof e?.path === "string" && typeof e?.message === "string")
      if (!ok) throw new Error(`422 without errors[{path, message}]: ${show(r)}`)
    }
  }
  return r
}

// ---- mutations of valid create payloads -------------------------------------------------------

const fixturesDir = new URL("../fixtures/valid/", import.meta.url)
const fixtures = readdirSync(fixturesDir).filter((n) => /^shr-.*\.json$/.test(n)).sort()
const bases: Array<object> = [validPayload("x"), insurancePayload("x"), ...fixtures.map((n) => JSON.parse(readFileSync(new URL(n, fixturesDir), "utf8")))]

type Path = ReadonlyArray<string | number>
type Mutation =
  | { readonly kind: "delete" | "wrap" | "swap"; readonly at: number }
  | { readonly kind: "replace"; readonly at: number; readonly value: unknown }
  | { readonly kind: "insert"; readonly at: number; readonly key: string; readonly value: unknown }
  | { readonly kind: "huge"; readonly at: number; readonly size: number; readonly char: string }
  | { readonly kind: "deep"; readonly at: number; readonly depth: number; readonly shape: "a" | "o" }

const pathsOf = (v: unknown, prefix: Path = [], out: Array<Path> = []): Array<Path> => {
  out.push(prefix)
  if (Array.isArray(v)) v.forEach((c, i) => pathsOf(c, [...prefix, i], out))
  else if (typeof v === "object" && v !== null) for (const k of Object.keys(v)) pathsOf((v as any)[k], [...prefix, k], out)
  return out
}
const get = (root: unknown, path: Path): any => path.reduce((v: any, k) => v?.[k], root)
/** Own data property even for `__proto__` / `constructor`, so that it is serialized. */
const define = (o: object, key: string | number, value: unknown) =>
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
const swapType = (v: unknown): unknown =>
  typeof v === "string" ? (Number.isFinite(Number(v)) ? Number(v) : v.length)
  : typeof v === "number" || typeof v === "boolean" ? String(v)
  : v === null ? {}
  : Array.isArray(v) ? Object.fromEntries(v.map((x, i) => [String(i), x]))
  : Object.values(v as object)

const DELETE = Symbol("delete")
const apply = (root: unknown, m: Mutation): unknown => {
  const paths = pathsOf(root)
  const path = paths[m.at % paths.length]!
  const current = get(root, path)
  let next: unknown
  switch (m.kind) {
    case "delete": next = DELETE; break
    case "wrap": next = [current]; break
    case "swap": next = swapType(current); break
    case "replace": next = m.value; break
    case "huge": next = m.char.repeat(m.size); break
    case "deep": next = `@@deep:${m.depth}:${m.shape}@@`; break
    case "insert":
      if (Array.isArray(current)) { current.push(m.value); next = current }
      else if (typeof current === "object" && current !== null) next = define(current, m.key, m.value)
      else next = define({}, m.key, m.value)
  }
  if (path.length === 0) return next === DELETE ? {} : next
  const parent = get(root, path.slice(0, -1))
  const key = path[path.length - 1]!
  if (next !== DELETE) define(parent, key, next)
  else if (Array.isArray(parent)) parent.splice(key as number, 1)
  else delete parent[key]
  return root
}
/** Deep nesting is written as text: a 30 000-level value would overflow JSON.stringify. */
const serialize = (v: unknown) =>
  JSON.stringify(v).replace(/"@@deep:(\d+):([ao])@@"/g, (_, d: string, s: string) =>
    s === "a" ? "[".repeat(Number(d)) + "]".repeat(Number(d)) : '{"a":'.repeat(Number(d)) + "1" + "}".repeat(Number(d)))

const at = fc.oneof(fc.constant(0), fc.nat())
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom("delete" as const, "wrap" as const, "swap" as const), at }),
  fc.record({ kind: fc.constant("replace" as const), at, value: fc.jsonValue() }),
  fc.record({ kind: fc.constant("insert" as const), at, key: fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "")), value: fc.jsonValue() }),
  fc.record({ kind: fc.constant("huge" as const), at, size: fc.integer({ min: 1000, max: 60_000 }), char: fc.constantFrom("x", "é", "😀", '"', "\\", "\u0000") }),
  fc.record({ kind: fc.constant("deep" as const), at, depth: fc.integer({ min: 1, max: 33_000 }), shape: fc.constantFrom("a" as const, "o" as const) })
)

describe("hostile input never breaks the API", () => {
  test("1. mutated create payloads answer 200/202/400/413/422", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bases.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), async (i, ms) => {
        let payload: unknown = { ...structuredClone(bases[i]!), external_id: uniqueId("hostile") }
        for (const m of ms) payload = apply(payload, m)
        check(await send("/api/encounters", post(serialize(payload), server.keys.a, true)), [200, 202, 400, 413, 422])
      }),
      { numRuns: 300 }
    )
  }, 30_000)

  test("2. arbitrary bodies (text, raw bytes, JSON values, deep nesting) never 5xx", async () => {
    const body = fc.oneof(
      fc.string(), fc.string({ unit: "binary" }), fc.uint8Array({ maxLength: 2000 }), fc.jsonValue().map((v) => JSON.stringify(v) ?? "")
    )
    const deep = fc.integer({ min: 1, max: 33_000 })
    await fc.assert(
      fc.asyncProperty(body, deep, async (b, d) => {
        check(await send("/api/encounters", post(b, server.keys.a, true)), [200, 202, 400, 413, 422])
        check(await send("/api/encounters", post("[".repeat(d) + "]".repeat(d), server.keys.a, true)), [400, 413, 422])
        // Deep nesting on the claim route is property 2b.
        check(await send(`/api/claims/${claimId}/status`, post(b, server.keys.aWriter, true)), [200, 400, 409, 413, 422])
      }),
      { numRuns: 300 }
    )
  }, 30_000)

  test("2b. deeply nested values inside a claim status body never 5xx", async () => {
    // Counterexamples print as {depth, field, shape}: the body is built from them.
    const nested = fc.record({
      depth: fc.integer({ min: 1, max: 33_000 }),
      field: fc.constantFrom("$root", "status", "note", "extra"),
      shape: fc.constantFrom("array" as const, "object" as const)
    })
    await fc.assert(
      fc.asyncProperty(nested, async ({ depth, field, shape }) => {
        const value = shape === "array" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth)
        const body = field === "$root" ? value : field === "status" ? `{"status":${value}}` : `{"status":"coded","${field}":${value}}`
        check(await send(`/api/claims/${claimId}/status`, post(body, server.keys.aWriter, true)), [200, 400, 409, 413, 422])
      }),
      { numRuns: 60 }
    )
  }, 30_000)

  const headerText = (maxLength: number) =>
    fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength })
  const isJson = (ct: string) => {
    const type = ct.split(";")[0]!.trim().toLowerCase()
    return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
  }

  test("3. random Content-Type, Authorization and X-Request-Id headers", async () => {
    const contentType = fc.oneof(
      fc.constantFrom("application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/vnd.api+json",
        "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ";", "application/json;;;", "+json", "application/+json", "json"),
      headerText(100)
    )
    const key = () => fc.constantFrom(server.keys.a, server.keys.aWriter)
    const authorization = fc.oneof(
      key().map((k) => ({ value: `Bearer ${k}`, valid: true })),
      fc.tuple(fc.constantFrom("bearer", "BEARER", "Bearer", "bEaReR"), fc.constantFrom(" ", "  ", "\t"), key()).map(([s, sp, k]) => ({ value: `${s}${sp}${k}`, valid: true })),
      headerText(200).map((s) => ({ value: `Bearer ${s}`, valid: false })),
      fc.tuple(fc.constantFrom("Basic", "Token", "Digest", "eik_", ""), headerText(100)).map(([s, r]) => ({ value: `${s} ${r}`, valid: false })),
      fc.constantFrom("", "Bearer", "Bearer ", `Bearer ${"A".repeat(8192)}`).map((value) => ({ value, valid: false })),
      fc.constant({ value: undefined, valid: false })
    )
    const requestId = fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/), headerText(300), fc.constant(undefined))
    await fc.assert(
      fc.asyncProperty(fc.option(contentType), authorization, requestId, fc.boolean(), async (ct, a, rid, create) => {
        const headers: Record<string, string> = {}
        if (ct !== null) headers["content-type"] = ct
        if (a.value !== undefined) headers.authorization = a.value
        if (rid !== undefined) headers["x-request-id"] = rid
        const init: RequestInit = create
          ? { method: "POST", headers, body: new TextEncoder().encode(JSON.stringify(validPayload(uniqueId("hdr")))) }
          : { headers }
        const r = await send(create ? "/api/encounters" : "/api/workspace", init)
        const sentType = (ct ?? "").trim()
        const expected = !a.valid ? [401] : !create ? [200] : ct === null ? [415] : isJson(sentType) ? [202] : [415]
        check(r, expected)
        const echoed = r.headers.get("x-request-id")!
        if (rid !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(rid.trim())) expect(echoed).toBe(rid.trim())
        else expect(echoed).toMatch(/^[0-9a-f-]{36}$/)
      }),
      { numRuns: 400 }
    )
  }, 30_000)

  test("4. random query strings on the lists answer 200 or 400", async () => {
    const percent = fc.oneof(
      fc.constantFrom("%", "%%", "%zz", "%e9", "%c3%28", "%ff%fe", "%00", "%2", "%u0041", "%F0%9F%98%80", "+", "%20", "&", "="),
      fc.tuple(fc.constantFrom(..."0123456789abcdefABCDEFgx"), fc.constantFrom(..."0123456789abcdefABCDEFgx")).map(([a, b]) => `%${a}${b}`)
    )
    const plain = fc.constantFrom("", "1", "100", "0", "-1", "101", "1.5", "1e2", " 5", "0x10", "NaN", "Infinity", "draft", "paid",
      "submitted_to_payer", "ExternalApi.Encounter.Created", "ExternalApi.Encounter.Created,ExternalApi.Encounter.StatusUpdated",
      ",,", "2026-01-15", "2026-01-15T10:00:00Z", "2026-13-45T99:99:99Z", "99999-01-01", "enc-shr-0001")
    const value = fc.oneof(plain, fc.string().map(encodeURIComponent), fc.string({ unit: "binary" }), percent,
      fc.array(fc.oneof(plain, percent), { maxLength: 4 }).map((xs) => xs.join("")))
    const name = fc.oneof(fc.constantFrom("limit", "page_token", "external_id", "claim_status", "event_types", "created_after", "created_before"),
      fc.string().map(encodeURIComponent))
    const path = fc.constantFrom("/encounters", "/api/encounters/compat-version", "/api/encounters/compat-version/events")
    const query = fc.array(fc.tuple(name, fc.option(value)), { maxLength: 6 })
      .map((ps) => ps.map(([n, v]) => (v === null ? n : `${n}=${v.replace(/#/g, "%23")}`)).join("&"))
    await fc.assert(
      fc.asyncProperty(path, query, async (p, q) => {
        check(await send(`${p}?${q}`, { headers: auth(server.keys.a) }), [200, 400])
      }),
      { numRuns: 400 }
    )
  }, 30_000)

  test("5. random ids in paths answer 404 (or 400/422 for a bad body)", async () => {
    const char = fc.oneof(fc.constantFrom(..."%.aZ09-_~!$&'()*+,;=:@ é😀\\"), fc.string({ minLength: 1, maxLength: 1 }))
    const segment = fc.oneof(
      fc.string({ unit: char, minLength: 1, maxLength: 40 }).map((s) => s.replace(/[/?#]/g, "x")),
      fc.string({ minLength: 1 }).map(encodeURIComponent),
      fc.constantFrom(".", "..", "...", "%2e", "%2e%2e", ".%2E", "%", "%%", "%zz", "%e9", "%c3%28", "%ff", "%00", "%2f", "%252e", "null", "undefined", "events", "$'", "$`", "$&"),
      fc.uuid(),
      fc.integer({ min: 1000, max: 12_000 }).map((n) => "a".repeat(n))
    )
    const template = fc.constantFrom("/encounters/{}", "/api/encounters/{}", "/api/encounters/compat-version/{}",
      "/api/encounters/compat-version/events/{}", "/api/claims/{}/status")
    const claimBody = fc.constantFrom({ body: '{"status":"biller_received"}', valid: true }, { body: '{"status":"nope"}', valid: false },
      { body: "{", valid: false }, { body: "[]", valid: false })
    await fc.assert(
      fc.asyncProperty(template, segment, claimBody, async (t, seg, cb) => {
        const path = t.replace("{}", () => seg) // a function: "$'" and "$`" in seg are not replacement patterns
        const claims = t.startsWith("/api/claims")
        // The URL parser resolves dot segments and "\": the request may then name another route.
        const normalized = new URL(path, server.url).pathname.split("/").length !== t.split("/").length
        const literal = (() => { try { return decodeURIComponent(seg) } catch { return undefined } })()
        // "\" becomes "/": "\." then names an empty segment ("/api/claims//status"), which no route has.
        const other = normalized || seg.includes("\\") || literal === "events" || /^[.\s]*$/.test(literal ?? "")
        // A segment that is not valid percent-encoding names no route: 404 before the body is read.
        const allowed = claims && !cb.valid && literal !== undefined ? [400, 422] : [404]
        const r = await send(path, claims ? { ...post(cb.body, server.keys.aWriter, true) } : { headers: auth(server.keys.a) })
        check(r, other ? [...allowed, 200, 400, 404, 405, 422] : allowed)
      }),
      { numRuns: 400 }
    )
  }, 30_000)

  test("6. mutated page tokens answer 200 or 400", async () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64url")
    const real = JSON.parse(Buffer.from(token, "base64url").toString("utf8"))
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/.%"
    const mutated = fc.oneof(
      fc.tuple(fc.nat(), fc.constantFrom(...alphabet)).map(([i, c]) => { const j = i % token.length; return token.slice(0, j) + c + token.slice(j + 1) }),
      fc.nat().map((i) => token.slice(0, i % token.length)),
      fc.string({ maxLength: 40 }).map((s) => token + s),
      fc.jsonValue().map((v) => b64(JSON.stringify(v) ?? "")),
      fc.array(fc.oneof(fc.string(), fc.double(), fc.integer()), { minLength: 1, maxLength: 4 }).map((k) => b64(JSON.stringify({ ...real, k }))),
      fc.record({ d: fc.constantFrom("n", "p", "x"), k: fc.jsonValue(), s: fc.oneof(fc.constant(real.s), fc.string()) }).map((o) => b64(JSON.stringify(o))),
      fc.constant(b64("x".repeat(600)))
    )
    const list = fc.constantFrom("/encounters?limit=1&", "/api/encounters/compat-version?limit=2&", "/api/encounters/compat-version/events?")
    await fc.assert(
      fc.asyncProperty(list, mutated, async (l, t) => {
        check(await send(`${l}page_token=${encodeURIComponent(t)}`, { headers: auth(server.keys.a) }), [200, 400])
      }),
      { numRuns: 400 }
    )
  }, 30_000)

  test("7. a 10 MB body is refused 413: quickly with Content-Length, and when chunked", async () => {
    const huge = JSON.stringify(validPayload(uniqueId("huge"), { appointment_type: "x".repeat(10 * 1024 * 1024) }))
    const declared = check(await send("/api/encounters", post(huge, server.keys.a, true)), [413])
    expect(declared.ms).toBeLessThan(1000)
    const chunk = new Uint8Array(64 * 1024).fill(0x78)
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 10 * 1024 * 1024) return controller.close()
        controller.enqueue(sent === 0 ? new TextEncoder().encode('{"external_id":"') : chunk)
        sent += chunk.byteLength
      }
    })
    const init = { method: "POST", body: stream, duplex: "half" as const, headers: { ...auth(server.keys.a), "content-type": "application/json" } }
    check(await send("/api/encounters", init), [413])
    check(await send("/healthz"), [200])
  }, 30_000)

  test("8. lists past their limits are one problem; lists within them answer at most 100 problems, then too_many_problems", async () => {
    const onlyProblem = (r: Reply, path: string, message: string) => {
      check(r, [400, 422])
      expect(r.body.errors).toEqual([{ path, message }])
    }
    // The repeated event_types parameter, as an array of at most 100.
    const repeated = (n: number) => Array(n).fill("event_types=ExternalApi.Encounter.Created").join("&")
    expect(check(await send(`/api/encounters/compat-version/events?${repeated(100)}`, { headers: auth(server.keys.a) }), [200]).status).toBe(200)
    onlyProblem(
      await send(`/api/encounters/compat-version/events?${repeated(101)}`, { headers: auth(server.keys.a) }),
      "event_types",
      "must be a comma list of event types, or the parameter repeated at most 100 times"
    )
    onlyProblem(await send("/api/encounters", post(validPayload(uniqueId("long"), { tag_ids: Array(5000).fill("t") }))), "tag_ids", "must have at most 1000 entries")
    onlyProblem(await send("/api/x12/837p-batches", post({ claim_ids: Array(501).fill("x") }, server.keys.aWriter)), "claim_ids", "must have at most 500 entries")
    const many = check(await send("/api/encounters", post(validPayload(uniqueId("many"), { billing_notes: Array(1000).fill({}) }))), [422])
    expect(many.body.errors.length).toBe(101)
    expect(many.body.errors[100].code).toBe("too_many_problems")
    expect(many.body.detail).toBe("More than 100 problems in the request body; the first 100 are listed")
  })
})
