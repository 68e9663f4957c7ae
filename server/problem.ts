import type { InvalidTaskChange, TaskNotFound } from "../lib/domain/task-errors.js"
import { Data, Schema } from "effect"
import { capProblems, isCapped, MAX_PROBLEMS } from "../lib/domain/problems.js"
import {
  type ClaimNotFound,
  type EncounterNotFound,
  type EventNotFound,
  FieldIssue,
  FieldIssueCode,
  type IntakeRequestNotFound,
  type InvalidEncounter,
  type InvalidJson,
  type InvalidQuery,
  type InvalidStatusChange,
  type InvalidTransition,
  type PatientControlNumberTaken,
  type StorageError,
  type Unauthorized,
  type UnavailableReason
} from "../lib/domain/errors.js"
import type { InvalidClearinghouseSettings } from "../lib/domain/clearinghouse.js"
import type { ClaimNotSubmitted, InvalidStatusCheckSettings, StatusCheckNotFound, StatusCheckSettingsNotFound } from "../lib/domain/status-check-settings.js"
import type { InvalidCorrection } from "../lib/domain/claim-correction.js"
import type {
  BatchTransitionsRefused,
  ClearinghouseNotConfigured,
  ClearinghouseSettingsNotFound,
  ControlNumbersExhausted,
  X12BatchNotFound,
  X12FileNotFound
} from "../lib/domain/x12-exchange-errors.js"
import type { ClaimsNotExportable, InvalidExportRequest, X12ReadError, X12WriteError } from "../lib/x12/errors.js"
import type {
  InvalidWebhookInput,
  WebhookDeliveryNotFound,
  WebhookEndpointLimitReached,
  WebhookEndpointNotFound,
  WebhooksUnavailable
} from "../lib/domain/webhook-errors.js"
import type { ConnectionNotFound, InvalidConnectionInput, PickupNotFound } from "../lib/domain/clearinghouse-connection.js"

import type {
  InvalidUserInput,
  LastAdmin,
  PasswordChangeRequired,
  SignInLocked,
  SignInRefused,
  UserEmailTaken,
  UserNotFound,
  WorkspaceRequired
} from "../lib/domain/user-errors.js"

/** Failures that only exist over HTTP. */
/** The key lacks the route's scope, or (with `role`) the signed-in user's role does not hold it. */
export class Forbidden extends Data.TaggedError("Forbidden")<{ readonly scope: string; readonly role?: string }> {}
export class RouteNotFound extends Data.TaggedError("RouteNotFound")<{ readonly path: string }> {}
export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{ readonly allow: ReadonlyArray<string> }> {}
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly limit: number }> {}
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{ readonly received: string; readonly expected: string }> {}
export class InvalidBody extends Data.TaggedError("InvalidBody")<{ readonly errors: ReadonlyArray<FieldIssue> }> {}
export class RateLimited extends Data.TaggedError("RateLimited")<{ readonly retryAfterSeconds: number }> {}
/** A console request without a live session; `headers` may clear the session cookie. */
export class SessionRequired extends Data.TaggedError("SessionRequired")<{
  readonly detail: string
  readonly headers: Record<string, string>
}> {}
/** A state-changing console request without its session's CSRF token, or from another origin. */
export class CsrfRejected extends Data.TaggedError("CsrfRejected")<{ readonly detail: string }> {}
/** The server holds as many console sessions as it may (`--console-max-sessions`): a sign-in waits for one to end. */
export class ConsoleSessionsFull extends Data.TaggedError("ConsoleSessionsFull")<{ readonly limit: number }> {}

