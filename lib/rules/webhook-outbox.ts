import type { EventRecord } from "../domain/event.js"
import {
  endpointTakes,
  type WebhookDeliveryRecord,
  WebhookDeliveryId,
  type WebhookEndpoint,
  type WebhookSubscription
} from "../domain/webhook.js"
import { insert, type Insert } from "../ports/write.js"

/**
 * The outbox rows of one event: a pending delivery, due at once, per enabled endpoint that takes
 * its type. They are part of the event's own write, so an event is never recorded without its
 * deliveries nor a delivery without its event.
 *
 * The endpoints are read just before that write. An endpoint created (or enabled) while the write
 * is under way gets the next events, not this one; `recover` re-queues what it missed.
 */
export const deliveriesFor = (
  endpoints: ReadonlyArray<WebhookSubscription>,
  event: EventRecord,
  nextId: () => string
): ReadonlyArray<Insert<"webhook_deliveries", never>> =>
  endpoints.filter((e) => endpointTakes(e, event.event_type)).map((e) => insert("webhook_deliveries", queued(e, event, nextId())))

/**
 * Deliveries of past events to one endpoint again (`recover`): one pending delivery per event,
 * queued `at`, the `i`th first due at `dueOf(i)`. The only outbox rows not written with their event.
 */
export const redeliveries = (
  endpoint: Pick<WebhookEndpoint, "id" | "workspace_id">,
  events: ReadonlyArray<Pick<EventRecord, "id" | "event_type" | "created_at">>,
  nextId: () => string,
  at: string,
  dueOf: (i: number) => string
): ReadonlyArray<Insert<"webhook_deliveries", never>> =>
  events.map((e, i) => insert("webhook_deliveries", queued(endpoint, e, nextId(), at, dueOf(i))))

/** A pending delivery queued `at` (the event's time by default), first due `due` (at once by default). */
const queued = (
  endpoint: Pick<WebhookEndpoint, "id" | "workspace_id">,
  event: Pick<EventRecord, "id" | "event_type" | "created_at">,
  id: string,
  at: string = event.created_at,
  due: string = at
): WebhookDeliveryRecord => ({
  id: WebhookDeliveryId.make(id),
  workspace_id: endpoint.workspace_id,
  endpoint_id: endpoint.id,
  event_id: event.id,
  event_type: event.event_type,
  status: "pending",
  attempts: 0,
  last_attempt_at: null,
  last_response_status: null,
  last_error: null,
  next_attempt_at: due,
  created_at: at,
  lease_owner: null,
  lease_expires_at: null
})
