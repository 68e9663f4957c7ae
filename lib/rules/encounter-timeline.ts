import { Effect } from "effect"
import type { EncounterRecord } from "../domain/encounter.js"
import { type Event, toEvent } from "../domain/event.js"
import type { WorkspaceId } from "../domain/ids.js"
import { Storage } from "../ports/storage.js"

export interface Timeline {
  readonly events: ReadonlyArray<Event>
}

const PAGE = 500

/**
 * An encounter's events, oldest first, complete: read from the encounter's own range of the
 * events index (workspace, encounter, recorded order), a page at a time until the last. The cost
 * is the encounter's own events, whatever else the workspace's feed holds.
 */
export const encounterTimeline = (workspaceId: WorkspaceId, encounter: EncounterRecord) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const events: Array<Event> = []
    let after: number | undefined
    for (;;) {
      const rows = yield* storage.listEncounterEvents(workspaceId, encounter.id, { after, limit: PAGE })
      const taken = rows.slice(0, PAGE)
      for (const row of taken) events.push(toEvent(row))
      const last = taken[taken.length - 1]
      if (rows.length <= PAGE || last === undefined) return { events } satisfies Timeline
      after = last.seq
    }
  })
