import { describe, expect, test } from "bun:test"
import { Either } from "effect"
import {
  AUTO_DISABLE_AFTER_MS,
  DEFAULT_RETRY_SCHEDULE,
  nextAttemptAt,
  parseDuration,
  parseRetryAfter,
  parseRetrySchedule,
  parseTimeout,
  shouldAutoDisable
} from "../../lib/webhooks/schedule.js"

const S = 1000
const M = 60 * S
const H = 60 * M
const t0 = Date.parse("2026-03-01T12:00:00Z")
const errorOf = <A>(e: Either.Either<A, { readonly message: string }>) => (Either.isLeft(e) ? e.left.message : "parsed")

describe("durations and schedules", () => {
  test("the default schedule: ten attempts, immediately, then 5 s … 24 h", () => {
    expect(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)).toEqual(
      Either.right([0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H])
    )
  })

  test("0s,1s,1s is three attempts; spaces and ms are accepted", () => {
    expect(parseRetrySchedule("0s,1s,1s")).toEqual(Either.right([0, S, S]))
    expect(parseRetrySchedule(" 0s , 250ms ,1d")).toEqual(Either.right([0, 250, 24 * H]))
  })

  test("bad input is refused with the entry that is wrong", () => {
    expect(errorOf(parseRetrySchedule(""))).toBe('"": must list at least one delay')
    expect(errorOf(parseRetrySchedule("0s,5x"))).toBe(
      '"0s,5x": entry 2 ("5x") must be a whole number followed by a unit: ms, s, m, h or d (for example 5s, 30m, 2h)'
    )
    expect(errorOf(parseRetrySchedule("0s,,5s"))).toBe('"0s,,5s": entry 2 is empty')
    expect(errorOf(parseRetrySchedule("1.5s"))).toContain("entry 1")
    expect(errorOf(parseRetrySchedule("-1s"))).toContain("entry 1")
    expect(errorOf(parseRetrySchedule("31d"))).toContain("must be at most 30d")
    expect(errorOf(parseRetrySchedule(Array(51).fill("1s").join(",")))).toContain("at most 50 delays")
  })

  test("single durations and the timeout's bounds", () => {
    expect(parseDuration("15s")).toEqual(Either.right(15 * S))
    expect(parseDuration("2h")).toEqual(Either.right(2 * H))
    expect(errorOf(parseDuration("15"))).toContain("must be a whole number followed by a unit")
    expect(parseTimeout("15s")).toEqual(Either.right(15 * S))
    expect(errorOf(parseTimeout("0s"))).toBe('"0s": must be more than 0 and at most 10m')
    expect(errorOf(parseTimeout("11m"))).toBe('"11m": must be more than 0 and at most 10m')
  })
})

describe("nextAttemptAt", () => {
  const schedule = [0, 5 * S, 5 * M]

  test("the delay before each attempt, the first included, then none", () => {
    expect(nextAttemptAt(0, t0, schedule, 0)).toBe(t0)
    expect(nextAttemptAt(1, t0, schedule, 0)).toBe(t0 + 5 * S)
    expect(nextAttemptAt(2, t0, schedule, 0)).toBe(t0 + 5 * M)
    expect(nextAttemptAt(3, t0, schedule, 0)).toBeUndefined()
  })

  test("jitter adds up to 10 % of the delay, never less than the delay, nothing to a 0 s delay", () => {
    expect(nextAttemptAt(0, t0, schedule, 0.99)).toBe(t0)
    expect(nextAttemptAt(2, t0, schedule, 0.5)).toBe(t0 + 5 * M + 15 * S)
    const most = nextAttemptAt(2, t0, schedule, 0.999999) ?? 0
    expect(most).toBeLessThanOrEqual(t0 + 5 * M + 30 * S)
    expect(most).toBeGreaterThan(t0 + 5 * M + 29 * S)
    expect(nextAttemptAt(2, t0, schedule, -3)).toBe(t0 + 5 * M)
    expect(nextAttemptAt(2, t0, schedule, Number.NaN)).toBe(t0 + 5 * M)
  })

  test("Retry-After pushes the attempt out, never pulls it in", () => {
    expect(nextAttemptAt(1, t0, schedule, 0, 60 * S)).toBe(t0 + 60 * S)
    expect(nextAttemptAt(1, t0, schedule, 0, 1 * S)).toBe(t0 + 5 * S)
    expect(nextAttemptAt(3, t0, schedule, 0, 1 * S)).toBeUndefined()
  })

  test("a Retry-After beyond 5 days ends the delivery instead of parking it", () => {
    expect(nextAttemptAt(1, t0, schedule, 0, AUTO_DISABLE_AFTER_MS)).toBe(t0 + AUTO_DISABLE_AFTER_MS)
    expect(nextAttemptAt(1, t0, schedule, 0, AUTO_DISABLE_AFTER_MS + 1)).toBeUndefined()
  })
})

describe("Retry-After values", () => {
  test("delta-seconds", () => {
    expect(parseRetryAfter("120", t0)).toBe(120 * S)
    expect(parseRetryAfter(" 0 ", t0)).toBe(0)
  })

  test("an HTTP date, relative to now; a past date is 0", () => {
    expect(parseRetryAfter(new Date(t0 + 90 * S).toUTCString(), t0)).toBe(90 * S)
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", t0)).toBe(0)
  })

  test("absent or unreadable values are ignored", () => {
    expect(parseRetryAfter(undefined, t0)).toBeUndefined()
    expect(parseRetryAfter(null, t0)).toBeUndefined()
    expect(parseRetryAfter("-5", t0)).toBeUndefined()
    expect(parseRetryAfter("1.5", t0)).toBeUndefined()
    expect(parseRetryAfter("soon", t0)).toBeUndefined()
  })
})

describe("the 5-day auto-disable rule", () => {
  test("true only after 5 days of failures without a success", () => {
    const since = new Date(t0).toISOString()
    expect(shouldAutoDisable(null, t0 + 10 * AUTO_DISABLE_AFTER_MS)).toBe(false)
    expect(shouldAutoDisable(since, t0 + AUTO_DISABLE_AFTER_MS - 1)).toBe(false)
    expect(shouldAutoDisable(since, t0 + AUTO_DISABLE_AFTER_MS)).toBe(true)
    expect(shouldAutoDisable("garbage", t0)).toBe(false)
  })
})
