import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import fc from "fast-check"
import { capturedLogs, startTestServer, type TestServer } from "../support/server.js"
import { validPayload } from "../support/payloads.js"
import { type RawReply, rawRequest } from "../support/raw-http.js"
import { uniqueId } from "./client.js"

/**
 * Hostile input on the wire (the property tests of hostile.test.ts go through `fetch`, which
 * always sends a good request line and a Host): requests without Host, HTTP/1.0, absolute-form
 * targets and garbage request lines, written to a raw socket.
 */
let server: TestServer
let port: number
beforeAll(async () => {
  server = await startTestServer()
  port = server.server.port
})
afterAll(() => server.close())

const show = (r: RawReply) => JSON.stringify(r.raw.slice(0, 400))

/**
 * Bun's HTTP parser refuses what is not HTTP/1.x before any of our code runs: a malformed request
 * line or header (400), headers over its limit (431), another protocol version (505). Those
 * answers are bare: no body, no content type, the connection closed.
 */
const BUN_REFUSALS = [400, 431, 505]
const isBunRefusal = (r: RawReply) =>
  r.status !== null && BUN_REFUSALS.includes(r.status) && r.body === "" && !r.headers.has("content-type") &&
  r.headers.get("connection") === "close"

/** The invariants of every answer: what our pipeline answers is never a 5xx and carries its id. */
const check = (r: RawReply): RawReply => {
  if (r.status === null) return r
  const rid = r.headers.get("x-request-id")
  if (rid === undefined) {
    if (!isBunRefusal(r)) throw new Error(`an answer without X-Request-Id that is not the parser's refusal: ${show(r)}`)
    return r
  }
  if (r.status >= 500) throw new Error(`5xx answer: ${show(r)}`)
  if (r.status >= 400) {
    const ok = (r.headers.get("content-type") ?? "").startsWith("application/problem+json") && r.body.includes(`"request_id":"${rid}"`)
    if (!ok && r.body !== "") throw new Error(`not a problem+json answer: ${show(r)}`)
  }
  return r
}

const stillServes = async () => {
  const r = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5000) })
  expect(r.status).toBe(200)
}

describe("requests fetch cannot send", () => {
  test("HTTP/1.0 without Host is served normally, with a request id and a log line", async () => {
    const r = check(await rawRequest(port, "GET /healthz HTTP/1.0\r\n\r\n"))
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body)).toEqual({ status: "ok" })
    const rid = r.headers.get("x-request-id")!
    expect(rid).toMatch(/^[0-9a-f-]{36}$/)
    await Bun.sleep(20)
    expect(capturedLogs.some((l) => l.includes(`"request_id":"${rid}"`) && l.includes('"route":"/healthz"'))).toBe(true)
  })

  test("an authenticated read and a query string work without Host", async () => {
    const r = check(await rawRequest(port, `GET /api/workspace HTTP/1.0\r\nAuthorization: Bearer ${server.keys.a}\r\n\r\n`))
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body).slug).toBe("clinic-a")
    const list = check(await rawRequest(port, `GET /encounters?limit=1 HTTP/1.0\r\nAuthorization: Bearer ${server.keys.a}\r\n\r\n`))
    expect(list.status).toBe(200)
    const bad = check(await rawRequest(port, `GET /encounters?limit=0 HTTP/1.0\r\nAuthorization: Bearer ${server.keys.a}\r\n\r\n`))
    expect(bad.status).toBe(400)
  })

  test("an empty or malformed Host is served like no Host", async () => {
    for (const host of ["", "a b", "a/b?c", "[::1", "%zz", "x:99999", "u@h"]) {
      const r = check(await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`))
      if (r.status !== 200) throw new Error(`Host ${JSON.stringify(host)}: ${show(r)}`)
    }
  })

  test("absolute-form targets route by their path", async () => {
    for (const target of [`http://127.0.0.1:${port}/healthz`, "http://elsewhere.example/healthz", "https://user:pw@h:99/healthz?x#f"]) {
      for (const version of ["HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close", "HTTP/1.0"]) {
        const r = check(await rawRequest(port, `GET ${target} ${version}\r\n\r\n`))
        expect(r.status).toBe(200)
      }
    }
    const missing = check(await rawRequest(port, "GET http://x/nope HTTP/1.0\r\n\r\n"))
    expect(missing.status).toBe(404)
  })

  test("creates over HTTP/1.0 without Host: a valid one is stored, an invalid one names its problems", async () => {
    const post = (body: string) =>
      `POST /api/encounters HTTP/1.0\r\nAuthorization: Bearer ${server.keys.a}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    const created = check(await rawRequest(port, post(JSON.stringify(validPayload(uniqueId("wire"))))))
    expect(created.status).toBe(202)
    const id: string = JSON.parse(created.body).encounter_id
    const read = await fetch(`${server.url}/encounters/${id}`, { headers: { authorization: `Bearer ${server.keys.a}` } })
    expect(read.status).toBe(200)
    const invalid = check(await rawRequest(port, post(JSON.stringify({ external_id: "wire-invalid" }))))
    expect(invalid.status).toBe(422)
    expect(JSON.parse(invalid.body).errors.length).toBeGreaterThan(0)
  })
})

const token = fc.stringMatching(/^[A-Za-z!#$%&'*+.^_`|~-]{1,12}$/)
const printable = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength })
const anyBytes = fc.string({ unit: "binary", maxLength: 200 })

