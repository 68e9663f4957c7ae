import { Schema } from "effect"
import { FieldIssue } from "./errors.js"

/** No endpoint with this id in the workspace (another workspace's is not found either). */
export class WebhookEndpointNotFound extends Schema.TaggedError<WebhookEndpointNotFound>()("WebhookEndpointNotFound", {
  id: Schema.String
}) {
  override get message() {
    return `No webhook endpoint ${this.id}`
  }
}

/** No delivery with this id in the workspace. */
export class WebhookDeliveryNotFound extends Schema.TaggedError<WebhookDeliveryNotFound>()("WebhookDeliveryNotFound", {
  id: Schema.String
}) {
  override get message() {
    return `No webhook delivery ${this.id}`
  }
}

/** An endpoint body (create or patch) or a recover body broke its schema; every problem is listed. */
export class InvalidWebhookInput extends Schema.TaggedError<InvalidWebhookInput>()("InvalidWebhookInput", {
  errors: Schema.Array(FieldIssue)
}) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

/**
 * The workspace holds as many endpoints as the server allows (`--webhook-max-endpoints`): another
 * is created only after one is deleted, or once the operator raises the limit.
 */
export class WebhookEndpointLimitReached extends Schema.TaggedError<WebhookEndpointLimitReached>()("WebhookEndpointLimitReached", {
  limit: Schema.Int
}) {
  override get message() {
    return `This workspace already has the most webhook endpoints the server allows (${this.limit}); delete one, or start the server with a higher --webhook-max-endpoints`
  }
}

/**
 * The server holds no key to seal signing secrets with (PostgreSQL started without
 * `--webhook-secret-key-file`): endpoints cannot be created or rotated, and nothing is delivered.
 */
export class WebhooksUnavailable extends Schema.TaggedError<WebhooksUnavailable>()("WebhooksUnavailable", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}
