import { Effect, Schema } from "effect"
import { allowedTransitions } from "../../../lib/domain/claim-status.js"
import { changeClaimStatus } from "../../../lib/rules/change-claim-status.js"
import { listClaimWork } from "../../../lib/rules/claim-work-list.js"
import { countClaimsByStatus } from "../../../lib/rules/count-claims.js"
import { json, NoQuery } from "../../route.js"
import { correctClaim } from "../../../lib/rules/correct-claim.js"
import { readCorrection } from "../../routes/claim-corrections.js"
import { readStatusChange } from "../../routes/claims.js"
import { Limit } from "../../routes/shared.js"
import { sessionRoute } from "../route.js"

/** Exact counts and billed totals per status (every status of the vocabulary), each with the statuses it may move to. */
export const claimCountsRoute = sessionRoute(
  { method: "GET", path: "/console/api/claims/counts", audit: "none", summary: "Claims per status", query: NoQuery },
  ({ principal: caller }) =>
    Effect.map(countClaimsByStatus(caller.principal.workspace.id), (counts) =>
      json(200, { counts: counts.map((c) => ({ ...c, allowed_transitions: allowedTransitions(c.status) })) })
    )
)

const WorkQuery = Schema.Struct({
  status: Schema.optional(Schema.String),
  sort: Schema.optional(Schema.String),
  order: Schema.optional(Schema.String),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(Schema.String)
})

/** A status's work list: its encounters by days in the status or by billed amount, keyset paged. */
export const claimWorkRoute = sessionRoute(
  { method: "GET", path: "/console/api/claims/work", audit: { action: "claim.list", resource: "claim" }, summary: "A status's claims by age or amount", query: WorkQuery },
  ({ principal: caller, query }) =>
    Effect.map(listClaimWork(caller.principal.workspace.id, { ...query, page_token: query.page_token || undefined }), (page) => json(200, page))
)

/** The API's status change, behind the session and its CSRF token (scope claims:write). */
export const moveClaimRoute = sessionRoute(
  {
    method: "POST",
    path: "/console/api/claims/{claim_id}/status", audit: { action: "claim.status", resource: "claim", idParam: "claim_id" },
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

/** The API's correction (a new claim from the latest one), behind the session and its CSRF token (scope claims:write). */
export const correctClaimRoute = sessionRoute(
  {
    method: "POST",
    path: "/console/api/claims/{claim_id}/corrections", audit: { action: "claim.correct", resource: "claim", idParam: "claim_id" },
    summary: "Correct a claim",
    query: NoQuery,
    scope: "claims:write"
  },
  ({ principal: caller, params, request }) =>
    Effect.gen(function* () {
      const { action, note } = yield* readCorrection(request, 16 * 1024)
      const result = yield* correctClaim(caller.principal.workspace.id, params.claim_id ?? "", { action, note: note === "" ? undefined : note })
      return json(201, { claim: result.claim, encounter_id: result.encounter_id })
    })
)
