import { type EventRecord, toEvent } from "../domain/event.js"

/** What one delivery sends: the `webhook-id` and the exact body that is signed. */
export interface WebhookMessage {
  readonly id: string
  readonly body: string
}

/**
 * The body is the event exactly as `GET /api/encounters/compat-version/events/{id}` answers it
 * (the same `toEvent`, the same compact JSON), so a receiver can compare a pushed event with a
 * polled one byte for byte. The id is the event's, the same on every attempt: receivers
 * deduplicate on it.
 */
export const webhookMessage = (event: EventRecord): WebhookMessage => ({
  id: event.id,
  body: JSON.stringify(toEvent(event))
})
