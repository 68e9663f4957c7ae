import type { Route } from "../route.js"
import { claimCountsRoute, moveClaimRoute } from "./routes/claims.js"
import { browseEncountersRoute, encounterDetailRoute } from "./routes/encounters.js"
import { consoleEventsRoute } from "./routes/events.js"
import { intakeGetRoute, intakeListRoute } from "./routes/intake.js"
import { assetRoute, pageRoutes } from "./routes/pages.js"
import { sessionInfoRoute, signInRoute, signOutRoute } from "./routes/session.js"

/** The operator console: its page, assets and its own session-bound JSON endpoints. */
export const consoleRoutes: ReadonlyArray<Route> = [
  ...pageRoutes,
  assetRoute,
  signInRoute,
  sessionInfoRoute,
  signOutRoute,
  browseEncountersRoute,
  encounterDetailRoute,
  claimCountsRoute,
  moveClaimRoute,
  intakeListRoute,
  intakeGetRoute,
  consoleEventsRoute
]
