import { Either, Schema } from "effect"
import { EventId, WorkspaceId } from "./ids.js"
import type { Page } from "./page.js"

export const EventTypes = [
  "ExternalApi.Encounter.Created",
  "ExternalApi.Encounter.StatusUpdated",
  "ExternalApi.Task.Created",
  "ExternalApi.Task.Updated"
] as const
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
  event_type: Schema.String.annotations({ jsonSchema: { type: "string", enum: EventTypes } }),
  schema_version: Schema.String.annotations({ jsonSchema: { type: "string", enum: [SCHEMA_VERSION] } }),
  payload: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}).annotations({ identifier: "Event" })
export type Event = typeof Event.Type

/**
 * Created: `{encounter_id, external_id, claim_id, status}`; StatusUpdated adds `previous_status` (and `note` when given).
 * Task.Created and Task.Updated: the task's claim and its `status`, with `task_id`, `task_type` and
 * `task_category` (Updated adds `previous_status`, and `note`: why it changed).
 */
export const EventPayload = Schema.Struct({
  encounter_id: Schema.String,
  external_id: Schema.String,
  claim_id: Schema.String,
  status: Schema.String,
  previous_status: Schema.optional(Schema.String),
  note: Schema.optional(Schema.String),
  task_id: Schema.optional(Schema.String),
  task_type: Schema.optional(Schema.String),
  task_category: Schema.optional(Schema.String)
})
export type EventPayload = typeof EventPayload.Type

/** A stored event. */
export const EventRecord = Schema.Struct({
  id: EventId,
  workspace_id: WorkspaceId,
  event_type: EventType,
  created_at: Schema.String,
  timestamp: Schema.String,
  payload: EventPayload
})
export type EventRecord = typeof EventRecord.Type

/** An event as read back: `seq` is assigned by storage and orders the feed in recorded order. */
export const StoredEvent = Schema.Struct({ seq: Schema.Number, ...EventRecord.fields })
export type StoredEvent = typeof StoredEvent.Type

/**
 * A stored event's payload as the JSON text it was stored as: `JSON.stringify` of an
 * `EventPayload`. Reads hand it on as text, so an event page is spliced rather than parsed and
 * serialised again.
 */
export const PayloadJson = Schema.String.pipe(
  Schema.filter((s) => s.startsWith("{") && s.endsWith("}"), { message: () => "a JSON object" }),
  Schema.brand("PayloadJson")
)
export type PayloadJson = typeof PayloadJson.Type

/** An event as storage reads it back for the feed: the stored event with its payload as stored text. */
export const FeedEvent = Schema.Struct({ ...StoredEvent.fields, payload: PayloadJson })
export type FeedEvent = typeof FeedEvent.Type

/** The feed's form of a stored event (the text every SQL adapter stores). */
export const toFeedEvent = (e: StoredEvent): FeedEvent => ({ ...e, payload: PayloadJson.make(JSON.stringify(e.payload)) })

/**
 * `e` as an adapter keeps it for reads to come: the same event, with its workspace id the one
 * given (the workspace it was read in, one string for all its events), its type the literal of
 * `EventTypes`, and `timestamp` the same string as `created_at` when they are equal (they are but
 * for backdated imports). A row read from SQL holds a string of its own for each column: 10,000
 * events kept held 11.8 MB of heap, 9.5 MB so.
 */
export const compactFeedEvent = (e: FeedEvent, workspaceId: string): FeedEvent => ({
  ...e,
  workspace_id: e.workspace_id === workspaceId ? WorkspaceId.make(workspaceId) : e.workspace_id,
  event_type: EventTypes.find((t) => t === e.event_type) ?? e.event_type,
  timestamp: e.timestamp === e.created_at ? e.created_at : e.timestamp
})

const decodePayload = Schema.decodeUnknownEither(Schema.parseJson(EventPayload))

/** A feed event with its payload parsed; a payload that is not an EventPayload fails with the parse error. */
export const parseFeedEvent = (e: FeedEvent) => Either.map(decodePayload(e.payload), (payload): StoredEvent => ({ ...e, payload }))

/** A JSON string literal; text without characters JSON escapes (ids, ISO times, event types) is only wrapped in quotes. */
const PLAIN = /^[\w:.+-]*$/
const quoted = (s: string): string => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s))

/** The event's JSON up to its payload: every member but the payload's text, which follows it, and the closing brace. */
const envelopeOf = (e: FeedEvent): string =>
  `{"id":${quoted(e.id)},"created_at":${quoted(e.created_at)},"timestamp":${quoted(e.timestamp)},"event_type":${quoted(e.event_type)},"schema_version":"${SCHEMA_VERSION}","payload":`

/**
 * The envelope of each feed event object rendered so far, for as long as the object lives: an
 * adapter that keeps the events it read (they never change) has each one rendered once. Only the
 * envelope is kept, not the whole text: the payload, most of it, is the object's own text already.
 */
const envelopes = new WeakMap<FeedEvent, string>()

const envelope = (e: FeedEvent): string => {
  let text = envelopes.get(e)
  if (text === undefined) {
    text = envelopeOf(e)
    envelopes.set(e, text)
  }
  return text
}

/**
 * The event's JSON as callers read it, spliced from the stored payload text: byte for byte
 * `JSON.stringify(toEvent(record))` (the same keys in the same order; the stored text is the
 * compact `JSON.stringify` of the payload, so parsing and serialising it again answers it unchanged).
 */
export const eventJson = (e: FeedEvent): string => `${envelope(e)}${e.payload}}`

/** A page of events as JSON text: `JSON.stringify` of the page of `toEvent`s, spliced from each event's envelope and payload (joined once, so the text is flat). */
export const eventPageJson = (page: Page<FeedEvent>): string => {
  const out: Array<string> = ['{"items":[']
  page.items.forEach((e, i) => {
    if (i > 0) out.push(",")
    out.push(envelope(e), e.payload, "}")
  })
  out.push(`],"next_page_token":${JSON.stringify(page.next_page_token)},"prev_page_token":${JSON.stringify(page.prev_page_token)}}`)
  return out.join("")
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
