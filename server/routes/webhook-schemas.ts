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
import { Limit, PageToken, ProblemDetails } from "./shared.js"

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
/** The 409 of a create past the workspace's endpoint limit. */
export const EndpointLimitProblem = Schema.extend(
  ProblemDetails,
  Schema.Struct({
    limit: Schema.Int.annotations({ description: "Endpoints a workspace may have on this server" }),
    setting: Schema.String.annotations({ description: "The server flag that sets the limit" })
  })
).annotations({ identifier: "WebhookEndpointLimitProblem", description: "RFC 9457 problem details with the limit and the flag that sets it" })
export const DeliveryDoc = WebhookDeliveryView.annotations({ identifier: "WebhookDelivery" })
export const DeliveryPageDoc = Page(DeliveryDoc).annotations({ identifier: "WebhookDeliveryPage" })
export const RecoverDoc = Schema.Struct({
  since: Schema.String.annotations({ description: "ISO 8601 time: events recorded at or after it are queued again" }),
  page_token: Schema.optional(
    Schema.NullOr(Schema.String).annotations({ description: "next_page_token of the previous recover, with the same since: go on after it" })
  )
}).annotations({ identifier: "WebhookRecover" })
export const RecoveredDoc = Schema.Struct({
  queued: Schema.Int.pipe(Schema.nonNegative()).annotations({
    jsonSchema: { type: "integer", minimum: 0 },
    description: "Deliveries queued by this call (at most 1,000), oldest event first"
  }),
  more: Schema.Boolean.annotations({ description: "True when more events remain: call again with next_page_token" }),
  next_page_token: Schema.NullOr(Schema.String).annotations({ description: "Where the next call goes on (null when nothing remains)" })
}).annotations({
  identifier: "WebhookRecovered"
})

export { PageQuery } from "./shared.js"
export const DeliveryQuery = Schema.Struct({
  status: Schema.optional(WebhookDeliveryStatus),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(PageToken)
})