export type HttpFailure =
  | Forbidden
  | RouteNotFound
  | MethodNotAllowed
  | PayloadTooLarge
  | UnsupportedMediaType
  | InvalidBody
  | RateLimited
  | SessionRequired
  | CsrfRejected
  | ConsoleSessionsFull
  | InvalidJson
  | InvalidQuery
  | InvalidStatusChange
  | InvalidEncounter
  | PatientControlNumberTaken
  | InvalidTransition
  | InvalidCorrection
  | EncounterNotFound
  | EventNotFound
  | IntakeRequestNotFound
  | ClaimNotFound
  | WebhookEndpointNotFound
  | WebhookDeliveryNotFound
  | InvalidWebhookInput
  | WebhookEndpointLimitReached
  | WebhooksUnavailable
  | Unauthorized
  | StorageError
  | InvalidClearinghouseSettings
  | ClearinghouseNotConfigured
  | ClearinghouseSettingsNotFound
  | ControlNumbersExhausted
  | BatchTransitionsRefused
  | X12BatchNotFound
  | X12FileNotFound
  | ClaimsNotExportable
  | InvalidExportRequest
  | X12ReadError
  | X12WriteError
  | InvalidConnectionInput
  | ConnectionNotFound
  | PickupNotFound
  | StatusCheckNotFound
  | StatusCheckSettingsNotFound
  | ClaimNotSubmitted
  | InvalidStatusCheckSettings
  | TaskNotFound
  | InvalidTaskChange
  | UserNotFound
  | InvalidUserInput
  | UserEmailTaken
  | SignInRefused
  | SignInLocked
  | WorkspaceRequired
  | PasswordChangeRequired
  | LastAdmin

/** One problem of a request, as problem+json's `errors` and the intake log list it (`FieldIssue`). */
export const FieldIssueDoc = Schema.Struct({
  ...FieldIssue.fields,
  path: FieldIssue.fields.path.annotations({
    description: "JSON path of the offending value, e.g. service_lines[0].diagnosis_pointers[1]; $ for the whole body"
  }),
  code: Schema.optionalWith(
    FieldIssueCode.annotations({
      description: `Absent on ordinary problems. too_many_problems: the last entry of a list cut at ${MAX_PROBLEMS} problems; its message says how many were found`
    }),
    { exact: true }
  )
}).annotations({ identifier: "FieldIssue" })

export const problemFields = {
  type: Schema.String,
  title: Schema.String,
  status: Schema.Number.pipe(Schema.int()),
  detail: Schema.String,
  code: Schema.String,
  errors: Schema.optional(Schema.Array(FieldIssueDoc)),
  request_id: Schema.String.annotations({ description: "Also in X-Request-Id and in the server's log line" })
}

/** RFC 9457 problem details, as every error answers: the schema of what `problemBody` makes. */
export const ProblemDetails = Schema.Struct(problemFields).annotations({
  identifier: "Problem",
  description: "RFC 9457 problem details"
})

/** The body of a problem answer. */
export type ProblemBody = typeof ProblemDetails.Type

