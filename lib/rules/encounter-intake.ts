import { Effect } from "effect"
import type { EncounterRecord } from "../domain/encounter.js"
import type { WorkspaceId } from "../domain/ids.js"
import { listIntakeRequests } from "./intake-log.js"

/**
 * How long before its encounter's creation an accepted request may have been received: between
 * the two clock readings lie parsing, validation and one lookup by external id (milliseconds).
 * The window bounds the rows read to the requests of those seconds.
 */
const WINDOW_MS = 5_000

/**
 * The id of the accepted request an encounter came from, or null. The request is received just
 * before the encounter is created (one intake, one clock), so the lookup is bounded to the seconds
 * before `created_at`: an index range on (outcome, received_at), never a walk through the log.
 */
export const encounterIntakeRequestId = (workspaceId: WorkspaceId, encounter: EncounterRecord) =>
  Effect.map(
    listIntakeRequests(workspaceId, {
      outcome: "accepted",
      external_id: encounter.external_id,
      received_after: new Date(Date.parse(encounter.created_at) - WINDOW_MS).toISOString(),
      received_before: encounter.created_at,
      limit: 1
    }),
    (page) => page.items[0]?.id ?? null
  )
