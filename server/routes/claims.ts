import { Effect, Either, Schema } from "effect"
import { ClaimStatus, NOTE_MAX_LENGTH } from "../../lib/domain/claim-status.js"
import { Claim } from "../../lib/domain/encounter.js"
import { Page } from "../../lib/domain/page.js"
import { Remittance } from "../../lib/domain/remittance.js"
import type { Principal } from "../../lib/domain/workspace.js"
import { requestDecoder } from "../../lib/domain/field-issues.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { listClaimRemittances } from "../../lib/rules/claim-remittances.js"
import { countClaimsByStatus } from "../../lib/rules/count-claims.js"
import { readJsonBody } from "../body.js"
import { InvalidBody } from "../problem.js"
import { authed, json, NoQuery } from "../route.js"
import { PageQuery, problems } from "./shared.js"

export const StatusChangeRequest = Schema.Struct({
  status: ClaimStatus,
  note: Schema.optional(Schema.String.pipe(Schema.maxLength(NOTE_MAX_LENGTH)))
}).annotations({ identifier: "ClaimStatusChange" })
const decodeRequest = requestDecoder(StatusChangeRequest)

/** A status change body, read and checked the same way wherever a claim is moved (API, console). */
export const readStatusChange = (request: Request, bodyLimit: number) => Effect.gen(() => readStatusChangeGen(request, bodyLimit))

function* readStatusChangeGen(request: Request, bodyLimit: number) {
  const raw = yield* readJsonBody(request, bodyLimit)
  const decoded = decodeRequest(raw)
  if (Either.isLeft(decoded)) return yield* new InvalidBody({ errors: decoded.left })
  return decoded.right
}

export const claimStatusRoute = authed(
  {
    method: "POST",
    path: "/api/claims/{claim_id}/status",
    operationId: "changeClaimStatus",
    audit: { action: "claim.status", resource: "claim", idParam: "claim_id" },
    tag: "Claims",
    summary: "Change a claim's status (scope claims:write)",
    description:
      "Moves the claim along the transition table; writes one StatusUpdated event per change. Setting the current status again is a no-op without an event.",
    scope: "claims:write",
    query: NoQuery,
    requestBody: StatusChangeRequest,
    responses: { 200: { description: "The claim after the change", schema: Claim }, ...problems(400, 401, 403, 404, 409, 413, 415, 422, 429) }
  },
  ({ principal, params, request, config }) => Effect.gen(() => changeStatus(principal, params.claim_id ?? "", request, config.bodyLimit))
)

function* changeStatus(principal: Principal, claimId: string, request: Request, bodyLimit: number) {
  const { status, note } = yield* readStatusChange(request, bodyLimit)
  const result = yield* changeClaimStatus(principal.workspace.id, claimId, status, note)
  return json(200, result.claim)
}

const RemittancePage = Page(Remittance).annotations({ identifier: "RemittancePage" })

export const claimRemittancesRoute = authed(
  {
    method: "GET",
    path: "/api/claims/{claim_id}/remittances",
    operationId: "listClaimRemittances",
    audit: { action: "remittance.list", resource: "remittance", idParam: "claim_id" },
    tag: "Claims",
    summary: "A claim's remittances (835s that named it), newest first",
    description: "All of them: a read of the claim (latest_claim.remittances) carries only its 20 most recent, with more_remittances saying whether there are others.",
    query: PageQuery,
    responses: { 200: { description: "A page of the claim's remittances", schema: RemittancePage }, ...problems(400, 401, 404, 429) }
  },
  ({ principal, params, query }) => Effect.map(listClaimRemittances(principal.workspace.id, params.claim_id ?? "", query), (page) => json(200, page))

)

/** One status's claims: how many encounters' latest claims are in it, and what they bill together. */
export const ClaimStatusCountDoc = Schema.Struct({
  status: Schema.String,
  count: Schema.Number.annotations({ description: "Encounters whose latest claim is in this status" }),
  billed_cents: Schema.Number.annotations({ description: "The sum of their service lines' charge_amount_cents" })
}).annotations({ identifier: "ClaimStatusCount" })

export const ClaimStatusCounts = Schema.Struct({
  counts: Schema.Array(ClaimStatusCountDoc).annotations({
    description: "Every status of the vocabulary in its order (zero included), then any other stored status"
  })
}).annotations({ identifier: "ClaimStatusCounts" })

export const claimStatusCountsRoute = authed(
  {
    method: "GET",
    path: "/api/claims/status-counts",
    operationId: "countClaimsByStatus",
    audit: "none",
    tag: "Claims",
    summary: "Claims per status, with what they bill",
    description:
      "Exact counts of the workspace's encounters by their latest claim's status, each with the sum of the claims' service line charges (integer cents). One read of an index: its cost grows with the workspace's encounters (about 10 ms at 100,000).",
    query: NoQuery,
    responses: { 200: { description: "Counts and billed totals per status", schema: ClaimStatusCounts }, ...problems(401, 429) }
  },
  ({ principal }) => Effect.map(countClaimsByStatus(principal.workspace.id), (counts) => json(200, { counts }))
)
