import { Effect, Either } from "effect"
import type { EncounterRecord } from "../domain/encounter.js"
import { type Event, parseFeedEvent, toEvent } from "../domain/event.js"
import type { WorkspaceId } from "../domain/ids.js"
import type { Position } from "../domain/page.js"
import { Storage } from "../ports/storage.js"

export interface Timeline {
  readonly events: ReadonlyArray<Event>
  /** False when only the most recent of the encounter's events were found (see below). */
  readonly complete: boolean
}

const PAGE = 100
const MAX_PAGES = 10

/**
 * An encounter's events, oldest first. The storage port has no encounter filter on events, so this
 * walks the workspace's feed backward from its newest event (an index range on the recorded order,
 * never a filter scan) and keeps the events that name the encounter, until it passes the
 * encounter's creation: recorded times never decrease along the feed, so nothing of it lies
 * further back. The walk reads at most MAX_PAGES pages: an encounter followed by more of the
 * workspace's events than that shows its most recent events only.
 */
export const encounterTimeline = (workspaceId: WorkspaceId, encounter: EncounterRecord) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const newestFirst: Array<Event> = []
    let position: Position = { dir: "prev", key: [Number.MAX_SAFE_INTEGER] }
    for (let page = 0; page < MAX_PAGES; page++) {
      const rows = yield* storage.listEvents(workspaceId, { position, limit: PAGE })
      const taken = rows.slice(0, PAGE)
      for (const row of taken) {
        if (row.created_at < encounter.created_at) return { events: newestFirst.reverse(), complete: true } satisfies Timeline
        const event = parseFeedEvent(row)
        if (Either.isRight(event) && event.right.payload.encounter_id === encounter.id) newestFirst.push(toEvent(event.right))
      }
      const oldest = taken[taken.length - 1]
      if (rows.length <= PAGE || oldest === undefined) return { events: newestFirst.reverse(), complete: true } satisfies Timeline
      position = { dir: "prev", key: [oldest.seq] }
    }
    return { events: newestFirst.reverse(), complete: false } satisfies Timeline
  })
