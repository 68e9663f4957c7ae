import { Effect, Schema } from "effect"
import { boundedList } from "../../lib/domain/bounded-list.js"
import { ClaimStatus } from "../../lib/domain/claim-status.js"
import { Event, eventJson, eventPageJson } from "../../lib/domain/event.js"
import { isKnownEncounter, type ListedEncounter } from "../../lib/domain/encounter.js"
import type { StorageError } from "../../lib/domain/errors.js"
import type { Storage } from "../../lib/ports/storage.js"
import { makeItemPageAssembler, Page } from "../../lib/domain/page.js"
import { getEncounter, listHeldEncounters } from "../../lib/rules/read-encounters.js"
import { withAllClaims } from "../../lib/rules/encounter-claims.js"
import { getFeedEvent, listEventFeed } from "../../lib/rules/read-events.js"
import { compatJson, compatPageJson, compatRenders } from "../compat/rendered.js"
import { PAGES_KEPT } from "../rendered.js"
import { CompatEncounter } from "../compat/schema.js"
import { authed, json, NoQuery, raw, text } from "../route.js"
import { Limit, PageToken, problems } from "./shared.js"

const CompatEncounterPage = Page(CompatEncounter).annotations({ identifier: "CompatEncounterPage" })

const ListQuery = Schema.Struct({
  external_id: Schema.optional(Schema.String),
  claim_status: Schema.optional(ClaimStatus),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(PageToken)
})

export const compatListRoute = authed(
  {
    method: "GET",
    path: "/api/encounters/compat-version",
    operationId: "listCompatEncounters",
    audit: { action: "encounter.list", resource: "encounter" },
    tag: "Compat",
    summary: "List encounters in the vendor's v4 shape, newest first",
    query: ListQuery,
    responses: { 200: { description: "An encounter page", schema: CompatEncounterPage }, ...problems(400, 401, 429) }
  },
  ({ principal, query, config }) =>
    Effect.map(
      Effect.flatMap(listHeldEncounters(principal.workspace.id, query, "all", compatRenders.held(query.page_token, config.publicUrl)), (page) =>
        Effect.map(
          // A kept render already holds every claim; the rows read need theirs.
          Effect.forEach(page.items, (item): Effect.Effect<ListedEncounter<Uint8Array<ArrayBuffer>>, StorageError, Storage> =>
            isKnownEncounter(item) ? Effect.succeed(item) : withAllClaims(principal.workspace.id, item)
          ),
          (items) => ({ ...page, items })
        )
      ),
      (page) => raw(200, "application/json", compatPageJson(page, config.publicUrl))
    )
)

/** The most times `event_types` may be repeated (each may itself be a comma list). */
const MAX_EVENT_TYPES_PARAMETERS = 100

const EventTypesParam = Schema.Union(Schema.String, boundedList(Schema.String, MAX_EVENT_TYPES_PARAMETERS)).annotations({
  description: `Event types: a comma list, or the parameter repeated (at most ${MAX_EVENT_TYPES_PARAMETERS} times)`,
  message: () => `must be a comma list of event types, or the parameter repeated at most ${MAX_EVENT_TYPES_PARAMETERS} times`
})
const EventQuery = Schema.Struct({
  event_types: Schema.optional(EventTypesParam),
  created_after: Schema.optional(Schema.String.annotations({ description: "ISO 8601 date-time; inclusive" })),
  created_before: Schema.optional(Schema.String.annotations({ description: "ISO 8601 date-time; inclusive" })),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(PageToken)
})

/**
 * Event pages as UTF-8, the same buffer again for a page of the same events (`makeItemPageAssembler`):
 * events never change, and the SQLite adapter hands back the events it keeps as the same objects,
 * so the feed's head polled over and over is one buffer until an event is added.
 */
const eventPages = makeItemPageAssembler(PAGES_KEPT)

export const compatEventsRoute = authed(
  {
    method: "GET",
    path: "/api/encounters/compat-version/events",
    operationId: "listEvents",
    audit: { action: "event.list", resource: "event" },
    tag: "Events",
    summary: "Poll events, oldest first in recorded order",
    description: "created_after and created_before are inclusive. event_types takes a comma list or the parameter repeated.",
    query: EventQuery,
    responses: { 200: { description: "An event page", schema: Page(Event).annotations({ identifier: "EventPage" }) }, ...problems(400, 401, 429) }
  },
  ({ principal, query }) =>
    Effect.map(
      listEventFeed(principal.workspace.id, {
        ...query,
        event_types: query.event_types === undefined ? undefined : typeof query.event_types === "string" ? [query.event_types] : query.event_types
      }),
      (page) => raw(200, "application/json", eventPages(page, eventPageJson))
    )
)

export const compatEventRoute = authed(
  {
    method: "GET",
    path: "/api/encounters/compat-version/events/{event_id}",
    operationId: "getEvent",
    audit: { action: "event.read", resource: "event", idParam: "event_id" },
    tag: "Events",
    summary: "Read one event by id",
    query: NoQuery,
    responses: { 200: { description: "The event", schema: Event }, ...problems(401, 404, 429) }
  },
  ({ principal, params }) => Effect.map(getFeedEvent(principal.workspace.id, params.event_id ?? ""), (e) => text(200, eventJson(e), "application/json"))
)

export const compatGetRoute = authed(
  {
    method: "GET",
    path: "/api/encounters/compat-version/{encounter_id}",
    operationId: "getCompatEncounter",
    audit: { action: "encounter.read", resource: "encounter", idParam: "encounter_id" },
    tag: "Compat",
    summary: "Read one encounter in the vendor's v4 shape",
    query: NoQuery,
    responses: { 200: { description: "The encounter", schema: CompatEncounter }, ...problems(401, 404, 429) }
  },
  ({ principal, params, config }) =>
    Effect.map(
      Effect.flatMap(getEncounter(principal.workspace.id, params.encounter_id ?? ""), (row) => withAllClaims(principal.workspace.id, row)),
      (row) => raw(200, "application/json", compatJson(row, config.publicUrl))
    )
)
