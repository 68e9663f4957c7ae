import { Schema } from "effect"
import type { ResponseDoc } from "../route.js"

/** `limit` as a query string: an integer 1..100 (the rule checks the range and answers 400). */
export const Limit = Schema.NumberFromString.annotations({ message: () => "must be an integer from 1 to 100" })

export const CreatedResponse = Schema.Struct({ encounter_id: Schema.String, encounterId: Schema.String })
export const DuplicateResponse = Schema.Struct({ ...CreatedResponse.fields, duplicate: Schema.Literal(true) })

export const ProblemDetails = Schema.Struct({
  type: Schema.String,
  title: Schema.String,
  status: Schema.Number,
  detail: Schema.String,
  code: Schema.String,
  errors: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))),
  request_id: Schema.String
}).annotations({ identifier: "Problem" })

const descriptions: Record<number, string> = {
  400: "invalid_json or invalid_parameter",
  401: "unauthorized: missing, malformed, unknown or revoked API key",
  403: "forbidden: the key lacks the needed scope",
  404: "not_found (also another workspace's record)",
  409: "invalid_transition",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed, with one entry per problem in errors",
  429: "rate_limited, with Retry-After"
}

/** The problem responses a route can answer, for the OpenAPI document. */
export const problems = (...statuses: ReadonlyArray<number>): Record<number, ResponseDoc> =>
  Object.fromEntries(statuses.map((s) => [s, { description: descriptions[s] ?? "error", schema: ProblemDetails }]))
