import { Effect, Either, Schema } from "effect"
import { NOTE_MAX_LENGTH } from "../../lib/domain/claim-status.js"
import { Claim, CorrectionAction } from "../../lib/domain/encounter.js"
import { EncounterCreate } from "../../lib/domain/encounter-input.js"
import { requestDecoder } from "../../lib/domain/field-issues.js"
import type { Principal } from "../../lib/domain/workspace.js"
import { correctClaim } from "../../lib/rules/correct-claim.js"
import { getClaim, listEncounterClaims } from "../../lib/rules/encounter-claims.js"
import { readJsonBody } from "../body.js"
import { InvalidBody, problemFields } from "../problem.js"
import { authed, json, NoQuery } from "../route.js"
import { problemAs, problems } from "./shared.js"

const note = Schema.optional(Schema.String.pipe(Schema.maxLength(NOTE_MAX_LENGTH)))

/** What a correction body is decoded as: the content is validated by the rule, as a create is. */
const CorrectionBody = Schema.Struct({ action: CorrectionAction, encounter: Schema.optional(Schema.Unknown), note })
const decodeCorrection = requestDecoder(CorrectionBody)

/** The body as documented. */
export const CorrectionRequestDoc = Schema.Struct({
  action: CorrectionAction.annotations({
    description: "resubmit (rejected, submission_bounced); replace, void, secondary (paid, paid_incorrectly, denied, era_received, era_requires_review, finalized_paid, finalized_denied)"
  }),
  encounter: Schema.optional(
    EncounterCreate.annotations({
      description: "The corrected content: a full create payload with the encounter's external_id, validated as a create is (not for void)"
    })
  ),
  note
}).annotations({ identifier: "ClaimCorrection" })

/** The 409 of a refused correction: the problem plus what the claim's status allows. */
export const InvalidCorrectionProblem = Schema.Struct({
  ...problemFields,
  claim_id: Schema.String,
  current_status: Schema.String,
  requested_action: Schema.String,
  allowed_actions: Schema.Array(Schema.String).annotations({ description: "The corrections the claim's status takes (empty: none)" })
}).annotations({ identifier: "InvalidCorrectionProblem", description: "RFC 9457 problem details with the correction's extension members" })

export const claimCorrectionRoute = authed(
  {
    method: "POST",
    path: "/api/claims/{claim_id}/corrections", audit: { action: "claim.correct", resource: "claim", idParam: "claim_id" },
    operationId: "correctClaim",
    tag: "Claims",
    summary: "Make a new claim from the encounter's latest claim: resubmit, replace, void or secondary (scope claims:write)",
    description:
      "The new claim starts draft with a new patient control number and becomes the encounter's latest, with one StatusUpdated event (previous_status: the former latest claim's). replace and void need the payer's claim control number; secondary needs a subscriber_secondary and the primary's remittance.",
    scope: "claims:write",
    query: NoQuery,
    requestBody: CorrectionRequestDoc,
    responses: {
      201: { description: "The new claim", schema: Claim },
      ...problems(400, 401, 403, 404, 413, 415, 422, 429),
      ...problemAs(409, "invalid_correction: not the latest claim, a status the action does not take, or what the action needs is missing", InvalidCorrectionProblem)
    }
  },
  ({ principal, params, request, config }) => Effect.gen(() => correct(principal, params.claim_id ?? "", request, config.bodyLimit))
)

/** A correction body, read and checked the same way wherever a claim is corrected (API, console). */
export const readCorrection = (request: Request, bodyLimit: number) =>
  Effect.gen(function* () {
    const raw = yield* readJsonBody(request, bodyLimit)
    const decoded = decodeCorrection(raw)
    if (Either.isLeft(decoded)) return yield* new InvalidBody({ errors: decoded.left })
    return decoded.right
  })

function* correct(principal: Principal, claimId: string, request: Request, bodyLimit: number) {
  const result = yield* correctClaim(principal.workspace.id, claimId, yield* readCorrection(request, bodyLimit))
  return json(201, result.claim)
}

export const claimGetRoute = authed(
  {
    method: "GET",
    path: "/api/claims/{claim_id}", audit: { action: "claim.read", resource: "claim", idParam: "claim_id" },
    operationId: "getClaim",
    tag: "Claims",
    summary: "Read one claim, with the content it was billed from and its remittances",
    query: NoQuery,
    responses: { 200: { description: "The claim", schema: Claim }, ...problems(401, 404, 429) }
  },
  ({ principal, params }) => Effect.map(getClaim(principal.workspace.id, params.claim_id ?? ""), (claim) => json(200, claim))
)

export const EncounterClaims = Schema.Struct({ items: Schema.Array(Claim) }).annotations({ identifier: "EncounterClaims" })

export const encounterClaimsRoute = authed(
  {
    method: "GET",
    path: "/api/encounters/{id}/claims", audit: { action: "claim.list", resource: "encounter", idParam: "id" },
    operationId: "listEncounterClaims",
    tag: "Claims",
    summary: "An encounter's claims, oldest first (the last is latest_claim)",
    query: NoQuery,
    responses: { 200: { description: "Every claim of the encounter", schema: EncounterClaims }, ...problems(401, 404, 429) }
  },
  ({ principal, params }) => Effect.map(listEncounterClaims(principal.workspace.id, params.id ?? ""), (items) => json(200, { items }))
)

export const claimCorrectionRoutes = [encounterClaimsRoute, claimCorrectionRoute, claimGetRoute]
