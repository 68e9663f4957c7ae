import { Effect, Either, Option } from "effect"
import { commit } from "../rules/commit.js"
import type { StorageError } from "../domain/errors.js"
import type { WebhookDeliveryRecord, WebhookEndpoint } from "../domain/webhook.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { update, type Update } from "../ports/write.js"
import { attemptDelivery } from "./attempt.js"
import { webhookMessage } from "./message.js"
import { settleAttempt } from "./outcome.js"
import { openSecrets, signingSecrets } from "./rotation.js"
import type { SecretBoxKey } from "./secret-box.js"
import { WebhookSettings } from "./settings.js"

/** A lease outlives the attempt it covers by this much; a holder that died frees it after that. */
export const LEASE_MARGIN_MS = 5_000

/**
 * What became of one due delivery, for the worker's counts: claimed by another worker, ended
 * without an attempt (its endpoint, event or secret is gone), or the attempt's outcome.
 */
export type DeliveryRun = "claimed-elsewhere" | "abandoned" | "succeeded" | "retrying" | "failed"

const released = { lease_owner: null, lease_expires_at: null } as const

/** Ends a delivery without an attempt (its endpoint, event or secret is gone). */
const abandon = (d: WebhookDeliveryRecord, owner: string, reason: string, now: string): Update<"webhook_deliveries", never> =>
  update("webhook_deliveries", d.id, { lease_owner: owner }, { status: "failed", next_attempt_at: null, last_error: reason, last_attempt_at: now, ...released })

/**
 * Claims a due delivery (compare-and-set on the lease and attempt count read, so of several
 * workers, on one instance or many, one wins), attempts it, and records the outcome: the
 * delivery's next state, the endpoint's failure clock, and a disable (410, or 5 days failing).
 */
export const deliverOne = (
  d: WebhookDeliveryRecord,
  owner: string,
  key: SecretBoxKey
): Effect.Effect<DeliveryRun, StorageError, Storage | Clock | Ids | WebhookSettings> =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    const settings = yield* WebhookSettings
    const claimedAt = clock.now()
    const claim = yield* commit({
      operation: "claimWebhookDelivery",
      steps: [
        update(
          "webhook_deliveries",
          d.id,
          { status: "pending", attempts: d.attempts, lease_owner: d.lease_owner, lease_expires_at: d.lease_expires_at },
          { lease_owner: owner, lease_expires_at: isoTime(claimedAt + settings.timeoutMs + LEASE_MARGIN_MS) },
          "taken"
        )
      ]
    })
    if (claim._tag === "Refused") return "claimed-elsewhere"
    // Stopped mid-attempt (a shutdown): the lease is given back, so the delivery is due at once
    // on the next start rather than when the lease would expire.
    const release = commit({
      operation: "releaseWebhookDelivery",
      steps: [update("webhook_deliveries", d.id, { lease_owner: owner }, released)]
    })
    return yield* attemptClaimed(d, owner, key, claimedAt).pipe(Effect.onInterrupt(() => Effect.ignore(release)))
  })

const attemptClaimed = (
  d: WebhookDeliveryRecord,
  owner: string,
  key: SecretBoxKey,
  claimedAt: number
): Effect.Effect<DeliveryRun, StorageError, Storage | Clock | Ids | WebhookSettings> =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    const settings = yield* WebhookSettings
    const now = isoTime(claimedAt)
    const fail = (reason: string) =>
      Effect.as(commit({ operation: "settleWebhookDelivery", steps: [abandon(d, owner, reason, now)] }), "abandoned" as const)

    const endpoint = yield* storage.get("webhook_endpoints", d.workspace_id, d.endpoint_id)
    if (Option.isNone(endpoint)) return yield* fail("The endpoint was deleted")
    if (endpoint.value.status !== "enabled") return yield* fail("The endpoint is disabled")
    const event = yield* storage.findEvent(d.workspace_id, d.event_id)
    if (Option.isNone(event)) return yield* fail("The event no longer exists")
    const secrets = openSecrets(endpoint.value.id, signingSecrets(endpoint.value, claimedAt), key)
    if (Either.isLeft(secrets)) return yield* fail(`The signing secret cannot be opened: ${secrets.left.reason}`)

    const message = webhookMessage(event.value)
    const result = yield* attemptDelivery(
      { url: endpoint.value.url, messageId: message.id, body: message.body, secrets: secrets.right, nowMs: clock.now() },
      {
        version: settings.version,
        timeoutMs: settings.timeoutMs,
        allowPrivate: settings.allowPrivate,
        ...(settings.resolve !== undefined ? { resolve: settings.resolve } : {})
      }
    )
    const settledMs = clock.now()
    const outcome = settleAttempt({
      delivery: d,
      endpoint: endpoint.value,
      result,
      nowMs: settledMs,
      schedule: settings.schedule,
      jitter: Math.random()
    })
    yield* commit({
      operation: "settleWebhookDelivery",
      steps: [
        update("webhook_deliveries", d.id, { lease_owner: owner }, { ...outcome.delivery, ...released }),
        ...endpointChanges(endpoint.value, outcome.endpoint.failing_since, outcome.disable, isoTime(settledMs))
      ]
    })
    return outcome.delivery.status === "succeeded" ? "succeeded" : outcome.delivery.status === "failed" ? "failed" : "retrying"
  })

/** The endpoint's failure clock when it moved, and its disabling (only while still enabled). */
const endpointChanges = (
  e: WebhookEndpoint,
  failingSince: string | null,
  disable: string | undefined,
  now: string
): ReadonlyArray<Update<"webhook_endpoints", never>> => [
  ...(failingSince !== e.failing_since
    ? [update("webhook_endpoints", e.id, { workspace_id: e.workspace_id }, { failing_since: failingSince })]
    : []),
  ...(disable !== undefined
    ? [
        update(
          "webhook_endpoints",
          e.id,
          { workspace_id: e.workspace_id, status: "enabled" },
          { status: "disabled", disabled_reason: disable, updated_at: now }
        )
      ]
    : [])
]
