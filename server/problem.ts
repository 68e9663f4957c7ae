import { Data } from "effect"
import type {
  ClaimNotFound,
  EncounterNotFound,
  EventNotFound,
  InvalidEncounter,
  InvalidJson,
  InvalidQuery,
  InvalidTransition,
  PatientControlNumberTaken,
  StorageError,
  Unauthorized
} from "../lib/domain/errors.js"

/** Failures that only exist over HTTP. */
export class Forbidden extends Data.TaggedError("Forbidden")<{ readonly scope: string }> {}
export class RouteNotFound extends Data.TaggedError("RouteNotFound")<{ readonly path: string }> {}
export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{ readonly allow: ReadonlyArray<string> }> {}
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly limit: number }> {}
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{ readonly received: string }> {}
export class InvalidBody extends Data.TaggedError("InvalidBody")<{
  readonly errors: ReadonlyArray<{ readonly path: string; readonly message: string }>
}> {}
export class RateLimited extends Data.TaggedError("RateLimited")<{ readonly retryAfterSeconds: number }> {}

export type HttpFailure =
  | Forbidden
  | RouteNotFound
  | MethodNotAllowed
  | PayloadTooLarge
  | UnsupportedMediaType
  | InvalidBody
  | RateLimited
  | InvalidJson
  | InvalidQuery
  | InvalidEncounter
  | PatientControlNumberTaken
  | InvalidTransition
  | EncounterNotFound
  | EventNotFound
  | ClaimNotFound
  | Unauthorized
  | StorageError

export interface Problem {
  readonly status: number
  readonly code: string
  readonly title: string
  readonly detail: string
  readonly errors?: ReadonlyArray<{ readonly path: string; readonly message: string }>
  readonly extra?: Record<string, unknown>
  readonly headers?: Record<string, string>
}

/**
 * The one place where a failure becomes an HTTP status and an error code (RFC 9457 problem details).
 * A 500 never carries the cause: it is logged, without request data.
 */
export const toProblem = (e: HttpFailure): Problem => {
  switch (e._tag) {
    case "InvalidJson":
      return { status: 400, code: "invalid_json", title: "Malformed JSON", detail: e.message }
    case "InvalidQuery":
      return { status: 400, code: "invalid_parameter", title: "Invalid parameter", detail: e.message, errors: e.errors }
    case "Unauthorized":
      return {
        status: 401,
        code: "unauthorized",
        title: "Unauthorized",
        detail: e.reason,
        headers: { "www-authenticate": 'Bearer realm="encounterd"' }
      }
    case "Forbidden":
      return { status: 403, code: "forbidden", title: "Forbidden", detail: `This API key lacks the scope ${e.scope}` }
    case "EncounterNotFound":
    case "EventNotFound":
    case "ClaimNotFound":
      return { status: 404, code: "not_found", title: "Not found", detail: e.message }
    case "RouteNotFound":
      return { status: 404, code: "not_found", title: "Not found", detail: "No such route" }
    case "MethodNotAllowed":
      return {
        status: 405,
        code: "method_not_allowed",
        title: "Method not allowed",
        detail: `Allowed: ${e.allow.join(", ")}`,
        headers: { allow: e.allow.join(", ") }
      }
    case "InvalidTransition":
      return {
        status: 409,
        code: "invalid_transition",
        title: "Invalid status transition",
        detail: e.message,
        extra: { claim_id: e.claim_id, current_status: e.from, requested_status: e.to, allowed_transitions: e.allowed }
      }
    case "PayloadTooLarge":
      return { status: 413, code: "payload_too_large", title: "Payload too large", detail: `The body exceeds ${e.limit} bytes` }
    case "UnsupportedMediaType":
      return {
        status: 415,
        code: "unsupported_media_type",
        title: "Unsupported media type",
        detail: `Expected Content-Type application/json, received ${e.received === "" ? "none" : e.received}`
      }
    case "InvalidEncounter":
    case "InvalidBody":
      return {
        status: 422,
        code: "validation_failed",
        title: "Validation failed",
        detail: `${e.errors.length} problem(s) in the request body`,
        errors: e.errors
      }
    case "PatientControlNumberTaken":
      return {
        status: 422,
        code: "validation_failed",
        title: "Validation failed",
        detail: e.message,
        errors: [{ path: "patient_control_number", message: "is already used in this workspace" }]
      }
    case "RateLimited":
      return {
        status: 429,
        code: "rate_limited",
        title: "Too many requests",
        detail: `Rate limit exceeded; retry after ${e.retryAfterSeconds} s`,
        headers: { "retry-after": String(e.retryAfterSeconds) }
      }
    case "StorageError":
      return internalProblem
  }
}

export const internalProblem: Problem = {
  status: 500,
  code: "internal",
  title: "Internal error",
  detail: "The request failed on the server; it has been logged"
}

const PROBLEM_TYPE = "https://encounterd.dev/problems/"

/** The response body of a problem, with the request id that ties it to the server's log line. */
export const problemBody = (p: Problem, requestId: string) => ({
  type: `${PROBLEM_TYPE}${p.code}`,
  title: p.title,
  status: p.status,
  detail: p.detail,
  code: p.code,
  ...(p.errors !== undefined ? { errors: p.errors.map(({ path, message }) => ({ path, message })) } : {}),
  ...p.extra,
  request_id: requestId
})
