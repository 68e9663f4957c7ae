import { Effect, Either, ParseResult, Schema } from "effect"
import { ClaimStatus } from "../../lib/domain/claim-status.js"
import { Claim } from "../../lib/domain/encounter.js"
import { parseJsonBody } from "../../lib/domain/json.js"
import { formatPath, MAX_DEPTH, nestsDeeperThan } from "../../lib/domain/validate.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { readBody, requireJson } from "../body.js"
import { InvalidBody } from "../problem.js"
import { authed, json, NoQuery } from "../route.js"
import { problems } from "./shared.js"

export const StatusChangeRequest = Schema.Struct({
  status: ClaimStatus.annotations({ message: () => "must be a known claim status" }),
  note: Schema.optional(Schema.String.pipe(Schema.maxLength(2000)))
})
const decodeRequest = Schema.decodeUnknownEither(StatusChangeRequest, { errors: "all", onExcessProperty: "ignore" })

export const claimStatusRoute = authed(
  {
    method: "POST",
    path: "/api/claims/{claim_id}/status",
    operationId: "changeClaimStatus",
    tag: "Claims",
    summary: "Change a claim's status (scope claims:write)",
    description:
      "Moves the claim along the transition table; writes one StatusUpdated event per change. Setting the current status again is a no-op without an event.",
    scope: "claims:write",
    query: NoQuery,
    requestBody: StatusChangeRequest,
    responses: { 200: { description: "The claim after the change", schema: Claim }, ...problems(400, 401, 403, 404, 409, 413, 415, 422, 429) }
  },
  ({ principal, params, request, config }) =>
    Effect.gen(function* () {
      yield* requireJson(request)
      const raw = yield* parseJsonBody(yield* readBody(request, config.bodyLimit))
      // Refused before decoding: error messages quote the value, and quoting walks it recursively.
      if (nestsDeeperThan(raw, MAX_DEPTH)) {
        return yield* new InvalidBody({ errors: [{ path: "$", message: `nests deeper than ${MAX_DEPTH} levels` }] })
      }
      const decoded = decodeRequest(raw)
      if (Either.isLeft(decoded)) {
        const errors = ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) => ({
          path: formatPath(i.path),
          message: i._tag === "Missing" ? "is required" : i.message
        }))
        return yield* new InvalidBody({ errors })
      }
      const { status, note } = decoded.right
      const result = yield* changeClaimStatus(principal.workspace.id, params.claim_id ?? "", status, note)
      return json(200, result.claim)
    })
)
