import { Effect } from "effect"
import { allowedTransitions } from "../../../lib/domain/claim-status.js"
import { changeClaimStatus } from "../../../lib/rules/change-claim-status.js"
import { countClaimsByStatus } from "../../../lib/rules/count-claims.js"
import { json, NoQuery } from "../../route.js"
import { readStatusChange } from "../../routes/claims.js"
import { sessionRoute } from "../route.js"

/** Exact counts per status (every status of the vocabulary), each with the statuses it may move to. */
export const claimCountsRoute = sessionRoute(
  { method: "GET", path: "/console/api/claims/counts", summary: "Claims per status", query: NoQuery },
  ({ principal: caller }) =>
    Effect.map(countClaimsByStatus(caller.principal.workspace.id), (counts) =>
      json(200, { counts: counts.map((c) => ({ ...c, allowed_transitions: allowedTransitions(c.status) })) })
    )
)

/** The API's status change, behind the session and its CSRF token (scope claims:write). */
export const moveClaimRoute = sessionRoute(
  {
    method: "POST",
    path: "/console/api/claims/{claim_id}/status",
    summary: "Move a claim",
    query: NoQuery,
    scope: "claims:write"
  },
  ({ principal: caller, params, request }) =>
    Effect.gen(function* () {
      const { status, note } = yield* readStatusChange(request, 16 * 1024)
      const result = yield* changeClaimStatus(caller.principal.workspace.id, params.claim_id ?? "", status, note === "" ? undefined : note)
      return json(200, { claim: result.claim, encounter_id: result.encounter_id, changed: result.changed })
    })
)
