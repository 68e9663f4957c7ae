import { Effect } from "effect"
import { VERSION } from "./build-info.js"
import { consoleRoutes } from "./console/console-routes.js"
import { makeOpenApi, OpenApiDocument } from "./openapi.js"
import { json, open, type Route } from "./route.js"
import { claimCorrectionRoutes } from "./routes/claim-corrections.js"
import { claimRemittancesRoute, claimStatusCountsRoute, claimStatusRoute } from "./routes/claims.js"
import { clearinghouseRoutes } from "./routes/clearinghouse.js"
import { clearinghouseConnectionRoutes } from "./routes/clearinghouse-connections.js"
import { compatEventRoute, compatEventsRoute, compatGetRoute, compatListRoute } from "./routes/compat.js"
import { createEncounterRoute, encounterReadRoutes } from "./routes/encounters.js"
import { intakeGetRoute, intakeListRoute } from "./routes/intake.js"
import { healthRoute, metricsRoute, readyRoute, workspaceRoute } from "./routes/ops.js"
import { statusCheckRoutes } from "./routes/status-checks.js"
import { taskRoutes } from "./routes/tasks.js"
import { userRoutes } from "./routes/users.js"
import { webhookRoutes } from "./routes/webhooks.js"
import { x12Routes } from "./routes/x12.js"

/**
 * Every route of the API, in match order (literal segments are declared before parameters that
 * could shadow them). The router and the OpenAPI document both read this list.
 */
const apiRoutes: ReadonlyArray<Route> = [
  healthRoute,
  readyRoute,
  metricsRoute,
  workspaceRoute,
  createEncounterRoute,
  compatListRoute,
  compatEventsRoute,
  compatEventRoute,
  compatGetRoute,
  ...encounterReadRoutes,
  claimStatusCountsRoute,
  claimStatusRoute,
  claimRemittancesRoute,
  // After the literal /api/claims/status-counts, which /api/claims/{claim_id} would shadow.
  ...claimCorrectionRoutes,
  intakeListRoute,
  intakeGetRoute,
  ...clearinghouseRoutes,
  ...clearinghouseConnectionRoutes,
  ...x12Routes,
  ...statusCheckRoutes,
  ...webhookRoutes,
  ...taskRoutes,
  ...userRoutes
]

export { VERSION } from "./build-info.js"

/** Built once per public URL (it names the server); tests run several servers in one process. */
const documents = new Map<string, OpenApiDocument>()
const documentFor = (publicUrl: string): OpenApiDocument => {
  const known = documents.get(publicUrl)
  if (known !== undefined) return known
  const made = makeOpenApi(routes, VERSION, publicUrl)
  documents.set(publicUrl, made)
  return made
}

const openApiRoute = open(
  {
    method: "GET",
    path: "/api/openapi.json",
    operationId: "openapi",
    tag: "Operations",
    summary: "This API's OpenAPI 3.1 description, generated from the route declarations",
    responses: { 200: { description: "The OpenAPI document", schema: OpenApiDocument } }
  },
  ({ config }) => Effect.sync(() => json(200, documentFor(config.publicUrl)))
)

export const routes: ReadonlyArray<Route> = [...apiRoutes, openApiRoute]

/** What the server answers: the API, then the operator console (not part of the API description). */
export const servedRoutes: ReadonlyArray<Route> = [...routes, ...consoleRoutes]
