import { Effect, Either, Option } from "effect"
import { commit } from "./commit.js"
import { FieldIssue, InvalidQuery } from "../domain/errors.js"
import { isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, encodeToken, timeBound, toPage, tokenScope } from "../domain/page.js"
import {
  toWebhookDeliveryRecordView,
  type WebhookDeliveryRecord,
  WebhookDeliveryStatuses,
  type WebhookDeliveryView
} from "../domain/webhook.js"
import { InvalidWebhookInput, WebhookDeliveryNotFound } from "../domain/webhook-errors.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { update } from "../ports/write.js"
import { notifyDeliveries } from "../webhooks/signal.js"
import { findEndpoint } from "./webhook-endpoints.js"
import { redeliveries } from "./webhook-outbox.js"


export interface DeliveryListQuery {
  readonly status?: string | undefined
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/** An endpoint's delivery log, newest first, filtered by status, keyset-paged both ways. */
export const listWebhookDeliveries = (ws: WorkspaceId, endpointId: string, query: DeliveryListQuery = {}) =>
  Effect.gen(function* () {
    const endpoint = yield* findEndpoint(ws, endpointId)
    const limit = yield* checkLimit(query.limit)
    const status = query.status
    const valid = status === undefined ? undefined : WebhookDeliveryStatuses.find((s) => s === status)
    if (status !== undefined && valid === undefined) {
      return yield* new InvalidQuery({ errors: [new FieldIssue({ path: "status", message: `must be one of: ${WebhookDeliveryStatuses.join(", ")}` })] })
    }
    const scope = tokenScope([ws, "webhook-deliveries", endpoint.id, valid ?? null])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const rows = yield* (yield* Storage).page("webhook_deliveries", ws, { where: { endpoint_id: endpoint.id, status: valid }, position, limit })
    return toPage(rows, limit, position, (d) => [d.created_at, d.id], scope, toWebhookDeliveryRecordView)
  })

export const findDelivery = (ws: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    if (!isUuid(id)) return yield* new WebhookDeliveryNotFound({ id })
    const found = yield* (yield* Storage).get("webhook_deliveries", ws, id)
    if (Option.isNone(found)) return yield* new WebhookDeliveryNotFound({ id })
    return found.value
  })

/**
 * One more attempt now, also for a failed delivery (which fails again at once if that attempt
 * fails too: its schedule is spent). A delivery being attempted right now keeps its lease; the
 * attempt's own result then decides what comes next.
 */
export const retryWebhookDelivery = (ws: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    for (;;) {
      const delivery = yield* findDelivery(ws, id)
      const set: Partial<WebhookDeliveryRecord> = { status: "pending", next_attempt_at: isoTime(clock.now()) }
      const result = yield* commit({
        operation: "retryWebhookDelivery",
        steps: [
          update("webhook_deliveries", delivery.id, { workspace_id: ws, status: delivery.status, attempts: delivery.attempts }, set, "stale")
        ]
      })
      if (result._tag === "Written") {
        yield* notifyDeliveries
        return toWebhookDeliveryRecordView({ ...delivery, ...set }) satisfies WebhookDeliveryView
      }
    }
  })

const RECOVER_BATCH = 100

/** Deliveries one recover call queues at most; the answer tells where the next call goes on. */
export const RECOVER_LIMIT = 1000
/**
 * Recovered deliveries to one endpoint fall due this far apart (20 a second), behind what the
 * endpoint already has pending: a recover never puts a backlog ahead of live events.
 */
export const RECOVER_PACE_MS = 50

/**
 * A recover's answer: how many deliveries it queued and, when it stopped at its limit, the
 * `page_token` of the next call (with the same `since`).
 */
export interface WebhookRecovery {
  readonly queued: number
  readonly more: boolean
  readonly next_page_token: string | null
}

const invalidInput = (path: string, message: string) => new InvalidWebhookInput({ errors: [new FieldIssue({ path, message })] })

/** The body's `page_token`: the feed position (an event's `seq`) the previous call stopped after. */
const recoverPosition = (body: object, scope: string): Either.Either<number | undefined, InvalidWebhookInput> => {
  const token = "page_token" in body ? body.page_token : undefined
  if (token === undefined || token === null) return Either.right(undefined)
  if (typeof token !== "string") return Either.left(invalidInput("page_token", "must be the next_page_token of the previous recover"))
  return Either.flatMap(
    Either.mapLeft(decodeToken(token, scope), (e) => new InvalidWebhookInput({ errors: e.errors })),
    (p) => {
      const seq = p.key[0]
      return p.dir === "next" && typeof seq === "number" && p.key.length === 1
        ? Either.right(seq)
        : Either.left(invalidInput("page_token", "must be the next_page_token of the previous recover"))
    }
  )
}

/**
 * Queues a new delivery to the endpoint of every event it takes recorded at or after `since`
 * (what it missed while disabled, down, or created while those events were written). Receivers
 * deduplicate on `webhook-id`, so an event delivered before arrives again harmlessly.
 *
 * At most `limit` (1,000) per call, oldest first; when more remain the answer says so, with the
 * `page_token` that goes on after the last one queued. The deliveries fall due `RECOVER_PACE_MS`
 * apart, after those the endpoint already has pending.
 */
export const recoverWebhookDeliveries = (ws: WorkspaceId, endpointId: string, body: unknown, limit: number = RECOVER_LIMIT) =>
  Effect.gen(function* () {
    const endpoint = yield* findEndpoint(ws, endpointId)
    const fields = typeof body === "object" && body !== null ? body : {}
    const raw = "since" in fields ? fields.since : undefined
    if (typeof raw !== "string") {
      return yield* new InvalidWebhookInput({ errors: [new FieldIssue({ path: "since", message: raw === undefined ? "is required" : "must be an ISO 8601 timestamp" })] })
    }
    const since = timeBound("since", raw)
    if (typeof since !== "string") return yield* new InvalidWebhookInput({ errors: since ?? [] })
    const scope = tokenScope([ws, "webhook-recover", endpoint.id, since])
    let after = yield* recoverPosition(fields, scope)
    const storage = yield* Storage
    const ids = yield* Ids
    const nowMs = (yield* Clock).now()
    const now = isoTime(nowMs)
    const ahead = yield* storage.pendingWebhookDeliveriesOf(ws, endpoint.id)
    const types = endpoint.event_types.length === 0 ? undefined : endpoint.event_types
    let count = 0
    let more = false
    while (count < limit) {
      const size = Math.min(RECOVER_BATCH, limit - count)
      const events = yield* storage.listEvents(ws, {
        event_types: types,
        created_after: since,
        position: after === undefined ? undefined : { dir: "next", key: [after] },
        limit: size
      })
      const batch = events.slice(0, size)
      if (batch.length > 0) {
        yield* commit({
          operation: "recoverWebhookDeliveries",
          steps: redeliveries(endpoint, batch, ids.next, now, (i) => isoTime(nowMs + (ahead + count + i) * RECOVER_PACE_MS))
        })
        count += batch.length
        after = batch[batch.length - 1]?.seq
      }
      more = events.length > size
      if (!more) break
    }
    if (count > 0) yield* notifyDeliveries
    return {
      queued: count,
      more,
      next_page_token: more && after !== undefined ? encodeToken({ dir: "next", key: [after] }, scope) : null
    } satisfies WebhookRecovery
  })
