import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { EncounterId } from "../../lib/domain/ids.js"
import { memoryLayer } from "../../lib/layers.js"
import { browseEncounters } from "../../lib/rules/browse-encounters.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { encounterTimeline } from "../../lib/rules/encounter-timeline.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { seededPayload } from "../support/console-seed.js"
import { runWith } from "../support/run.js"

const timelineOf = (ws: Parameters<typeof getEncounter>[0], id: string) =>
  Effect.flatMap(getEncounter(ws, id), (row) => encounterTimeline(ws, row.encounter))

describe("an encounter's timeline", () => {
  test("holds its own events only, oldest first, also across pages of other encounters' events", () =>
    runWith(
      memoryLayer,
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("t", "T")).id
        const other = (yield* createWorkspace("u", "U")).id
        const mine = yield* createEncounter(ws, seededPayload("mine", 0))
        for (let i = 0; i < 250; i++) yield* createEncounter(i % 2 === 0 ? ws : other, seededPayload(`noise-${i}`, i + 1))
        const row = yield* getEncounter(ws, mine.encounter_id)
        yield* changeClaimStatus(ws, row.claim.id, "coded", "first")
        yield* createEncounter(ws, seededPayload("after", 300))
        yield* changeClaimStatus(ws, row.claim.id, "submitted_to_payer")
        const t = yield* timelineOf(ws, mine.encounter_id)
        expect(t.events.map((e) => [e.event_type, e.payload.encounter_id, e.payload.status])).toEqual([
          ["ExternalApi.Encounter.Created", mine.encounter_id, "draft"],
          ["ExternalApi.Encounter.StatusUpdated", mine.encounter_id, "coded"],
          ["ExternalApi.Encounter.StatusUpdated", mine.encounter_id, "submitted_to_payer"]
        ])
      })
    ))

  test("is complete however many of the workspace's events follow it, and pages through a long history", () =>
    runWith(
      memoryLayer,
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("t", "T")).id
        const old = yield* createEncounter(ws, seededPayload("old", 0))
        for (let i = 0; i < 1001; i++) yield* createEncounter(ws, seededPayload(`later-${i}`, i + 1))
        const row = yield* getEncounter(ws, old.encounter_id)
        // A history longer than one read (500 events): rounds of draft → coded → waiting_for_provider → draft.
        for (let i = 0; i < 200; i++) {
          for (const status of ["coded", "waiting_for_provider", "draft"] as const) yield* changeClaimStatus(ws, row.claim.id, status)
        }
        const t = yield* timelineOf(ws, old.encounter_id)
        expect(t.events.length).toBe(601)
        expect(t.events[0]?.event_type).toBe("ExternalApi.Encounter.Created")
        expect(t.events.slice(1).every((e) => e.event_type === "ExternalApi.Encounter.StatusUpdated" && e.payload.encounter_id === old.encounter_id)).toBe(true)
        expect(t.events.at(-1)?.payload.status).toBe("draft")
        const seen = t.events.map((e) => e.id)
        expect(new Set(seen).size).toBe(seen.length)
      })
    ))
})

describe("browsing encounters by created range", () => {
  test("an unknown id is not found and the range bounds apply to the paging", () =>
    runWith(
      memoryLayer,
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("t", "T")).id
        for (let i = 0; i < 5; i++) yield* createEncounter(ws, seededPayload(`r-${i}`, i))
        const day = (yield* browseEncounters(ws, { limit: 1 })).items[0]!.created_at.slice(0, 10)
        const first = yield* browseEncounters(ws, { limit: 2, created_from: day, created_to: day })
        expect(first.items.map((i) => i.external_id)).toEqual(["r-4", "r-3"])
        expect(first.prev_page_token).toBeNull()
        const second = yield* browseEncounters(ws, { limit: 2, created_from: day, created_to: day, page_token: first.next_page_token! })
        const third = yield* browseEncounters(ws, { limit: 2, created_from: day, created_to: day, page_token: second.next_page_token! })
        expect([...second.items, ...third.items].map((i) => i.external_id)).toEqual(["r-2", "r-1", "r-0"])
        expect(third.next_page_token).toBeNull()
        const missing = yield* Effect.either(getEncounter(ws, EncounterId.make(crypto.randomUUID())))
        expect(missing._tag).toBe("Left")
      })
    ))
})
