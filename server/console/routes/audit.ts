import { Effect } from "effect"
import { listAuditAfterReads } from "../../audit.js"
import { AuditQuery } from "../../routes/users.js"
import { json } from "../../route.js"
import { sessionRoute } from "../route.js"

/** The audit view: an admin's (the role holds the admin scope), and a read of the log is itself logged. */
export const consoleAuditRoute = sessionRoute(
  { method: "GET", path: "/console/api/audit", summary: "The audit log, newest first", query: AuditQuery, scope: "admin", audit: { action: "audit.list", resource: "audit" } },
  ({ principal: caller, query, server }) => Effect.map(listAuditAfterReads(server, caller.principal.workspace.id, query), (page) => json(200, page))
)

