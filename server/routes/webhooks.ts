import { Effect } from "effect"
import {
  listWebhookDeliveries,
  RECOVER_LIMIT,
  RECOVER_PACE_MS,
  recoverWebhookDeliveries,
  retryWebhookDelivery
} from "../../lib/rules/webhook-deliveries.js"
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint
} from "../../lib/rules/webhook-endpoints.js"
import { DEFAULT_MAX_ENDPOINTS } from "../../lib/webhooks/settings.js"
import { readJsonBody } from "../body.js"
import { authed, type HandlerInput, json, NoQuery, type Route } from "../route.js"
import { problemAs, problems } from "./shared.js"
import {
  DeliveryDoc,
  DeliveryPageDoc,
  DeliveryQuery,
  EndpointCreatedDoc,
  EndpointCreateDoc,
  EndpointDoc,
  EndpointLimitProblem,
  EndpointPageDoc,
  EndpointPatchDoc,
  PageQuery,
  RecoverDoc,
  RecoveredDoc,
  SecretDoc
} from "./webhook-schemas.js"

const TAG = "Webhooks"
const SCOPE = "webhooks:write"

/** A JSON body, refused before decoding when it nests too deep (messages quote values). */
const jsonBody = ({ request, config }: HandlerInput<unknown, unknown>) => readJsonBody(request, config.bodyLimit)

const id = (params: Readonly<Record<string, string>>) => params.id ?? ""

