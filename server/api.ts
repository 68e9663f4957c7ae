import { Effect } from "effect"
import { makeOpenApi } from "./openapi.js"
import { json, open, type Route } from "./route.js"
import { claimStatusRoute } from "./routes/claims.js"
import { compatEventRoute, compatEventsRoute, compatGetRoute, compatListRoute } from "./routes/compat.js"
import { createEncounterRoute, encounterReadRoutes } from "./routes/encounters.js"
import { healthRoute, readyRoute, workspaceRoute } from "./routes/ops.js"

/**
 * Every route of the API, in match order (literal segments are declared before parameters that
 * could shadow them). The router and the OpenAPI document both read this list.
 */
const apiRoutes: ReadonlyArray<Route> = [
  healthRoute,
  readyRoute,
  workspaceRoute,
  createEncounterRoute,
  compatListRoute,
  compatEventsRoute,
  compatEventRoute,
  compatGetRoute,
  ...encounterReadRoutes,
  claimStatusRoute
]

export const VERSION = "0.1.0"

let document: ReturnType<typeof makeOpenApi> | undefined

const openApiRoute = open(
  {
    method: "GET",
    path: "/api/openapi.json",
    operationId: "openapi",
    tag: "Operations",
    summary: "This API's OpenAPI 3.1 description, generated from the route declarations",
    responses: { 200: { description: "The OpenAPI document" } }
  },
  () => Effect.sync(() => json(200, (document ??= makeOpenApi(routes, VERSION))))
)

export const routes: ReadonlyArray<Route> = [...apiRoutes, openApiRoute]
