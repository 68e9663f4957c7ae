import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Webhook } from "standardwebhooks"
import { parseRetrySchedule } from "../../lib/webhooks/schedule.js"
import { api, type Answer, expectProblem, sleep, uniqueId } from "../http/client.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Received, startReceiver } from "./receiver.js"

/**
 * Delivery end to end, in process: the API and the delivery worker, a receiver on loopback that
 * verifies every message with `standardwebhooks`, and a short schedule (three attempts: at once,
 * 200 ms and 200 ms later) with a 500 ms timeout.
 */

const schedule = parseRetrySchedule("0s,200ms,200ms")
if (schedule._tag === "Left") throw schedule.left

let server: TestServer
let secret = ""
const receiver = startReceiver(() => secret)
let call: ReturnType<typeof api>

beforeAll(async () => {
  server = await startTestServer({
    webhooks: { allowPrivate: true, schedule: schedule.right, timeoutMs: 500 },
    worker: { pollMs: 50 }
  })
  call = api(server)
})
afterAll(async () => {
  await server.close()
  receiver.stop()
})

const hooks = (method: string, path: string, body?: unknown) => call(method, path, { key: server.keys.aHooks, ...(body !== undefined ? { body } : {}) })

/** Polls until `check` holds (5 s at most), answering its last value. */
const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean, what: string): Promise<A> => {
  const until = Date.now() + 5000
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > until) throw new Error(`not within 5 s: ${what}; last: ${JSON.stringify(value)}`)
    await sleep(25)
  }
}

const register = async (path: string, body: Record<string, unknown> = {}): Promise<Answer> => {
  const r = await hooks("POST", "/api/webhooks/endpoints", { url: receiver.url(path), ...body })
  expect(r.status).toBe(201)
  return r
}
const createEncounter = async () => {
  const r = await call("POST", "/api/encounters", { body: validPayload(uniqueId("hook")) })
  expect(r.status).toBe(202)
  return r.body.encounter_id as string
}
const deliveries = async (endpointId: string, query = "") => (await hooks("GET", `/api/webhooks/endpoints/${endpointId}/deliveries${query}`)).body.items
const at = (path: string) => receiver.received.filter((r) => r.path === path)

/** Verifies with an independent implementation; throws when the signature does not match. */
const verify = (m: Received, key: string) => new Webhook(key).verify(m.body, m.headers)

