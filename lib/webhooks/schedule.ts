import { Data, Either } from "effect"

/**
 * When attempts happen. A schedule lists the delay before each attempt, the first included:
 * `0s,1s,1s` is three attempts, at once, one second later and one second after that.
 */

export const DEFAULT_RETRY_SCHEDULE = "0s,5s,5m,30m,2h,5h,10h,14h,20h,24h"
export const DEFAULT_TIMEOUT = "15s"

/** Delays in milliseconds, one per attempt. */
export type RetrySchedule = ReadonlyArray<number>

export class InvalidDuration extends Data.TaggedError("InvalidDuration")<{ readonly input: string; readonly reason: string }> {
  override get message() {
    return `${JSON.stringify(this.input)}: ${this.reason}`
  }
}

const MINUTE = 60_000
const DAY = 86_400_000
const UNIT_MS: ReadonlyMap<string, number> = new Map([["ms", 1], ["s", 1000], ["m", MINUTE], ["h", 60 * MINUTE], ["d", DAY]])
const DURATION = /^(\d{1,9})(ms|s|m|h|d)$/
const MAX_DELAY_MS = 30 * DAY
const MAX_ATTEMPTS = 50

const durationProblem = (text: string): string | number => {
  const m = DURATION.exec(text)
  const unit = UNIT_MS.get(m?.[2] ?? "")
  if (m === null || unit === undefined) {
    return "must be a whole number followed by a unit: ms, s, m, h or d (for example 5s, 30m, 2h)"
  }
  const ms = Number(m[1]) * unit
  return ms > MAX_DELAY_MS ? "must be at most 30d" : ms
}

/** `250ms`, `5s`, `30m`, `2h`, `1d` → milliseconds. */
export const parseDuration = (text: string): Either.Either<number, InvalidDuration> => {
  const out = durationProblem(text.trim())
  return typeof out === "number" ? Either.right(out) : Either.left(new InvalidDuration({ input: text, reason: out }))
}

/** `--webhook-timeout`: more than zero, at most 10 minutes (the whole attempt). */
export const parseTimeout = (text: string): Either.Either<number, InvalidDuration> =>
  Either.flatMap(parseDuration(text), (ms) =>
    ms > 0 && ms <= 10 * MINUTE
      ? Either.right(ms)
      : Either.left(new InvalidDuration({ input: text, reason: "must be more than 0 and at most 10m" }))
  )

/** `--webhook-retry-schedule`: comma-separated durations, 1 to 50 of them. */
export const parseRetrySchedule = (text: string): Either.Either<RetrySchedule, InvalidDuration> => {
  const entries = text.split(",").map((e) => e.trim())
  if (text.trim() === "") return Either.left(new InvalidDuration({ input: text, reason: "must list at least one delay" }))
  if (entries.length > MAX_ATTEMPTS) {
    return Either.left(new InvalidDuration({ input: text, reason: `must list at most ${MAX_ATTEMPTS} delays` }))
  }
  const delays: Array<number> = []
  for (const [i, entry] of entries.entries()) {
    const out = durationProblem(entry)
    if (typeof out === "string") {
      const shown = entry === "" ? "is empty" : `(${JSON.stringify(entry)}) ${out}`
      return Either.left(new InvalidDuration({ input: text, reason: `entry ${i + 1} ${shown}` }))
    }
    delays.push(out)
  }
  return Either.right(delays)
}

/** An endpoint whose attempts have all failed for this long is disabled. */
export const AUTO_DISABLE_AFTER_MS = 5 * DAY

/** Jitter spreads retries of many deliveries that failed together: up to this share of the delay. */
export const JITTER_SHARE = 0.1

/**
 * When the next attempt is due, in epoch milliseconds, after `attemptsMade` attempts (0 before the
 * first); undefined when the schedule has no attempt left, so the delivery is failed.
 *
 * `jitter` is a fraction in [0, 1) (the worker passes `Math.random()`); it adds up to 10 % of the
 * delay and never shortens it. `retryAfterMs` (from a 429/503 `Retry-After`) makes the attempt come
 * no earlier than asked; a wait beyond the auto-disable horizon (5 days) ends the delivery instead
 * of parking it for longer.
 */
export const nextAttemptAt = (
  attemptsMade: number,
  nowMs: number,
  schedule: RetrySchedule,
  jitter: number,
  retryAfterMs?: number
): number | undefined => {
  const delay = schedule[attemptsMade]
  if (delay === undefined) return undefined
  const share = Number.isFinite(jitter) ? Math.min(Math.max(jitter, 0), 1) : 0
  const scheduled = nowMs + delay + Math.floor(delay * JITTER_SHARE * share)
  if (retryAfterMs === undefined) return scheduled
  if (retryAfterMs > AUTO_DISABLE_AFTER_MS) return undefined
  return Math.max(scheduled, nowMs + Math.max(0, retryAfterMs))
}

/**
 * A `Retry-After` value as a delay in milliseconds: delta-seconds or an HTTP date (a date in the
 * past is 0). Undefined when absent or unreadable.
 */
export const parseRetryAfter = (value: string | null | undefined, nowMs: number): number | undefined => {
  if (value === null || value === undefined) return undefined
  const v = value.trim()
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000
  // HTTP dates always name a day or month; a bare or signed number is not one.
  if (!/[A-Za-z]/.test(v)) return undefined
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs)
}

/** The 5-day rule: true when attempts have failed without a success since `failingSince` for 5 days. */
export const shouldAutoDisable = (failingSince: string | null, nowMs: number): boolean => {
  if (failingSince === null) return false
  const since = Date.parse(failingSince)
  return !Number.isNaN(since) && nowMs - since >= AUTO_DISABLE_AFTER_MS
}
