import { Effect } from "effect"
import { connectionActivity } from "../../../lib/rules/sftp-activity.js"
import { getConnection, listConnections } from "../../../lib/rules/sftp-connections.js"
import { json, NoQuery } from "../../route.js"
import { PageQuery } from "../../routes/shared.js"
import { sessionRoute } from "../route.js"

/** The clearinghouse connections behind the session: the same rules as /api/clearinghouse/connections (read-only, never a secret). */
export const connectionsRoute = sessionRoute(
  { method: "GET", path: "/console/api/clearinghouse/connections", audit: "none", summary: "Clearinghouse connections, newest first", query: PageQuery },
  ({ principal: caller, query }) => Effect.map(listConnections(caller.principal.workspace.id, query), (page) => json(200, page))
)

export const connectionRoute = sessionRoute(
  { method: "GET", path: "/console/api/clearinghouse/connections/{id}", audit: "none", summary: "One connection with its pending uploads and alerts", query: NoQuery },
  ({ principal: caller, params }) => Effect.map(getConnection(caller.principal.workspace.id, params.id ?? ""), (c) => json(200, c))
)

export const connectionActivityRoute = sessionRoute(
  { method: "GET", path: "/console/api/clearinghouse/connections/{id}/activity", audit: "none", summary: "A connection's uploads and pickups, newest first", query: PageQuery },
  ({ principal: caller, params, query }) => Effect.map(connectionActivity(caller.principal.workspace.id, params.id ?? "", query), (page) => json(200, page))
)
