import { Schema } from "effect"
import { FieldIssueDoc, ProblemDetails, problemFields } from "../problem.js"
import type { ResponseDoc } from "../route.js"

export { FieldIssueDoc, ProblemDetails }

/** `limit` as a query string: an integer 1..100 (the rule checks the range and answers 400). */
export const Limit = Schema.NumberFromString.annotations({
  message: () => "must be an integer from 1 to 100",
  jsonSchema: { type: "integer", minimum: 1, maximum: 100, default: 100, description: "Page size" }
})

/** A page token as the lists hand it out. */
export const PageToken = Schema.String.annotations({
  description: "next_page_token or prev_page_token of a previous page, with the same filters"
})

/** The query of a plain list: a page size and a page token. */
export const PageQuery = Schema.Struct({ limit: Schema.optional(Limit), page_token: Schema.optional(PageToken) })

const createdFields = { encounter_id: Schema.String, encounterId: Schema.String.annotations({ description: "The same id, camelCase (the vendor SDK's name)" }) }
export const CreatedResponse = Schema.Struct(createdFields).annotations({ identifier: "EncounterCreated" })
export const DuplicateResponse = Schema.Struct({ ...createdFields, duplicate: Schema.Literal(true) }).annotations({
  identifier: "EncounterDuplicate"
})

/** The 409 of a refused status move: the problem plus the members that tell what is allowed. */
export const InvalidTransitionProblem = Schema.Struct({
  ...problemFields,
  claim_id: Schema.String,
  current_status: Schema.String,
  requested_status: Schema.String,
  allowed_transitions: Schema.Array(Schema.String).annotations({ description: "Empty when the current status is terminal" })
}).annotations({ identifier: "InvalidTransitionProblem", description: "RFC 9457 problem details with the transition's extension members" })

const descriptions: Record<number, string> = {
  400: "invalid_json or invalid_parameter",
  401: "unauthorized: missing, malformed, unknown or revoked API key",
  403: "forbidden: the key lacks the needed scope",
  404: "not_found (also another workspace's record)",
  409: "invalid_transition",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed, with one entry per problem in errors",
  429: "rate_limited, with Retry-After",
  503: "storage_unavailable, with Retry-After: the database is full, locked elsewhere or unreachable; nothing was stored"
}

const headers: Record<number, Record<string, string>> = {
  401: { "WWW-Authenticate": "Bearer realm=\"encounterd\"" },
  429: { "Retry-After": "Seconds until the key may send again" },
  503: { "Retry-After": "Seconds after which a retry may succeed" }
}

/** The problem responses a route can answer, for the OpenAPI document. */
export const problems = (...statuses: ReadonlyArray<number>): Record<number, ResponseDoc> =>
  Object.fromEntries(
    statuses.map((s): [number, ResponseDoc] => [
      s,
      {
        description: descriptions[s] ?? "error",
        schema: s === 409 ? InvalidTransitionProblem : ProblemDetails,
        contentType: "application/problem+json",
        ...(headers[s] !== undefined ? { headers: headers[s] } : {})
      }
    ])
  )

/** A problem response whose description names the codes this route answers with. */
export const problemAs = (status: number, description: string, schema: Schema.Schema.Any = ProblemDetails): Record<number, ResponseDoc> => ({
  [status]: { description, schema, contentType: "application/problem+json" }
})

/** A 409 that is either a refused status move (with its members) or another conflict. */
export const AnyConflictProblem = Schema.Union(InvalidTransitionProblem, ProblemDetails)
