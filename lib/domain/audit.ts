import { Schema } from "effect"
import { WorkspaceId } from "./ids.js"

/**
 * The audit log: who read or changed which patient data, when, from where and with what outcome.
 * An entry names the resource by its type and id, never its content: no names, dates of birth,
 * bodies or query values reach it.
 */
export const AuditActorKind = Schema.Literal("key", "user")
export type AuditActorKind = typeof AuditActorKind.Type

/** `ok`: answered; `denied`: refused for the caller's scope or role; `not_found`; `failed`: any other refusal or error. */
export const AuditOutcomes = ["ok", "denied", "not_found", "failed"] as const
export const AuditOutcome = Schema.Literal(...AuditOutcomes)
export type AuditOutcome = typeof AuditOutcome.Type

/**
 * The kinds of patient data an entry may name. `encounter`, `claim`: one record (its id), or their
 * list (no id). `intake_request`: the intake log's raw requests, which hold bodies as received.
 * `x12_file`, `x12_batch`: file contents (and what a file did). `remittance`: a claim's payments
 * (the claim's id). `event`: the event feed, whose payloads name encounters. `audit`: reads of the
 * log itself. `user`: the workspace's users (administration). `retention`: how long raw requests
 * and audit entries are kept.
 */
export const AuditResourceTypes = [
  "encounter",
  "claim",
  "intake_request",
  "x12_file",
  "x12_batch",
  "remittance",
  "event",
  "audit",
  "user",
  "status_check",
  "task",
  "retention"
] as const
export const AuditResourceType = Schema.Literal(...AuditResourceTypes)
export type AuditResourceType = typeof AuditResourceType.Type

/** An entry as stored: flat columns, so that each filter has its index. */
export const AuditRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  at: Schema.String,
  actor_kind: AuditActorKind,
  actor_id: Schema.String,
  /** The user's email, or the key's prefix (`eik_abcd…`): never the key. */
  actor_name: Schema.String,
  /** What was done, `<verb>` or `<resource>.<verb>`: `encounter.read`, `encounter.list`, `claim.status`, `x12_file.read`, ... */
  action: Schema.String,
  resource_type: AuditResourceType,
  /** The record's id; null for a list or search. */
  resource_id: Schema.NullOr(Schema.String),
  client_ip: Schema.NullOr(Schema.String),
  request_id: Schema.NullOr(Schema.String),
  outcome: AuditOutcome
})
export type AuditRecord = typeof AuditRecord.Type

/** What `GET /api/audit` and `audit export` show of an entry. */
export const AuditEntry = Schema.Struct({
  id: Schema.String,
  at: Schema.String,
  actor: Schema.Struct({ kind: AuditActorKind, id: Schema.String, name: Schema.String }),
  action: Schema.String,
  resource: Schema.Struct({ type: AuditResourceType, id: Schema.NullOr(Schema.String) }),
  workspace_id: WorkspaceId,
  client_ip: Schema.NullOr(Schema.String),
  request_id: Schema.NullOr(Schema.String),
  outcome: AuditOutcome
})
export type AuditEntry = typeof AuditEntry.Type

export const toAuditEntry = (r: AuditRecord): AuditEntry => ({
  id: r.id,
  at: r.at,
  actor: { kind: r.actor_kind, id: r.actor_id, name: r.actor_name },
  action: r.action,
  resource: { type: r.resource_type, id: r.resource_id },
  workspace_id: r.workspace_id,
  client_ip: r.client_ip,
  request_id: r.request_id,
  outcome: r.outcome
})

/** Who acted: a key (its id and prefix) or a user (id and email). */
export interface AuditActor {
  readonly kind: AuditActorKind
  readonly id: string
  readonly name: string
}

/** What one request did to patient data, before the time and id are given. */
export interface AuditFact {
  readonly workspaceId: WorkspaceId
  readonly actor: AuditActor
  readonly action: string
  readonly resourceType: AuditResourceType
  readonly resourceId: string | null
  readonly clientIp: string | null
  readonly requestId: string | null
  readonly outcome: AuditOutcome
}

/** The audit log is kept at least this long by default (HIPAA's documentation retention: 6 years). */
export const DEFAULT_AUDIT_DAYS = 6 * 366