export const webhookRoutes: ReadonlyArray<Route> = [
  authed(
    {
      method: "POST",
      path: "/api/webhooks/endpoints",
      operationId: "createWebhookEndpoint",
      audit: "none",
      tag: TAG,
      summary: "Register a webhook endpoint (scope webhooks:write)",
      description:
        "The URL must be absolute http(s) without credentials; loopback, private, link-local and unique-local addresses are refused unless the server allows private targets (host names are resolved now, and again at every delivery). The answer carries the signing secret, shown this once. " +
        `A workspace has at most ${DEFAULT_MAX_ENDPOINTS} endpoints unless the server's --webhook-max-endpoints says otherwise; past it the answer is 409 webhook_endpoint_limit.`,
      scope: SCOPE,
      query: NoQuery,
      requestBody: EndpointCreateDoc,
      responses: {
        201: { description: "Created", schema: EndpointCreatedDoc },
        ...problems(400, 401, 403, 413, 415, 422, 429),
        ...problemAs(409, "webhook_endpoint_limit: the workspace has as many endpoints as the server allows", EndpointLimitProblem)
      }
    },
    (input) =>
      Effect.gen(function* () {
        const body = yield* jsonBody(input)
        return json(201, yield* createWebhookEndpoint(input.principal.workspace.id, body))
      })
  ),
  authed(
    {
      method: "GET",
      path: "/api/webhooks/endpoints",
      operationId: "listWebhookEndpoints",
      audit: "none",
      tag: TAG,
      summary: "The workspace's webhook endpoints, newest first",
      scope: SCOPE,
      query: PageQuery,
      responses: { 200: { description: "A page of endpoints", schema: EndpointPageDoc }, ...problems(400, 401, 403, 429) }
    },
    ({ principal, query }) => Effect.map(listWebhookEndpoints(principal.workspace.id, query), (page) => json(200, page))
  ),
  authed(
    {
      method: "GET",
      path: "/api/webhooks/endpoints/{id}",
      operationId: "getWebhookEndpoint",
      audit: "none",
      tag: TAG,
      summary: "One webhook endpoint (never its secret)",
      scope: SCOPE,
      query: NoQuery,
      responses: { 200: { description: "The endpoint", schema: EndpointDoc }, ...problems(401, 403, 404, 429) }
    },
    ({ principal, params }) => Effect.map(getWebhookEndpoint(principal.workspace.id, id(params)), (e) => json(200, e))
  ),
  authed(
    {
      method: "PATCH",
      path: "/api/webhooks/endpoints/{id}",
      operationId: "updateWebhookEndpoint",
      audit: "none",
      tag: TAG,
      summary: "Change an endpoint's URL, event types, description or status",
      description: "Disabling records disabled_reason; enabling again clears it and restarts the 5-day failure clock.",
      scope: SCOPE,
      query: NoQuery,
      requestBody: EndpointPatchDoc,
      responses: { 200: { description: "The endpoint after the change", schema: EndpointDoc }, ...problems(400, 401, 403, 404, 413, 415, 422, 429) }
    },
    (input) =>
      Effect.gen(function* () {
        const body = yield* jsonBody(input)
        return json(200, yield* updateWebhookEndpoint(input.principal.workspace.id, id(input.params), body))
      })
  ),
  authed(
    {
      method: "DELETE",
      path: "/api/webhooks/endpoints/{id}",
      operationId: "deleteWebhookEndpoint",
      audit: "none",
      tag: TAG,
      summary: "Delete an endpoint; its pending deliveries fail",
      scope: SCOPE,
      query: NoQuery,
      responses: { 204: { description: "Deleted" }, ...problems(401, 403, 404, 429) }
    },
    ({ principal, params }) => Effect.as(deleteWebhookEndpoint(principal.workspace.id, id(params)), json(204, null))
  ),
  authed(
    {
      method: "POST",
      path: "/api/webhooks/endpoints/{id}/rotate-secret",
      operationId: "rotateWebhookSecret",
      audit: "none",
      tag: TAG,
      summary: "A new signing secret; for 24 hours messages are signed with the new and the old one",
      scope: SCOPE,
      query: NoQuery,
      responses: { 200: { description: "The new secret, shown this once", schema: SecretDoc }, ...problems(401, 403, 404, 429) }
    },
    ({ principal, params }) => Effect.map(rotateWebhookSecret(principal.workspace.id, id(params)), (s) => json(200, s))
  ),
  authed(
    {
      method: "GET",
      path: "/api/webhooks/endpoints/{id}/deliveries",
      operationId: "listWebhookDeliveries",
      audit: "none",
      tag: TAG,
      summary: "An endpoint's delivery log, newest first",
      description: "Each delivery with its attempt count and the last attempt's time, status and error. Filter: status.",
      scope: SCOPE,
      query: DeliveryQuery,
      responses: { 200: { description: "A page of deliveries", schema: DeliveryPageDoc }, ...problems(400, 401, 403, 404, 429) }
    },
    ({ principal, params, query }) =>
      Effect.map(listWebhookDeliveries(principal.workspace.id, id(params), query), (page) => json(200, page))
  ),
  authed(
    {
      method: "POST",
      path: "/api/webhooks/endpoints/{id}/recover",
      operationId: "recoverWebhookDeliveries",
      audit: "none",
      tag: TAG,
      summary: "Queue again every event the endpoint takes recorded at or after `since`",
      description:
        `At most ${RECOVER_LIMIT} deliveries per call, oldest event first; when more remain the answer has more: true and a next_page_token to send with the same since. ` +
        `The deliveries fall due ${RECOVER_PACE_MS} ms apart, after those the endpoint already has pending, so live events are not held behind them.`,
      scope: SCOPE,
      query: NoQuery,
      requestBody: RecoverDoc,
      responses: { 202: { description: "Queued", schema: RecoveredDoc }, ...problems(400, 401, 403, 404, 413, 415, 422, 429) }
    },
    (input) =>
      Effect.gen(function* () {
        const body = yield* jsonBody(input)
        return json(202, yield* recoverWebhookDeliveries(input.principal.workspace.id, id(input.params), body))
      })
  ),
  authed(
    {
      method: "POST",
      path: "/api/webhooks/deliveries/{id}/retry",
      operationId: "retryWebhookDelivery",
      audit: "none",
      tag: TAG,
      summary: "One more attempt now, also for a failed delivery",
      scope: SCOPE,
      query: NoQuery,
      responses: { 202: { description: "Queued for an attempt now", schema: DeliveryDoc }, ...problems(401, 403, 404, 429) }
    },
    ({ principal, params }) => Effect.map(retryWebhookDelivery(principal.workspace.id, id(params)), (d) => json(202, d))
  )
]