export interface Problem {
  readonly status: number
  readonly code: string
  readonly title: string
  readonly detail: string
  readonly errors?: ReadonlyArray<FieldIssue>
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
    case "SessionRequired":
      return { status: 401, code: "session_required", title: "Sign-in required", detail: e.detail, headers: e.headers }
    case "CsrfRejected":
      return { status: 403, code: "csrf_failed", title: "Forbidden", detail: e.detail }
    case "Forbidden":
      return {
        status: 403,
        code: "forbidden",
        title: "Forbidden",
        detail: e.role === undefined ? `This API key lacks the scope ${e.scope}` : `The role ${e.role} may not do this (it needs ${e.scope})`
      }
    case "PasswordChangeRequired":
      return { status: 403, code: "password_change_required", title: "Password change required", detail: e.message }
    case "SignInRefused":
      return { status: 401, code: "sign_in_refused", title: "Sign-in refused", detail: e.message }
    case "SignInLocked":
      return {
        status: 429,
        code: "sign_in_locked",
        title: "Too many failed sign-ins",
        detail: e.message,
        headers: { "retry-after": String(e.retryAfterSeconds) }
      }
    case "WorkspaceRequired":
      return { status: 400, code: "workspace_required", title: "Workspace required", detail: e.message, errors: [{ path: "workspace", message: "is required for this email" }] }
    case "UserEmailTaken":
      return { status: 409, code: "email_taken", title: "Email taken", detail: e.message, errors: [{ path: "email", message: "is already a user of this workspace" }] }
    case "LastAdmin":
      return { status: 409, code: "last_admin", title: "Last admin", detail: e.message }
    case "EncounterNotFound":
    case "EventNotFound":
    case "IntakeRequestNotFound":
    case "ClaimNotFound":
    case "ClearinghouseSettingsNotFound":
    case "X12BatchNotFound":
    case "X12FileNotFound":
    case "WebhookEndpointNotFound":
    case "WebhookDeliveryNotFound":
    case "ConnectionNotFound":
    case "PickupNotFound":
    case "StatusCheckNotFound":
    case "StatusCheckSettingsNotFound":
    case "TaskNotFound":
    case "UserNotFound":
      return { status: 404, code: "not_found", title: "Not found", detail: e.message }
    case "ClaimNotSubmitted":
      return { status: 409, code: "not_submitted", title: "Claim not submitted", detail: e.message }
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
    case "InvalidCorrection":
      return {
        status: 409,
        code: "invalid_correction",
        title: "Invalid correction",
        detail: e.message,
        extra: { claim_id: e.claim_id, current_status: e.status, requested_action: e.action, allowed_actions: e.allowed }
      }
    case "BatchTransitionsRefused": {
      // The members of a single refused move describe the first claim; `errors` lists them all.
      const first = e.claims[0]
      return {
        status: 409,
        code: "invalid_transition",
        title: "Invalid status transition",
        detail: `${e.message}; nothing was sent or moved`,
        errors: e.claims.map((c) => ({
          path: `claims[${c.claim_id}].status`,
          message: `is ${c.from}, which cannot move to submitted_to_payer (allowed: ${c.allowed.length === 0 ? "none" : c.allowed.join(", ")})`
        })),
        extra: { claim_id: first?.claim_id ?? "", current_status: first?.from ?? "", requested_status: "submitted_to_payer", allowed_transitions: first?.allowed ?? [] }
      }
    }
    case "ClearinghouseNotConfigured":
      return { status: 409, code: "clearinghouse_not_configured", title: "Clearinghouse not configured", detail: e.message }
    case "WebhookEndpointLimitReached":
      return {
        status: 409,
        code: "webhook_endpoint_limit",
        title: "Webhook endpoint limit reached",
        detail: e.message,
        extra: { limit: e.limit, setting: "--webhook-max-endpoints" }
      }
    case "ControlNumbersExhausted":
      return { status: 409, code: "control_numbers_exhausted", title: "Control numbers exhausted", detail: e.message }
    case "ClaimsNotExportable":
      return {
        status: 422,
        code: "not_exportable",
        title: "Not exportable",
        detail: `${e.message}; nothing was sent or moved`,
        errors: e.claims.flatMap((c) => c.problems.map((p) => ({ path: `claims[${c.claim_id}].${p.field}`, message: p.message })))
      }
    case "X12WriteError":
      return { status: 422, code: "not_exportable", title: "Not exportable", detail: e.message, errors: [{ path: `${e.segment_id}${String(e.element).padStart(2, "0")}`, message: e.reason }] }
    case "InvalidExportRequest":
      return { status: 422, code: "validation_failed", title: "Validation failed", detail: e.message, errors: [{ path: e.field, message: e.reason }] }
    case "InvalidClearinghouseSettings":
      return {
        status: 422,
        code: "validation_failed",
        title: "Validation failed",
        detail: `${e.errors.length} problem(s) in the clearinghouse settings`,
        errors: e.errors
      }
    case "InvalidStatusCheckSettings":
      return { status: 422, code: "validation_failed", title: "Validation failed", detail: `${e.errors.length} problem(s) in the status check settings`, errors: e.errors }
    case "X12ReadError":
      return {
        status: 422,
        code: "invalid_x12",
        title: "Invalid X12",
        detail: `${e.reason} at segment ${e.position} (${e.segment_id}); nothing was applied`,
        errors: [{ path: `segment ${e.position} (${e.segment_id})`, message: e.reason }]
      }
    case "PayloadTooLarge":
      return { status: 413, code: "payload_too_large", title: "Payload too large", detail: `The body exceeds ${e.limit} bytes` }
    case "UnsupportedMediaType":
      return {
        status: 415,
        code: "unsupported_media_type",
        title: "Unsupported media type",
        detail: `Expected Content-Type ${e.expected}, received ${e.received === "" ? "none" : e.received}`
      }
    case "InvalidEncounter":
    case "InvalidStatusChange":
    case "InvalidWebhookInput":
    case "InvalidConnectionInput":
    case "InvalidTaskChange":
    case "InvalidUserInput":
    case "InvalidBody":
      return {
        status: 422,
        code: "validation_failed",
        title: "Validation failed",
        detail: bodyProblems(e.errors),
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
    case "ConsoleSessionsFull":
      return {
        status: 503,
        code: "console_sessions_full",
        title: "Too many console sessions",
        detail: `The server holds its limit of ${e.limit} console sessions; sign in again once some have ended`,
        headers: { "retry-after": "60" }
      }
    case "WebhooksUnavailable":
      return { status: 503, code: "webhooks_unavailable", title: "Webhooks unavailable", detail: e.message }
    case "StorageError": {
      // A store that cannot take the request now: retryable, and nothing of it was stored.
      const reason = e.unavailable
      if (reason === undefined) return internalProblem
      return {
        status: 503,
        code: "storage_unavailable",
        title: "Storage unavailable",
        detail: unavailableDetail[reason],
        headers: { "retry-after": reason === "busy" ? "1" : "5" }
      }
    }
  }
}

