import { Effect } from "effect"
import { toWebhookDeliveryRecordView } from "../../../lib/domain/webhook.js"
import { findDelivery, listWebhookDeliveries, retryWebhookDelivery } from "../../../lib/rules/webhook-deliveries.js"
import { getWebhookEndpoint, listWebhookEndpoints } from "../../../lib/rules/webhook-endpoints.js"
import { json, NoQuery } from "../../route.js"
import { PageQuery } from "../../routes/shared.js"
import { DeliveryQuery } from "../../routes/webhook-schemas.js"
import { sessionRoute } from "../route.js"

// Like the API's webhook routes, reads included: endpoints name where the workspace's data goes.
const SCOPE = "webhooks:write"

/** The API's endpoint list behind the session (same rule, same pages; never a secret). */
export const webhookEndpointsRoute = sessionRoute(
  { method: "GET", path: "/console/api/webhooks/endpoints", audit: "none", summary: "Webhook endpoints, newest first", query: PageQuery, scope: SCOPE },
  ({ principal: caller, query }) => Effect.map(listWebhookEndpoints(caller.principal.workspace.id, query), (page) => json(200, page))
)

export const webhookEndpointRoute = sessionRoute(
  { method: "GET", path: "/console/api/webhooks/endpoints/{id}", audit: "none", summary: "One webhook endpoint", query: NoQuery, scope: SCOPE },
  ({ principal: caller, params }) => Effect.map(getWebhookEndpoint(caller.principal.workspace.id, params.id ?? ""), (e) => json(200, e))
)

export const webhookDeliveriesRoute = sessionRoute(
  {
    method: "GET",
    path: "/console/api/webhooks/endpoints/{id}/deliveries",
    audit: "none",
    summary: "An endpoint's deliveries, newest first",
    query: DeliveryQuery,
    scope: SCOPE
  },
  ({ principal: caller, params, query }) =>
    Effect.map(listWebhookDeliveries(caller.principal.workspace.id, params.id ?? "", query), (page) => json(200, page))
)

/** The API's retry (one more attempt now), behind the session and its CSRF token. */
export const retryDeliveryRoute = sessionRoute(
  { method: "POST", path: "/console/api/webhooks/deliveries/{id}/retry", audit: "none", summary: "Retry a delivery", query: NoQuery, scope: SCOPE },
  ({ principal: caller, params }) => Effect.map(retryWebhookDelivery(caller.principal.workspace.id, params.id ?? ""), (d) => json(202, d))
)

/** One delivery: the page reads it again after a retry, until the attempt has its result. */
export const webhookDeliveryRoute = sessionRoute(
  { method: "GET", path: "/console/api/webhooks/deliveries/{id}", audit: "none", summary: "One delivery", query: NoQuery, scope: SCOPE },
  ({ principal: caller, params }) =>
    Effect.map(findDelivery(caller.principal.workspace.id, params.id ?? ""), (d) => json(200, toWebhookDeliveryRecordView(d)))
)
