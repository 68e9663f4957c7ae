import { Schema } from "effect"
import { Page } from "../../lib/domain/page.js"
import {
  WebhookDeliveryStatus,
  WebhookDeliveryView,
  WebhookEndpointCreate,
  WebhookEndpointCreated,
  WebhookEndpointPatch,
  WebhookEndpointView,
  WebhookSecret
} from "../../lib/domain/webhook.js"
import { Limit, PageToken } from "./shared.js"

/** The webhook schemas of the OpenAPI document, each named once under components/schemas. */

export const EndpointDoc = WebhookEndpointView.annotations({
  identifier: "WebhookEndpoint",
  description: "A webhook endpoint; reads never include its secret"
})
export const EndpointCreatedDoc = WebhookEndpointCreated.annotations({
  identifier: "WebhookEndpointCreated",
  description: "The endpoint and its signing secret, shown this once"
})
export const EndpointPageDoc = Page(EndpointDoc).annotations({ identifier: "WebhookEndpointPage" })
export const EndpointCreateDoc = WebhookEndpointCreate.annotations({
  identifier: "WebhookEndpointCreate",
  description: "event_types absent or empty: every event type"
})
export const EndpointPatchDoc = WebhookEndpointPatch.annotations({
  identifier: "WebhookEndpointPatch",
  description: "Every key optional; enabling again clears disabled_reason"
})
export const SecretDoc = Schema.Struct({ secret: WebhookSecret }).annotations({
  identifier: "WebhookSecret",
  description: "The new signing secret; the previous one keeps signing for 24 hours"
})
export const DeliveryDoc = WebhookDeliveryView.annotations({ identifier: "WebhookDelivery" })
export const DeliveryPageDoc = Page(DeliveryDoc).annotations({ identifier: "WebhookDeliveryPage" })
export const RecoverDoc = Schema.Struct({
  since: Schema.String.annotations({ description: "ISO 8601 time: events recorded at or after it are queued again" })
}).annotations({ identifier: "WebhookRecover" })
export const RecoveredDoc = Schema.Struct({
  queued: Schema.Int.pipe(Schema.nonNegative()).annotations({ jsonSchema: { type: "integer", minimum: 0 } })
}).annotations({
  identifier: "WebhookRecovered"
})

export { PageQuery } from "./shared.js"
export const DeliveryQuery = Schema.Struct({
  status: Schema.optional(WebhookDeliveryStatus),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(PageToken)
})