describe("delivery", () => {
  test("an event is POSTed signed, with the feed's exact body; a success is logged on the delivery", async () => {
    const endpoint = await register("/ok-1")
    secret = endpoint.body.secret
    const encounterId = await createEncounter()
    const [message] = await eventually(async () => at("/ok-1"), (m) => m.length === 1, "one message")
    expect(message!.verified).toEqual({ ok: true, payload: expect.anything() })
    expect(message!.headers["content-type"]).toBe("application/json")
    expect(message!.headers["user-agent"]).toMatch(/^encounterd\/\d+\.\d+\.\d+/)
    const eventId = message!.headers["webhook-id"]!
    const polled = await call("GET", `/api/encounters/compat-version/events/${eventId}`)
    expect(message!.body).toBe(polled.text)
    expect(JSON.parse(message!.body).payload.encounter_id).toBe(encounterId)
    const [d] = await eventually(() => deliveries(endpoint.body.id), (ds) => ds[0]?.status === "succeeded", "succeeded")
    expect(d).toMatchObject({ event_id: eventId, attempts: 1, last_response_status: 200, last_error: null, next_attempt_at: null })
  })

  test("500s are retried on the schedule, then the delivery fails; each attempt is counted; retry makes one more", async () => {
    const endpoint = await register("/fail")
    secret = endpoint.body.secret
    const began = Date.now()
    await createEncounter()
    const [d] = await eventually(() => deliveries(endpoint.body.id), (ds) => ds[0]?.status === "failed", "failed")
    // Two waits of 200 ms (and their jitter) lie between the first attempt and the last.
    expect(Date.now() - began).toBeGreaterThanOrEqual(400)
    expect(d).toMatchObject({ attempts: 3, last_response_status: 500, last_error: "HTTP 500", next_attempt_at: null })
    const seen = at("/fail").filter((m) => m.headers["webhook-id"] === d.event_id)
    expect(seen.length).toBe(3)
    for (const m of seen) expect(m.verified.ok).toBe(true)
    expect((await hooks("GET", `/api/webhooks/endpoints/${endpoint.body.id}/deliveries?status=failed`)).body.items.length).toBe(1)

    const retried = await hooks("POST", `/api/webhooks/deliveries/${d.id}/retry`)
    expect(retried.status).toBe(202)
    const [again] = await eventually(() => deliveries(endpoint.body.id), (ds) => ds[0]?.attempts === 4, "a fourth attempt")
    expect(again.status).toBe("failed")
    expect(at("/fail").filter((m) => m.headers["webhook-id"] === d.event_id).length).toBe(4)
  })

  test("an attempt that outlasts the timeout fails and is retried", async () => {
    const endpoint = await register("/slow")
    secret = endpoint.body.secret
    await createEncounter()
    const [d] = await eventually(() => deliveries(endpoint.body.id), (ds) => ds[0]?.status === "failed", "failed after timeouts")
    expect(d.attempts).toBe(3)
    expect(d.last_error).toMatch(/timed out/)
    expect(d.last_response_status).toBeNull()
  }, 15_000)

  test("410 Gone disables the endpoint at once, with the reason visible", async () => {
    const endpoint = await register("/gone")
    secret = endpoint.body.secret
    await createEncounter()
    const read = await eventually(() => hooks("GET", `/api/webhooks/endpoints/${endpoint.body.id}`), (r) => r.body.status === "disabled", "disabled")
    expect(read.body.disabled_reason).toMatch(/410/)
    const [d] = await deliveries(endpoint.body.id)
    expect(d).toMatchObject({ status: "pending", attempts: 1, last_response_status: 410 })
    // Enabling again clears the reason.
    const enabled = await hooks("PATCH", `/api/webhooks/endpoints/${endpoint.body.id}`, { status: "enabled", url: receiver.url("/ok-gone") })
    expect([enabled.body.status, enabled.body.disabled_reason]).toEqual(["enabled", null])
  })

  test("during a rotation every message verifies with the new and with the old secret", async () => {
    const endpoint = await register("/ok-rotate", { event_types: ["ExternalApi.Encounter.Created"] })
    const old = endpoint.body.secret
    const rotated = await hooks("POST", `/api/webhooks/endpoints/${endpoint.body.id}/rotate-secret`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(rotated.body.secret).not.toBe(old)
    secret = rotated.body.secret
    await createEncounter()
    const [m] = await eventually(async () => at("/ok-rotate"), (ms) => ms.length === 1, "one message")
    expect(m!.headers["webhook-signature"]!.split(" ").length).toBe(2)
    expect(verify(m!, rotated.body.secret)).toBeDefined()
    expect(verify(m!, old)).toBeDefined()
    expect(() => verify(m!, "whsec_" + Buffer.alloc(32, 7).toString("base64"))).toThrow()
  })

  test("recover queues every matching event since a time again", async () => {
    const since = new Date().toISOString()
    await createEncounter()
    await createEncounter()
    const endpoint = await register("/ok-recover")
    secret = endpoint.body.secret
    const recovered = await hooks("POST", `/api/webhooks/endpoints/${endpoint.body.id}/recover`, { since })
    expect(recovered.status).toBe(202)
    expect(recovered.body.queued).toBeGreaterThanOrEqual(2)
    await eventually(async () => at("/ok-recover"), (ms) => ms.length === recovered.body.queued, "recovered deliveries")
    expect(at("/ok-recover").every((m) => m.verified.ok)).toBe(true)
    const bad = await hooks("POST", `/api/webhooks/endpoints/${endpoint.body.id}/recover`, { since: "last week" })
    expectProblem(bad, 422, "validation_failed")
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(["since"])
  })
})

describe("isolation between endpoints", () => {
  test("a slow endpoint's backlog does not hold back another endpoint's deliveries", async () => {
    const slow = await register("/slow", { event_types: ["ExternalApi.Encounter.StatusUpdated", "ExternalApi.Encounter.Created"] })
    const fast = await register("/ok-fast")
    secret = fast.body.secret
    for (let i = 0; i < 8; i++) await createEncounter()
    // Each slow attempt takes the whole 500 ms timeout, two at a time: 8 deliveries x 3 attempts
    // keep it busy for seconds, while the fast endpoint receives all of its deliveries.
    await eventually(() => deliveries(fast.body.id), (ds) => ds.length >= 8 && ds.every((d: { status: string }) => d.status === "succeeded"), "fast delivered")
    const backlog = await deliveries(slow.body.id, "?status=pending")
    expect(backlog.length).toBeGreaterThan(0)
  }, 15_000)
})

describe("targets", () => {
  test("a private address is refused without --webhook-allow-private and accepted with it", async () => {
    const strict = await startTestServer()
    try {
      for (const url of ["http://127.0.0.1:9/x", "http://10.1.2.3/x", "http://[::1]/x", "http://localhost:9/x", "http://169.254.169.254/latest"]) {
        const r = await api(strict)("POST", "/api/webhooks/endpoints", { key: strict.keys.aHooks, body: { url } })
        expectProblem(r, 422, "validation_failed")
        expect(r.body.errors.map((e: { path: string }) => e.path)).toEqual(["url"])
      }
    } finally {
      await strict.close()
    }
    const r = await hooks("POST", "/api/webhooks/endpoints", { url: "http://localhost:9/x" })
    expect(r.status).toBe(201)
  })
})
