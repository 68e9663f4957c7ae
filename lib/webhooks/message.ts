import { eventJson, type FeedEvent } from "../domain/event.js"

/** What one delivery sends: the `webhook-id` and the exact body that is signed. */
export interface WebhookMessage {
  readonly id: string
  readonly body: string
}

/**
 * The body is the event exactly as `GET /api/encounters/compat-version/events/{id}` answers it
 * (the same `eventJson`, the same bytes), so a receiver can compare a pushed event with a
 * polled one byte for byte. The id is the event's, the same on every attempt: receivers
 * deduplicate on it.
 */
export const webhookMessage = (event: FeedEvent): WebhookMessage => ({
  id: event.id,
  body: eventJson(event)
})
