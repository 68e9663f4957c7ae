import type { Route } from "../route.js"
import { claimCountsRoute, claimWorkRoute, correctClaimRoute, moveClaimRoute } from "./routes/claims.js"
import { connectionActivityRoute, connectionRoute, connectionsRoute } from "./routes/clearinghouse-connections.js"
import { x12BatchesRoute, x12BatchFileRoute, x12FileOutcomesRoute, x12FileRoute, x12FilesRoute } from "./routes/clearinghouse.js"
import { browseEncountersRoute, encounterDetailRoute } from "./routes/encounters.js"
import { consoleAuditRoute } from "./routes/audit.js"
import { consoleEventsRoute } from "./routes/events.js"
import { intakeGetRoute, intakeListRoute } from "./routes/intake.js"
import { assetRoute, pageRoutes, rootRoute } from "./routes/pages.js"
import { oidcCallbackRoute, oidcLoginRoute, signInOptionsRoute } from "./routes/oidc.js"
import { changePasswordRoute, sessionInfoRoute, signInRoute, signOutRoute } from "./routes/session.js"
import { consoleCheckNowRoute, consoleStatusChecksRoute } from "./routes/status-checks.js"
import { taskCountsRoute, taskDetailRoute, taskQueueRoute, updateTaskRoute } from "./routes/tasks.js"
import { retryDeliveryRoute, webhookDeliveriesRoute, webhookDeliveryRoute, webhookEndpointRoute, webhookEndpointsRoute } from "./routes/webhooks.js"

/** The operator console: its page, assets and its own session-bound JSON endpoints. */
export const consoleRoutes: ReadonlyArray<Route> = [
  rootRoute,
  ...pageRoutes,
  assetRoute,
  signInRoute,
  signInOptionsRoute,
  oidcLoginRoute,
  oidcCallbackRoute,
  consoleAuditRoute,
  sessionInfoRoute,
  changePasswordRoute,
  signOutRoute,
  browseEncountersRoute,
  encounterDetailRoute,
  claimCountsRoute,
  claimWorkRoute,
  moveClaimRoute,
  consoleStatusChecksRoute,
  consoleCheckNowRoute,
  correctClaimRoute,
  intakeListRoute,
  intakeGetRoute,
  consoleEventsRoute,
  webhookEndpointsRoute,
  webhookEndpointRoute,
  webhookDeliveriesRoute,
  webhookDeliveryRoute,
  retryDeliveryRoute,
  x12BatchesRoute,
  x12BatchFileRoute,
  x12FilesRoute,
  x12FileOutcomesRoute,
  x12FileRoute,
  connectionsRoute,
  connectionRoute,
  connectionActivityRoute,
  taskCountsRoute,
  taskQueueRoute,
  taskDetailRoute,
  updateTaskRoute
]
