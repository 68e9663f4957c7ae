import { describe, expect, test } from "bun:test"
import { Either } from "effect"
import fc from "fast-check"
import { compactFeedEvent, eventJson, eventPageJson, parseFeedEvent, PayloadJson, type StoredEvent, toEvent, toFeedEvent } from "../../lib/domain/event.js"
import { EventId, WorkspaceId } from "../../lib/domain/ids.js"

/** Any text a payload may carry: full Unicode, lone surrogates, quotes, backslashes and control characters. */
const anyText = fc
  .array(fc.oneof(fc.constantFrom('"', "\\", "\n", "\u0000", "\u2028", "\ud800", "\udfff", "é", "😀"), fc.string({ unit: "binary", maxLength: 3 })), { maxLength: 10 })
  .map((parts) => parts.join(""))

const storedEvent = fc.record({
  seq: fc.nat(),
  id: fc.uuid().map(EventId.make),
  workspace_id: fc.uuid().map(WorkspaceId.make),
  event_type: fc.constantFrom("ExternalApi.Encounter.Created" as const, "ExternalApi.Encounter.StatusUpdated" as const),
  created_at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  timestamp: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  payload: fc.record(
    { encounter_id: anyText, external_id: anyText, claim_id: anyText, status: anyText, previous_status: anyText, note: anyText },
    { requiredKeys: ["encounter_id", "external_id", "claim_id", "status"] }
  )
}) satisfies fc.Arbitrary<StoredEvent>

describe("an event's JSON spliced from its stored payload text", () => {
  test("is byte for byte JSON.stringify of the event as callers read it", () => {
    fc.assert(
      fc.property(storedEvent, (e) => {
        expect(eventJson(toFeedEvent(e))).toBe(JSON.stringify(toEvent(e)))
      }),
      { numRuns: 2000 }
    )
  })

  test("a page of them is JSON.stringify of the page, rendered again from the kept envelopes too", () => {
    fc.assert(
      fc.property(fc.array(storedEvent, { maxLength: 5 }), fc.option(fc.string()), fc.option(fc.string()), (events, next, prev) => {
        const page = { items: events.map(toFeedEvent), next_page_token: next, prev_page_token: prev }
        const expected = JSON.stringify({ ...page, items: events.map(toEvent) })
        expect(eventPageJson(page)).toBe(expected)
        // Again, from the envelopes kept for these objects; and each event alone from them.
        expect(eventPageJson(page)).toBe(expected)
        page.items.forEach((e, i) => expect(eventJson(e)).toBe(JSON.stringify(toEvent(events[i]!))))
      })
    )
  })

  test("an event as an adapter keeps it (compactFeedEvent) is the same event, and reads the same, in its workspace or another", () => {
    fc.assert(
      fc.property(storedEvent, fc.boolean(), fc.boolean(), (e, sameTime, sameWorkspace) => {
        const feed = toFeedEvent(sameTime ? { ...e, timestamp: e.created_at } : e)
        const kept = compactFeedEvent(feed, sameWorkspace ? `${feed.workspace_id}` : "another workspace")
        expect(kept).toEqual(feed)
        expect(eventJson(kept)).toBe(JSON.stringify(toEvent(parseFeedEvent(feed).pipe(Either.getOrThrow))))
      })
    )
  })

  test("parsing the stored text gives the stored event back; text that is not an event payload is refused", () => {
    fc.assert(fc.property(storedEvent, (e) => expect(parseFeedEvent(toFeedEvent(e))).toEqual(Either.right(e))))
    const base = toFeedEvent({
      seq: 1,
      id: EventId.make("0190c2a0-0000-7000-8000-000000000009"),
      workspace_id: WorkspaceId.make("0190c2a0-0000-7000-8000-000000000001"),
      event_type: "ExternalApi.Encounter.Created",
      created_at: "2026-01-01T00:00:00.000Z",
      timestamp: "2026-01-01T00:00:00.000Z",
      payload: { encounter_id: "e", external_id: "x", claim_id: "c", status: "created" }
    })
    for (const bad of ['{"encounter_id":"e"}', "{not json}", '{"encounter_id":1,"external_id":"x","claim_id":"c","status":"s"}']) {
      expect(Either.isLeft(parseFeedEvent({ ...base, payload: PayloadJson.make(bad) }))).toBe(true)
    }
  })
})
