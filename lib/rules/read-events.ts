import { Effect, Either, Option } from "effect"
import { EventNotFound, FieldIssue, InvalidQuery, StorageError } from "../domain/errors.js"
import { type Event, EventTypes, type FeedEvent, parseFeedEvent, toEvent } from "../domain/event.js"
import { EventId, isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, timeBound, toPage, tokenScope } from "../domain/page.js"
import { Storage } from "../ports/storage.js"

export interface EventListQuery {
  /** Event types; each entry may itself be a comma list. */
  readonly event_types?: ReadonlyArray<string> | undefined
  /** Inclusive bounds on `created_at`: ISO 8601 date-times. */
  readonly created_after?: string | undefined
  readonly created_before?: string | undefined
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/** The event of a feed row, its stored payload parsed; a stored payload that is not an EventPayload is a storage failure. */
const eventOf = (operation: string) => (row: FeedEvent): Effect.Effect<Event, StorageError> =>
  Either.match(parseFeedEvent(row), {
    onLeft: (cause) => Effect.fail(new StorageError({ operation, cause })),
    onRight: (stored) => Effect.succeed(toEvent(stored))
  })

/**
 * Events oldest first in recorded order, filtered by type and inclusive time bounds, keyset-paged:
 * a poller that follows `next_page_token` never misses or repeats an event. The items are the feed
 * rows, payloads as stored JSON text (`eventJson` renders one); `listEvents` parses them.
 */
export const listEventFeed = (workspaceId: WorkspaceId, query: EventListQuery) => Effect.gen(() => listEventFeedGen(workspaceId, query))

function* listEventFeedGen(workspaceId: WorkspaceId, query: EventListQuery) {
  const issues: Array<FieldIssue> = []
  const limit = yield* checkLimit(query.limit)
  const types = (query.event_types ?? []).flatMap((t) => t.split(",")).map((t) => t.trim()).filter((t) => t !== "")
  const unknown = types.filter((t) => !(EventTypes as ReadonlyArray<string>).includes(t))
  if (unknown.length > 0) {
    issues.push(new FieldIssue({ path: "event_types", message: `must be among ${EventTypes.join(", ")}` }))
  }
  const after = timeBound("created_after", query.created_after)
  const before = timeBound("created_before", query.created_before)
  if (Array.isArray(after)) issues.push(...after)
  if (Array.isArray(before)) issues.push(...before)
  if (issues.length > 0) return yield* new InvalidQuery({ errors: issues })
  const eventTypes = types.length === 0 ? undefined : [...new Set(types)].sort()
  const createdAfter = typeof after === "string" ? after : undefined
  const createdBefore = typeof before === "string" ? before : undefined
  const scope = tokenScope([workspaceId, "events", eventTypes ?? null, createdAfter ?? null, createdBefore ?? null])
  const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
  const storage = yield* Storage
  const rows = yield* storage.listEvents(workspaceId, {
    event_types: eventTypes,
    created_after: createdAfter,
    created_before: createdBefore,
    position,
    limit
  })
  return toPage(rows, limit, position, (e) => [e.seq], scope, (e) => e)
}

/** `listEventFeed` with each event's payload parsed. */
export const listEvents = (workspaceId: WorkspaceId, query: EventListQuery) =>
  Effect.flatMap(listEventFeed(workspaceId, query), (page) =>
    Effect.map(Effect.forEach(page.items, eventOf("listEvents")), (items) => ({ ...page, items }))
  )

/** One event of the workspace as a feed row; unknown, malformed or another workspace's id is not found. */
export const getFeedEvent = (workspaceId: WorkspaceId, id: string) => Effect.gen(() => getFeedEventGen(workspaceId, id))

function* getFeedEventGen(workspaceId: WorkspaceId, id: string) {
  if (!isUuid(id)) return yield* new EventNotFound({ id })
  const storage = yield* Storage
  const found = yield* storage.findEvent(workspaceId, EventId.make(id))
  if (Option.isNone(found)) return yield* new EventNotFound({ id })
  return found.value
}

/** `getFeedEvent` with the payload parsed. */
export const getEvent = (workspaceId: WorkspaceId, id: string) => Effect.flatMap(getFeedEvent(workspaceId, id), eventOf("findEvent"))
