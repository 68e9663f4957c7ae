import type { WebhookDelivery, WebhookEndpoint } from "../domain/webhook.js"
import type { AttemptResult } from "./attempt.js"
import { nextAttemptAt, type RetrySchedule, shouldAutoDisable } from "./schedule.js"

/**
 * What one attempt changes: the delivery's state, the endpoint's failure clock, and whether the
 * endpoint is disabled. Pure, so every adapter and the worker apply the same decision.
 */

export const GONE_REASON = "The endpoint answered 410 Gone"
export const FAILING_REASON = "Every attempt failed for 5 days"

export interface OutcomeInput {
  readonly delivery: Pick<WebhookDelivery, "attempts">
  readonly endpoint: Pick<WebhookEndpoint, "failing_since">
  readonly result: Pick<AttemptResult, "ok" | "status" | "error" | "retryAfterMs" | "gone">
  readonly nowMs: number
  readonly schedule: RetrySchedule
  /** A fraction in [0, 1): the worker passes `Math.random()`. */
  readonly jitter: number
}

export interface Outcome {
  readonly delivery: Pick<
    WebhookDelivery,
    "status" | "attempts" | "last_attempt_at" | "last_response_status" | "last_error" | "next_attempt_at"
  >
  readonly endpoint: Pick<WebhookEndpoint, "failing_since">
  /** Set when the endpoint must be disabled now: the `disabled_reason` to record. */
  readonly disable?: string
}

export const settleAttempt = ({ delivery, endpoint, result, nowMs, schedule, jitter }: OutcomeInput): Outcome => {
  const now = new Date(nowMs).toISOString()
  const attempts = delivery.attempts + 1
  const last = { attempts, last_attempt_at: now, last_response_status: result.status ?? null }
  if (result.ok) {
    return {
      delivery: { ...last, status: "succeeded", last_error: null, next_attempt_at: null },
      endpoint: { failing_since: null }
    }
  }
  // Beyond the schedule (a manual retry of a failed delivery, say) this is undefined: failed again.
  const next = nextAttemptAt(attempts, nowMs, schedule, jitter, result.retryAfterMs)
  const failingSince = endpoint.failing_since ?? now
  const disable = result.gone ? GONE_REASON : shouldAutoDisable(failingSince, nowMs) ? FAILING_REASON : undefined
  return {
    delivery: {
      ...last,
      status: next === undefined ? "failed" : "pending",
      last_error: result.error ?? "failed",
      next_attempt_at: next === undefined ? null : new Date(next).toISOString()
    },
    endpoint: { failing_since: failingSince },
    ...(disable !== undefined ? { disable } : {})
  }
}
