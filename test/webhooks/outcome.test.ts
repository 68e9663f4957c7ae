import { describe, expect, test } from "bun:test"
import { FAILING_REASON, GONE_REASON, type OutcomeInput, settleAttempt } from "../../lib/webhooks/outcome.js"
import { AUTO_DISABLE_AFTER_MS } from "../../lib/webhooks/schedule.js"

const t0 = Date.parse("2026-03-01T12:00:00Z")
const iso = (ms: number) => new Date(ms).toISOString()
const base: OutcomeInput = {
  delivery: { attempts: 0 },
  endpoint: { failing_since: null },
  result: { ok: true, status: 204, gone: false },
  nowMs: t0,
  schedule: [0, 1000, 1000],
  jitter: 0
}

describe("settling an attempt", () => {
  test("a success settles the delivery and clears the endpoint's failure clock", () => {
    const out = settleAttempt({ ...base, endpoint: { failing_since: iso(t0 - 1000) } })
    expect(out).toEqual({
      delivery: {
        status: "succeeded",
        attempts: 1,
        last_attempt_at: iso(t0),
        last_response_status: 204,
        last_error: null,
        next_attempt_at: null
      },
      endpoint: { failing_since: null }
    })
  })

  test("a failure with attempts left stays pending for the next slot and starts the failure clock", () => {
    const out = settleAttempt({ ...base, result: { ok: false, status: 500, error: "HTTP 500", gone: false } })
    expect(out.delivery).toMatchObject({ status: "pending", attempts: 1, last_error: "HTTP 500", next_attempt_at: iso(t0 + 1000) })
    expect(out.endpoint.failing_since).toBe(iso(t0))
    expect(out.disable).toBeUndefined()
  })

  test("the last scheduled attempt failing fails the delivery; the clock keeps its start", () => {
    const out = settleAttempt({
      ...base,
      delivery: { attempts: 2 },
      endpoint: { failing_since: iso(t0 - 5000) },
      result: { ok: false, error: "timed out after 15000 ms", gone: false }
    })
    expect(out.delivery).toMatchObject({ status: "failed", attempts: 3, next_attempt_at: null, last_response_status: null })
    expect(out.endpoint.failing_since).toBe(iso(t0 - 5000))
  })

  test("a Retry-After on 429 sets the next attempt no earlier than asked", () => {
    const out = settleAttempt({ ...base, result: { ok: false, status: 429, retryAfterMs: 30_000, gone: false } })
    expect(out.delivery.next_attempt_at).toBe(iso(t0 + 30_000))
  })

  test("410 disables the endpoint at once", () => {
    const out = settleAttempt({ ...base, result: { ok: false, status: 410, error: "HTTP 410", gone: true } })
    expect(out.disable).toBe(GONE_REASON)
  })

  test("5 days of failures disable the endpoint", () => {
    const failing = { ...base, result: { ok: false, status: 500, gone: false } }
    expect(settleAttempt({ ...failing, endpoint: { failing_since: iso(t0 - AUTO_DISABLE_AFTER_MS + 1) } }).disable).toBeUndefined()
    expect(settleAttempt({ ...failing, endpoint: { failing_since: iso(t0 - AUTO_DISABLE_AFTER_MS) } }).disable).toBe(FAILING_REASON)
  })
})
