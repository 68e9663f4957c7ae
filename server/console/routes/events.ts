import { Effect, Schema } from "effect"
import { listEvents } from "../../../lib/rules/read-events.js"
import { json } from "../../route.js"
import { Limit } from "../../routes/shared.js"
import { sessionRoute } from "../route.js"

const EventsQuery = Schema.Struct({
  event_type: Schema.optional(Schema.String),
  created_after: Schema.optional(Schema.String),
  created_before: Schema.optional(Schema.String),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(Schema.String)
})

/** The workspace's event feed, oldest first in recorded order (the keyset order of the feed). */
export const consoleEventsRoute = sessionRoute(
  { method: "GET", path: "/console/api/events", audit: { action: "event.list", resource: "event" }, summary: "The event feed, oldest first", query: EventsQuery },
  ({ principal: caller, query }) =>
    Effect.map(
      listEvents(caller.principal.workspace.id, {
        event_types: query.event_type ? [query.event_type] : undefined,
        created_after: query.created_after || undefined,
        created_before: query.created_before || undefined,
        limit: query.limit,
        page_token: query.page_token
      }),
      (page) => json(200, page)
    )
)
