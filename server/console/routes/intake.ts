import { Effect } from "effect"
import { getIntakeRequest, listIntakeRequests } from "../../../lib/rules/intake-log.js"
import { json, NoQuery } from "../../route.js"
import { IntakeListQuery } from "../../routes/intake.js"
import { sessionRoute } from "../route.js"


/** The API's intake log, behind the session (same rule, same filters, same pages). */
export const intakeListRoute = sessionRoute(
  { method: "GET", path: "/console/api/intake-requests", audit: { action: "intake_request.list", resource: "intake_request" }, summary: "The intake log", query: IntakeListQuery },
  ({ principal: caller, query }) => Effect.map(listIntakeRequests(caller.principal.workspace.id, query), (page) => json(200, page))
)

export const intakeGetRoute = sessionRoute(
  { method: "GET", path: "/console/api/intake-requests/{id}", audit: { action: "intake_request.read", resource: "intake_request", idParam: "id" }, summary: "One intake request with its body", query: NoQuery },
  ({ principal: caller, params }) => Effect.map(getIntakeRequest(caller.principal.workspace.id, params.id ?? ""), (r) => json(200, r))
)
