import assert from "node:assert/strict"
import { rawWrite } from "../support/raw-write.js"
import { Effect } from "effect"
import { EncounterId, EventId, type WorkspaceId } from "../../lib/domain/ids.js"
import type { Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { appendEvent } from "../../lib/ports/write.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { validPayload } from "../support/payloads.js"
import type { Harness } from "../support/run.js"

type Services = Storage | Clock | Ids

/**
 * The reads behind the operator console on one adapter: an encounter's own events (its timeline,
 * read on the encounter's index range, not the feed) and exact counts of claims per status.
 */
export const consoleReadsContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  { test }: Pick<Harness, "test">
) => {
  const workspace = (slug: string) => Effect.map(createWorkspace(slug, slug.toUpperCase()), (w) => w.id)
  const create = (ws: WorkspaceId, externalId: string, extra: Record<string, unknown> = {}) =>
    Effect.map(createEncounter(ws, validPayload(externalId, extra), { source: "api" }), (r) => r.encounter_id)
  const claimOf = (ws: WorkspaceId, id: EncounterId) => Effect.map(getEncounter(ws, id), (r) => r.claim.id)

  test("an encounter's events: its own only, oldest first in recorded order, paged after a place in the feed", () =>
    run(
      Effect.gen(function* () {
        const storage = yield* Storage
        const ws = yield* workspace("clinic-a")
        const other = yield* workspace("clinic-b")
        const mine = yield* create(ws, "enc-mine")
        const neighbour = yield* create(ws, "enc-neighbour")
        yield* create(other, "enc-mine")
        const claim = yield* claimOf(ws, mine)
        yield* changeClaimStatus(ws, yield* claimOf(ws, neighbour), "coded")
        yield* changeClaimStatus(ws, claim, "coded", "first")
        yield* create(ws, "enc-later")
        yield* changeClaimStatus(ws, claim, "submitted_to_payer")

        const feed = (yield* listEvents(ws, {})).items.filter((e) => e.payload.encounter_id === mine)
        const own = yield* storage.listEncounterEvents(ws, mine, { limit: 10 })
        assert.deepEqual(
          own.map((e) => [e.event_type, e.payload.encounter_id, e.payload.status, e.payload.note]),
          [
            ["ExternalApi.Encounter.Created", mine, "draft", undefined],
            ["ExternalApi.Encounter.StatusUpdated", mine, "coded", "first"],
            ["ExternalApi.Encounter.StatusUpdated", mine, "submitted_to_payer", undefined]
          ]
        )
        // The same events the feed holds, as stored (ids, times, seq increasing).
        assert.deepEqual(own.map((e) => e.id), feed.map((e) => e.id))
        assert.ok(own.every((e, i) => i === 0 || e.seq > own[i - 1]!.seq))
        assert.ok(own.every((e) => e.workspace_id === ws))

        // At most limit + 1 rows; a page after a seq continues where the last one ended.
        const first = yield* storage.listEncounterEvents(ws, mine, { limit: 1 })
        assert.equal(first.length, 2)
        const rest = yield* storage.listEncounterEvents(ws, mine, { after: first[0]!.seq, limit: 10 })
        assert.deepEqual(rest.map((e) => e.id), own.slice(1).map((e) => e.id))
        assert.deepEqual(yield* storage.listEncounterEvents(ws, mine, { after: own[2]!.seq, limit: 10 }), [])

        // Another workspace's reading of the id, an unknown encounter: nothing.
        assert.deepEqual(yield* storage.listEncounterEvents(other, mine, { limit: 10 }), [])
        assert.deepEqual(yield* storage.listEncounterEvents(ws, EncounterId.make("01a00000-0000-7000-8000-00000000ffff"), { limit: 10 }), [])
      })
    ))

  test("an encounter's events include one appended by a write that names it in its payload only", () =>
    run(
      Effect.gen(function* () {
        const storage = yield* Storage
        const ws = yield* workspace("clinic-a")
        const id = yield* create(ws, "enc-appended")
        const at = "2030-01-01T00:00:00.000Z"
        yield* rawWrite(storage, {
          operation: "test",
          steps: [
            appendEvent({
              id: EventId.make("01a00000-0000-7000-8000-0000000000e1"),
              workspace_id: ws,
              event_type: "ExternalApi.Encounter.StatusUpdated",
              created_at: at,
              timestamp: at,
              payload: { encounter_id: id, external_id: "enc-appended", claim_id: "c", previous_status: "draft", status: "coded" }
            })
          ]
        })
        const own = yield* storage.listEncounterEvents(ws, id, { limit: 10 })
        assert.deepEqual(own.map((e) => e.id).slice(1), ["01a00000-0000-7000-8000-0000000000e1"])
      })
    ))

  test("claim counts per status: exact, the workspace's own only, following each move", () =>
    run(
      Effect.gen(function* () {
        const storage = yield* Storage
        const ws = yield* workspace("clinic-a")
        const other = yield* workspace("clinic-b")
        const ids: Array<EncounterId> = []
        for (let i = 0; i < 7; i++) ids.push(yield* create(ws, `enc-${i}`))
        yield* create(ws, "enc-nb", { billable_status: "NOT_BILLABLE" })
        for (let i = 0; i < 3; i++) yield* create(other, `enc-${i}`)
        yield* changeClaimStatus(ws, yield* claimOf(ws, ids[0]!), "coded")
        yield* changeClaimStatus(ws, yield* claimOf(ws, ids[1]!), "coded")
        yield* changeClaimStatus(ws, yield* claimOf(ws, ids[1]!), "submitted_to_payer")

        const counts = (c: ReadonlyArray<{ readonly status: string; readonly count: number }>) =>
          Object.fromEntries([...c].sort((a, b) => (a.status < b.status ? -1 : 1)).map((x) => [x.status, x.count]))
        assert.deepEqual(counts(yield* storage.countClaimStatuses(ws)), { coded: 1, draft: 5, not_billable: 1, submitted_to_payer: 1 })
        assert.deepEqual(counts(yield* storage.countClaimStatuses(other)), { draft: 3 })
        const empty = yield* workspace("clinic-c")
        assert.deepEqual(yield* storage.countClaimStatuses(empty), [])
      })
    ))
}