// Weighted towards what parses, so that most requests reach the pipeline rather than the parser's refusal.
const method = fc.oneof({ arbitrary: fc.constantFrom("GET", "HEAD", "POST", "OPTIONS", "DELETE", "PUT", "PATCH", "CONNECT", "TRACE"), weight: 8 }, token)
const path = fc.constantFrom("/healthz", "/readyz", "/metrics", "/api/workspace", "/encounters", "/encounters/x", "/api/openapi.json", "/", "/nope")
const target = fc.oneof(
  { arbitrary: path, weight: 6 },
  fc.tuple(fc.constantFrom("http", "https", "ftp", "HTTP"), printable(30), path).map(([s, h, p]) => `${s}://${h}${p}`),
  fc.constantFrom("*", "", "//", "//evil/healthz", "healthz", "127.0.0.1:80", "/%", "/%zz", "/..", "/../../etc/passwd", "/\u00e9"),
  printable(60),
  fc.webUrl({ withQueryParameters: true, withFragments: true })
)
const version = fc.oneof(
  { arbitrary: fc.constantFrom("HTTP/1.0", "HTTP/1.1"), weight: 12 },
  fc.constantFrom("HTTP/2.0", "HTTP/0.9", "HTTP/1.10", "http/1.1", "HTTP/", ""),
  printable(10)
)
const host = fc.oneof(
  { arbitrary: fc.constantFrom(undefined, "127.0.0.1"), weight: 6 },
  fc.constantFrom("", "127.0.0.1", "a b", "[::1", "x".repeat(300)),
  printable(40)
)
const extraHeaders = fc.array(
  fc.oneof(
    { arbitrary: fc.tuple(token, printable(40)).map(([k, v]) => `${k}: ${v}`), weight: 8 },
    fc.constantFrom("Connection: close", "Connection: keep-alive", "Transfer-Encoding: chunked", "Content-Length: 5", "Content-Length: -1",
      "Content-Length: abc", "Authorization: Bearer nope", "X-Request-Id: ../../x", "Expect: 100-continue"),
    printable(40)
  ),
  { maxLength: 4 }
)

describe("hostile requests on the wire never break the server", () => {
  test("well-formed request lines with and without Host, any version, any target", async () => {
    let ours = 0
    await fc.assert(
      fc.asyncProperty(method, target, version, host, extraHeaders, async (m, t, v, h, hs) => {
        const lines = [`${m} ${t} ${v}`, ...(h === undefined ? [] : [`Host: ${h}`]), ...hs]
        if (check(await rawRequest(port, `${lines.join("\r\n")}\r\n\r\n`)).headers.has("x-request-id")) ours++
      }),
      { numRuns: 300 }
    )
    // The property must reach the pipeline, not only the parser's refusals.
    expect(ours).toBeGreaterThan(75)
    await stillServes()
  }, 60_000)

  test("garbage request lines and raw bytes", async () => {
    const garbage = fc.oneof(
      anyBytes.map((s) => `${s}\r\n\r\n`),
      fc.tuple(printable(80), anyBytes).map(([a, b]) => `${a}\r\n${b}\r\n\r\n`),
      fc.constantFrom("\r\n\r\n", "GET\r\n\r\n", "GET /\r\n\r\n", "GET / HTTP/1.1 extra\r\n\r\n", " GET / HTTP/1.0\r\n\r\n",
        "GET  /healthz  HTTP/1.0\r\n\r\n", "GET /healthz HTTP/1.0\n\n", "GET /healthz HTTP/1.0\r\nHost\r\n\r\n",
        "GET /healthz HTTP/1.0\r\n: x\r\n\r\n", `GET /${"a".repeat(20_000)} HTTP/1.0\r\n\r\n`, "\u0000\u0000\u0000\u0000")
    )
    await fc.assert(
      fc.asyncProperty(garbage, async (g) => {
        check(await rawRequest(port, Buffer.from(g, "latin1")))
      }),
      { numRuns: 300 }
    )
    await stillServes()
  }, 60_000)

  test("after each hostile request, a normal request on a new connection is answered", async () => {
    await fc.assert(
      fc.asyncProperty(method, target, version, host, async (m, t, v, h) => {
        check(await rawRequest(port, `${m} ${t} ${v}\r\n${h === undefined ? "" : `Host: ${h}\r\n`}\r\n`))
        const r = check(await rawRequest(port, "GET /readyz HTTP/1.0\r\n\r\n"))
        expect(r.status).toBe(200)
      }),
      { numRuns: 100 }
    )
  }, 60_000)
})
