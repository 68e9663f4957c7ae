import { Schema } from "effect"

/**
 * The codes a problem may carry beside its message. Ordinary problems carry none (their path and
 * message say it all); `too_many_problems` closes a list cut at `MAX_PROBLEMS` (problems.ts).
 */
export const FieldIssueCode = Schema.Literal("too_many_problems")
export type FieldIssueCode = typeof FieldIssueCode.Type

/** One problem in a request, located by its JSON path (`service_lines[0].diagnosis_pointers`). */
export class FieldIssue extends Schema.Class<FieldIssue>("FieldIssue")({
  path: Schema.String,
  message: Schema.String,
  code: Schema.optionalWith(FieldIssueCode, { exact: true })
}) {}

/** A problem as plain JSON (stored in the intake log, answered in problem+json): FieldIssue's fields. */
export const FieldIssueJson = Schema.Struct(FieldIssue.fields)
export type FieldIssueJson = typeof FieldIssueJson.Type

/** The create payload broke one or more rules; every problem is listed. */
export class InvalidEncounter extends Schema.TaggedError<InvalidEncounter>()("InvalidEncounter", {
  errors: Schema.Array(FieldIssue)
}) {
  override get message() {
    return `The encounter is invalid: ${this.errors.length} problem(s)`
  }
}

/** A query parameter (limit, filter, time bound, page token) is malformed or out of range. */
export class InvalidQuery extends Schema.TaggedError<InvalidQuery>()("InvalidQuery", {
  errors: Schema.Array(FieldIssue)
}) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

/** A status move's request breaks a rule (its note is too long); every problem is listed. */
export class InvalidStatusChange extends Schema.TaggedError<InvalidStatusChange>()("InvalidStatusChange", {
  errors: Schema.Array(FieldIssue)
}) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

export class EncounterNotFound extends Schema.TaggedError<EncounterNotFound>()("EncounterNotFound", {
  id: Schema.String
}) {
  override get message() {
    return "No such encounter in this workspace"
  }
}

export class ClaimNotFound extends Schema.TaggedError<ClaimNotFound>()("ClaimNotFound", {
  id: Schema.String
}) {
  override get message() {
    return "No such claim in this workspace"
  }
}

export class IntakeRequestNotFound extends Schema.TaggedError<IntakeRequestNotFound>()("IntakeRequestNotFound", {
  id: Schema.String
}) {
  override get message() {
    return "No such intake request in this workspace"
  }
}

export class EventNotFound extends Schema.TaggedError<EventNotFound>()("EventNotFound", {
  id: Schema.String
}) {
  override get message() {
    return "No such event in this workspace"
  }
}

/** The claim cannot move from its current status to the requested one. */
export class InvalidTransition extends Schema.TaggedError<InvalidTransition>()("InvalidTransition", {
  claim_id: Schema.String,
  from: Schema.String,
  to: Schema.String,
  allowed: Schema.Array(Schema.String)
}) {
  override get message() {
    const allowed = this.allowed.length === 0 ? "none (terminal status)" : this.allowed.join(", ")
    return `A claim in status ${this.from} cannot move to ${this.to}; allowed: ${allowed}`
  }
}

export class WorkspaceNotFound extends Schema.TaggedError<WorkspaceNotFound>()("WorkspaceNotFound", {
  slug: Schema.String
}) {
  override get message() {
    return `No workspace with slug ${this.slug}`
  }
}

export class SlugTaken extends Schema.TaggedError<SlugTaken>()("SlugTaken", {
  slug: Schema.String
}) {
  override get message() {
    return `A workspace with slug ${this.slug} already exists`
  }
}

export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", {
  id: Schema.String
}) {
  override get message() {
    return `No API key ${this.id}`
  }
}

/**
 * A key id was asked for and an API key itself was given (`eik_…`, as `keys create` printed it).
 * `key_id` is the id of the key it is, when it is a stored one. The key is never quoted back.
 */
export class ApiKeyGivenForId extends Schema.TaggedError<ApiKeyGivenForId>()("ApiKeyGivenForId", {
  key_id: Schema.NullOr(Schema.String)
}) {
  override get message() {
    return this.key_id === null
      ? "This is an API key (eik_…), not a key id, and no such key is stored; key ids are listed by keys list --workspace SLUG"
      : `This is an API key (eik_…), not a key id; its id is ${this.key_id}`
  }
}

/** The presented key is missing, malformed, unknown or revoked. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/**
 * Why a store could not take a request now: its disk or database is full; it is locked past the
 * busy timeout; it cannot be reached or is restarting (nothing of the request was stored); or the
 * connection was lost while the request's changes were being committed, so they may or may not
 * have been stored ("interrupted").
 */
export const UnavailableReason = Schema.Literal("full", "busy", "unreachable", "interrupted")
export type UnavailableReason = typeof UnavailableReason.Type

/**
 * The storage failed; the cause is logged, never shown to callers. `unavailable`, set by the
 * adapter that knows its driver's errors, tells a store that could not take the request now (worth
 * retrying) from one that failed.
 */
export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", {
  operation: Schema.String,
  cause: Schema.Defect,
  unavailable: Schema.optional(UnavailableReason)
}) {
  override get message() {
    return `Storage failed during ${this.operation}`
  }
}

/** The body is not JSON. */
export class InvalidJson extends Schema.TaggedError<InvalidJson>()("InvalidJson", {
  detail: Schema.String
}) {
  override get message() {
    return `The body is not valid JSON: ${this.detail}`
  }
}

/** Another claim of this workspace already has the patient control number the payload brings. */
export class PatientControlNumberTaken extends Schema.TaggedError<PatientControlNumberTaken>()(
  "PatientControlNumberTaken",
  { patient_control_number: Schema.String }
) {
  override get message() {
    return `Patient control number ${this.patient_control_number} is already used in this workspace`
  }
}

/** The database could not be opened (a path that cannot be created, a file that is not a database, ...). */
export class DatabaseUnusable extends Schema.TaggedError<DatabaseUnusable>()("DatabaseUnusable", {
  database: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cannot use the database ${this.database}: ${this.reason}`
  }
}

/**
 * A database that had to exist is not there (a store opened with `mustExist`): nothing was
 * created. A mistyped path must not become a new, empty database.
 */
export class DatabaseMissing extends Schema.TaggedError<DatabaseMissing>()("DatabaseMissing", {
  database: Schema.String
}) {
  override get message() {
    return `No database at ${this.database}; nothing was created`
  }
}

/** A backup could not be written, or its copy failed the integrity check. */
export class BackupFailed extends Schema.TaggedError<BackupFailed>()("BackupFailed", {
  out: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cannot back up to ${this.out}: ${this.reason}`
  }
}

/** The system's own words for a failure (`SQLITE_CANTOPEN: unable to open database file`, `ENOENT ...`). */
export const reasonOf = (cause: unknown): string => {
  if (cause instanceof Error) {
    // Node's own messages already begin with their code (`ENOENT: no such file ...`); SQLite's do not.
    const code = "code" in cause && typeof cause.code === "string" && !cause.message.startsWith(cause.code) ? `${cause.code}: ` : ""
    return `${code}${cause.message}`
  }
  return String(cause)
}