/** How many problems a body has, in words; a list cut at MAX_PROBLEMS says so. */
const bodyProblems = (errors: ReadonlyArray<FieldIssue>): string =>
  isCapped(errors) || errors.length > MAX_PROBLEMS
    ? `More than ${MAX_PROBLEMS} problems in the request body; the first ${MAX_PROBLEMS} are listed`
    : `${errors.length} problem(s) in the request body`

const unavailableDetail = {
  full: "The database or its disk is full; nothing of this request was stored. Retry once space is freed.",
  busy: "The database is locked by another process; nothing of this request was stored. Retry shortly.",
  unreachable: "The database cannot be reached; nothing of this request was stored. Retry shortly.",
  interrupted:
    "The connection to the database was lost while this request's changes were being committed: they may or may not have been stored. " +
    "Retry shortly (a repeated create answers with the stored encounter; a repeated status change changes nothing)."
} as const satisfies Record<UnavailableReason, string>

export const internalProblem: Problem = {
  status: 500,
  code: "internal",
  title: "Internal error",
  detail: "The request failed on the server; it has been logged"
}

const PROBLEM_TYPE = "https://encounterd.dev/problems/"

/** One problem of `errors` as JSON: its path and message, and its code when it has one. */
const issueJson = ({ path, message, code }: FieldIssue) => (code === undefined ? { path, message } : { path, message, code })

/**
 * The response body of a problem, with the request id that ties it to the server's log line. Its
 * `errors` are cut at MAX_PROBLEMS whatever failed (a validator cuts its own list first).
 */
export const problemBody = (p: Problem, requestId: string): ProblemBody & Readonly<Record<string, unknown>> => ({
  type: `${PROBLEM_TYPE}${p.code}`,
  title: p.title,
  status: p.status,
  detail: p.detail,
  code: p.code,
  ...(p.errors !== undefined ? { errors: capProblems(p.errors).map(issueJson) } : {}),
  ...p.extra,
  request_id: requestId
})
