import { Schema } from "effect"
import { EventId, WorkspaceId } from "./ids.js"

export const EventTypes = ["ExternalApi.Encounter.Created", "ExternalApi.Encounter.StatusUpdated"] as const
export const EventType = Schema.Literal(...EventTypes)
export type EventType = typeof EventType.Type

export const SCHEMA_VERSION = "service.compat-version.v1"

/**
 * An event as callers read it. `timestamp` is when the change happened, `created_at` when it was
 * recorded (one transaction: equal today, kept apart for imports that backdate).
 */
export const Event = Schema.Struct({
  id: EventId,
  created_at: Schema.String,
  timestamp: Schema.String,
  event_type: Schema.String,
  schema_version: Schema.String,
  payload: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type Event = typeof Event.Type

/** Created: `{encounter_id, external_id, claim_id, status}`; StatusUpdated adds `previous_status`. */
export interface EventPayload {
  readonly encounter_id: string
  readonly external_id: string
  readonly claim_id: string
  readonly status: string
  readonly previous_status?: string
  readonly note?: string
}

/** A stored event; `seq` is assigned by storage and orders the feed in recorded order. */
export interface EventRecord {
  readonly id: EventId
  readonly workspace_id: WorkspaceId
  readonly event_type: EventType
  readonly created_at: string
  readonly timestamp: string
  readonly payload: EventPayload
}
export interface StoredEvent extends EventRecord {
  readonly seq: number
}

export const toEvent = (e: EventRecord): Event => ({
  id: e.id,
  created_at: e.created_at,
  timestamp: e.timestamp,
  event_type: e.event_type,
  schema_version: SCHEMA_VERSION,
  payload: { ...e.payload }
})

/**
 * When an event is recorded: its own time, or the workspace's previous event's if that is later
 * (ISO strings of one format compare as times). Keeps `created_at` in recorded order.
 */
export const recordedAt = (own: string, previous: string | undefined): string =>
  previous !== undefined && previous > own ? previous : own
