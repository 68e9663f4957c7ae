import { Schema } from "effect"
import type { EncounterRecord, EncounterWithClaim, RawOutcome, StoredRawRequest } from "../../domain/encounter.js"
import type { EncounterCreate } from "../../domain/encounter-input.js"
import { EventType, type EventPayload, type StoredEvent } from "../../domain/event.js"
import { ApiKeyId, ClaimId, EncounterId, EventId, RawRequestId, WorkspaceId } from "../../domain/ids.js"
import { type ApiKeyRecord, Scope, type Workspace } from "../../domain/workspace.js"

/**
 * Row schemas of the SQL adapter. JSON columns hold what this service wrote itself, already
 * validated on the way in: they are parsed and checked for shape, not decoded field by field again.
 */
const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const JsonObject = <A extends object>(guard: (u: Record<string, unknown>) => u is A & Record<string, unknown>) =>
  Schema.parseJson(Schema.declare((u: unknown): u is A => isRecord(u) && guard(u)))

const isPayload = (u: Record<string, unknown>): u is EncounterCreate & Record<string, unknown> =>
  typeof u.external_id === "string" && typeof u.patient === "object"
const isEventPayload = (u: Record<string, unknown>): u is EventPayload & Record<string, unknown> =>
  typeof u.encounter_id === "string" && typeof u.status === "string"
const isOutcome = (u: Record<string, unknown>): u is RawOutcome & Record<string, unknown> =>
  u.outcome === "accepted" || u.outcome === "duplicate" || u.outcome === "rejected"

/** SQLite answers integers as numbers, PostgreSQL BIGINT as strings: accept both. */
const Seq = Schema.Union(Schema.Number, Schema.NumberFromString)

export const WorkspaceRow = Schema.Struct({ id: WorkspaceId, slug: Schema.String, name: Schema.String })
export const toWorkspace = (r: typeof WorkspaceRow.Type): Workspace => r

export const ApiKeyRow = Schema.Struct({
  id: ApiKeyId,
  workspace_id: WorkspaceId,
  hash: Schema.String,
  prefix: Schema.String,
  scopes: Schema.parseJson(Schema.Array(Scope)),
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
})
export const toApiKey = (r: typeof ApiKeyRow.Type): ApiKeyRecord => r

export const ApiKeyWithWorkspaceRow = Schema.Struct({
  ...ApiKeyRow.fields,
  ws_slug: Schema.String,
  ws_name: Schema.String
})

export const RawRequestRow = Schema.Struct({
  id: RawRequestId,
  workspace_id: WorkspaceId,
  key_id: Schema.NullOr(Schema.String),
  received_at: Schema.String,
  content_type: Schema.String,
  body: Schema.Uint8ArrayFromSelf,
  result: Schema.NullOr(JsonObject(isOutcome))
})
export const toRawRequest = (r: typeof RawRequestRow.Type): StoredRawRequest => r

/** An encounter joined with its latest claim (claim columns prefixed `c_`). */
export const EncounterRow = Schema.Struct({
  id: EncounterId,
  workspace_id: WorkspaceId,
  external_id: Schema.String,
  created_at: Schema.String,
  source: Schema.String,
  payload: JsonObject(isPayload),
  latest_claim_id: ClaimId,
  initial_claim_status: Schema.String,
  initial_patient_control_number: Schema.String,
  last_event_at: Schema.String,
  c_id: ClaimId,
  c_created_at: Schema.String,
  c_status: Schema.String,
  c_status_changed_at: Schema.String,
  c_patient_control_number: Schema.String
})
export const toEncounterWithClaim = (r: typeof EncounterRow.Type): EncounterWithClaim => {
  const encounter: EncounterRecord = {
    id: r.id,
    workspace_id: r.workspace_id,
    external_id: r.external_id,
    created_at: r.created_at,
    source: r.source,
    payload: r.payload,
    latest_claim_id: r.latest_claim_id,
    initial_claim_status: r.initial_claim_status,
    initial_patient_control_number: r.initial_patient_control_number,
    last_event_at: r.last_event_at
  }
  return {
    encounter,
    claim: {
      id: r.c_id,
      workspace_id: r.workspace_id,
      encounter_id: r.id,
      created_at: r.c_created_at,
      status: r.c_status,
      status_changed_at: r.c_status_changed_at,
      patient_control_number: r.c_patient_control_number
    }
  }
}

export const EventRow = Schema.Struct({
  seq: Seq,
  id: EventId,
  workspace_id: WorkspaceId,
  event_type: EventType,
  created_at: Schema.String,
  timestamp: Schema.String,
  payload: JsonObject(isEventPayload)
})
export const toStoredEvent = (r: typeof EventRow.Type): StoredEvent => r

export const IdRow = Schema.Struct({ id: Schema.String })

export const CreatedAtRow = Schema.Struct({ created_at: Schema.String })
