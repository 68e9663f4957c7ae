import { Effect } from "effect"
import { listStatusChecks, requestStatusCheck } from "../../../lib/rules/status-checks.js"
import { json, NoQuery } from "../../route.js"
import { PageQuery } from "../../routes/shared.js"
import { sessionRoute } from "../route.js"

/** A claim's status checks, newest first (the encounter page shows them). */
export const consoleStatusChecksRoute = sessionRoute(
  { method: "GET", path: "/console/api/claims/{claim_id}/status-checks", audit: { action: "status_check.list", resource: "claim", idParam: "claim_id" }, summary: "A claim's status checks", query: PageQuery },
  ({ principal: caller, params, query }) => Effect.map(listStatusChecks(caller.principal.workspace.id, params.claim_id ?? "", query), (page) => json(200, page))
)

/** "Check now": the API's status check, behind the session and its CSRF token (scope claims:write). */
export const consoleCheckNowRoute = sessionRoute(
  { method: "POST", path: "/console/api/claims/{claim_id}/status-checks", audit: { action: "status_check.request", resource: "claim", idParam: "claim_id" }, summary: "Ask the payer for a claim's status", query: NoQuery, scope: "claims:write" },
  ({ principal: caller, params }) => Effect.map(requestStatusCheck(caller.principal.workspace.id, params.claim_id ?? ""), (check) => json(202, check))
)
