import assert from "node:assert/strict"
import { rawWrite } from "../support/raw-write.js"
import { Effect, Either, Layer, Option } from "effect"
import { isKnownEncounter, listedKey, toEncounterRow } from "../../lib/domain/encounter.js"
import { ClaimId, EncounterId, EventId, type WorkspaceId } from "../../lib/domain/ids.js"
import { Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { appendEvent, insert, update } from "../../lib/ports/write.js"
import { getIntakeRequest, listIntakeRequests } from "../../lib/rules/intake-log.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { createEncounter, intakeEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter, listEncounters, listHeldEncounters } from "../../lib/rules/read-encounters.js"
import { getEvent, listEvents } from "../../lib/rules/read-events.js"
import { authenticate, createApiKey, createWorkspace, listApiKeys, revokeApiKey } from "../../lib/rules/workspaces.js"
import { insurancePayload, validPayload } from "../support/payloads.js"
import { type Harness, runWith } from "../support/run.js"
import { boundedReadsContract } from "./bounded-reads.contract.js"
import { clearinghouseConnectionsContract } from "./clearinghouse-connections.contract.js"
import { claimCorrectionsContract } from "./claim-corrections.contract.js"
import { clearinghouseRaces } from "./clearinghouse-races.contract.js"
import { clearinghouseContract } from "./clearinghouse.contract.js"
import { consoleReadsContract } from "./console-reads.contract.js"
import { usersAuditContract } from "./users-audit.contract.js"
import { encounterSearchContract } from "./encounter-search.contract.js"
import { tasksContract } from "./tasks.contract.js"
import { webhookOutboxContract } from "./webhook-outbox.contract.js"
import { statusChecksContract } from "./status-checks.contract.js"
import { x12BoundsContract } from "./x12-bounds.contract.js"
import { x12ImportWritesContract } from "./x12-import-writes.contract.js"
import { x12RealFilesContract } from "./x12-real-files.contract.js"

type Services = Storage | Clock | Ids
const T0 = Date.parse("2026-11-01T00:00:00.000Z")

/**
 * The storage contract: the library's rules over one adapter. Every adapter must pass it whole;
 * each test builds the layer again, so state is fresh.
 */
export const storageContract = (name: string, makeStorage: () => Layer.Layer<Storage, unknown>, { describe, test }: Harness) =>
  describe(`Storage contract: ${name}`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, Services>, clock = Clock.manual(T0)) =>
      runWith(Layer.mergeAll(makeStorage(), clock.layer, Ids.live), effect)
    const workspace = (slug: string) => Effect.map(createWorkspace(slug, slug.toUpperCase()), (w) => w.id)
    const create = (ws: WorkspaceId, payload: Record<string, unknown>) => createEncounter(ws, payload, { source: "api" })
    const allPages = <A>(first: (token?: string) => Effect.Effect<{ items: ReadonlyArray<A>; next_page_token: string | null }, unknown, Services>) =>
      Effect.gen(function* () {
        const out: Array<A> = []
        let token: string | undefined
        for (let i = 0; i < 1000; i++) {
          const page = yield* first(token)
          out.push(...page.items)
          if (page.next_page_token === null) return out
          token = page.next_page_token
        }
        return out
      })

    test("create, read back, Created event, replay answers the same id without an event", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const first = yield* create(ws, insurancePayload("enc-1"))
          assert.equal(first.duplicate, false)
          const read = yield* getEncounter(ws, first.encounter_id)
          assert.equal(read.encounter.external_id, "enc-1")
          assert.equal(read.claim.status, "draft")
          assert.equal(read.encounter.initial_claim_status, "draft")
          assert.match(read.claim.patient_control_number, /^[A-Z0-9]{1,20}$/)
          assert.equal(read.encounter.payload.subscriber_primary?.insurance_card.member_id, "M-1")
          const again = yield* create(ws, insurancePayload("enc-1"))
          assert.deepEqual([again.encounter_id, again.duplicate], [first.encounter_id, true])
          const events = yield* listEvents(ws, {})
          assert.equal(events.items.length, 1)
          const created = events.items[0]!
          assert.equal(created.event_type, "ExternalApi.Encounter.Created")
          assert.equal(created.schema_version, "service.compat-version.v1")
          assert.deepEqual(created.payload, {
            encounter_id: first.encounter_id,
            external_id: "enc-1",
            claim_id: read.claim.id,
            status: "draft"
          })
          assert.deepEqual(yield* getEvent(ws, created.id), created)
        })
      ))

    test("NOT_BILLABLE starts the claim as not_billable; a payload's own control number is kept", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const r = yield* create(ws, validPayload("enc-nb", { billable_status: "NOT_BILLABLE", patient_control_number: "PCN42" }))
          const read = yield* getEncounter(ws, r.encounter_id)
          assert.equal(read.claim.status, "not_billable")
          assert.equal(read.claim.patient_control_number, "PCN42")
          const taken = yield* Effect.either(create(ws, validPayload("enc-nb2", { patient_control_number: "PCN42" })))
          assert.ok(Either.isLeft(taken) && taken.left._tag === "PatientControlNumberTaken")
        })
      ))

    test("every raw request is stored first, with its outcome", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const storage = yield* Storage
          const body = new TextEncoder().encode(JSON.stringify(validPayload("enc-raw")))
          const accepted = yield* intakeEncounter({ workspace_id: ws, key_id: "k1", content_type: "application/json", body })
          const duplicate = yield* intakeEncounter({ workspace_id: ws, key_id: "k1", body })
          const garbage = new TextEncoder().encode("{not json")
          const badJson = yield* Effect.either(intakeEncounter({ workspace_id: ws, body: garbage }))
          assert.ok(Either.isLeft(badJson) && badJson.left._tag === "InvalidJson")
          const invalid = yield* Effect.either(intakeEncounter({ workspace_id: ws, body: new TextEncoder().encode("{}") }))
          assert.ok(Either.isLeft(invalid) && invalid.left._tag === "InvalidEncounter")

          const a = Option.getOrThrow(yield* storage.get("raw_requests", ws, accepted.raw_request_id))
          assert.deepEqual(a.result, { outcome: "accepted", encounter_id: accepted.encounter_id })
          assert.equal(a.key_id, "k1")
          assert.deepEqual(new Uint8Array(a.body), body)
          const d = Option.getOrThrow(yield* storage.get("raw_requests", ws, duplicate.raw_request_id))
          assert.deepEqual(d.result, { outcome: "duplicate", encounter_id: accepted.encounter_id })
        })
      ))

    test("50 concurrent creates of one external_id: one encounter, one Created event, one id for all", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const results = yield* Effect.all(
            Array.from({ length: 50 }, () => create(ws, validPayload("enc-race"))),
            { concurrency: "unbounded" }
          )
          const ids = new Set(results.map((r) => r.encounter_id))
          assert.equal(ids.size, 1)
          assert.equal(results.filter((r) => !r.duplicate).length, 1)
          const list = yield* listEncounters(ws, { external_id: "enc-race" })
          assert.equal(list.items.length, 1)
          const events = yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.Created"] })
          assert.equal(events.items.length, 1)
        })
      ))

    test("250 encounters paged by 7, forward then back: each seen exactly once, newest first", () => {
      const clock = Clock.manual(T0)
      return run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const created: Array<EncounterId> = []
          for (let i = 0; i < 250; i++) {
            // Several share a millisecond: order must still be total, by (created_at, id).
            if (i % 3 === 0) clock.control.advance(1)
            created.push((yield* create(ws, validPayload(`enc-${i}`))).encounter_id)
          }
          const forward: Array<string> = []
          const tokens: Array<string | null> = []
          let page = yield* listEncounters(ws, { limit: 7 })
          assert.equal(page.prev_page_token, null)
          for (;;) {
            forward.push(...page.items.map((r) => r.encounter.id))
            tokens.push(page.prev_page_token)
            if (page.next_page_token === null) break
            page = yield* listEncounters(ws, { limit: 7, page_token: page.next_page_token })
          }
          assert.deepEqual(forward, [...created].reverse())
          const backward: Array<string> = []
          let prev = page.prev_page_token
          backward.unshift(...page.items.map((r) => r.encounter.id))
          while (prev !== null) {
            const p = yield* listEncounters(ws, { limit: 7, page_token: prev })
            assert.equal(p.items.length, 7)
            backward.unshift(...p.items.map((r) => r.encounter.id))
            prev = p.prev_page_token
          }
          assert.deepEqual(backward, forward)
        }),
        clock
      )
    })

    test("a page read with what its reader holds: held encounters at their revision come back as known, the rest as rows, in the same order and pages", () => {
      const clock = Clock.manual(T0)
      return run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-held")
          const other = yield* workspace("clinic-held-other")
          yield* create(other, validPayload("other-0"))
          for (let i = 0; i < 25; i++) {
            if (i % 2 === 0) clock.control.advance(1)
            yield* create(ws, validPayload(`held-${i}`))
          }
          // The reader holds every third encounter at the revision it read.
          const plain = yield* listEncounters(ws, { limit: 10 })
          const revisions = new Map(plain.items.map((r) => [r.encounter.id, r.revision]))
          const heldIds = plain.items.filter((_, i) => i % 3 === 0).map((r) => r.encounter.id)
          const seen: Array<[string, number]> = []
          const held = (id: EncounterId, revision: number) => {
            seen.push([id, revision])
            return heldIds.includes(id) && revisions.get(id) === revision ? `kept ${id}` : undefined
          }
          const page = yield* listHeldEncounters(ws, { limit: 10 }, "filterable", held)
          assert.deepEqual(page.items.map(listedKey), plain.items.map((r) => [r.encounter.created_at, r.encounter.id]))
          assert.equal(page.next_page_token, plain.next_page_token)
          assert.equal(page.prev_page_token, plain.prev_page_token)
          for (const [i, item] of page.items.entries()) {
            const row = plain.items[i]!
            if (heldIds.includes(row.encounter.id)) {
              assert.ok(isKnownEncounter(item))
              assert.deepEqual(item, { _tag: "Known", id: row.encounter.id, created_at: row.encounter.created_at, revision: row.revision, value: `kept ${row.encounter.id}` })
            } else {
              assert.ok(!isKnownEncounter(item))
              assert.equal(item.encounter.external_id, row.encounter.external_id)
              assert.deepEqual(item.claim, row.claim)
              assert.equal(item.revision, row.revision)
            }
          }
          // Asked about each encounter of the page once (and the one past it), never another workspace's.
          assert.deepEqual(
            seen.map(([id]) => id).slice(0, 10),
            plain.items.map((r) => r.encounter.id)
          )
          // A change makes a new revision: the held render of the old one is not taken.
          const moved = plain.items[0]!
          yield* changeClaimStatus(ws, moved.claim.id, "missing_information")
          const after = yield* listHeldEncounters(ws, { limit: 10 }, "filterable", held)
          const first = after.items[0]!
          assert.ok(!isKnownEncounter(first))
          assert.equal(first.claim.status, "missing_information")
          // The next page, by the held read's token, continues where the plain read's does.
          const next = yield* listHeldEncounters(ws, { limit: 10, page_token: page.next_page_token ?? "" }, "filterable", () => undefined)
          const plainNext = yield* listEncounters(ws, { limit: 10, page_token: plain.next_page_token ?? "" })
          assert.deepEqual(next.items.map(listedKey), plainNext.items.map((r) => [r.encounter.created_at, r.encounter.id]))
        }),
        clock
      )
    })

    test("page tokens are bound to their filters; malformed tokens and limits are rejected", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          for (let i = 0; i < 3; i++) yield* create(ws, validPayload(`enc-${i}`))
          const page = yield* listEncounters(ws, { limit: 1 })
          const token = page.next_page_token!
          const other = yield* Effect.either(listEncounters(ws, { limit: 1, page_token: token, claim_status: "draft" }))
          assert.ok(Either.isLeft(other) && other.left._tag === "InvalidQuery")
          const events = yield* Effect.either(listEvents(ws, { page_token: token }))
          assert.ok(Either.isLeft(events) && events.left._tag === "InvalidQuery")
          for (const bad of ["%%%", "abc", "eyJ4IjoxfQ"]) {
            const r = yield* Effect.either(listEncounters(ws, { page_token: bad }))
            assert.ok(Either.isLeft(r) && r.left._tag === "InvalidQuery", bad)
          }
          for (const limit of [0, 101, 1.5, -1]) {
            const r = yield* Effect.either(listEncounters(ws, { limit }))
            assert.ok(Either.isLeft(r) && r.left._tag === "InvalidQuery", String(limit))
          }
          const ws2 = yield* workspace("clinic-b")
          const foreign = yield* Effect.either(listEncounters(ws2, { limit: 1, page_token: token }))
          assert.ok(Either.isLeft(foreign) && foreign.left._tag === "InvalidQuery")
        })
      ))

    test("list filters: external_id and the latest claim's current status", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const a = yield* create(ws, validPayload("enc-a"))
          yield* create(ws, validPayload("enc-b", { billable_status: "NOT_BILLABLE" }))
          const byExt = yield* listEncounters(ws, { external_id: "enc-a" })
          assert.deepEqual(byExt.items.map((r) => r.encounter.id), [a.encounter_id])
          const drafts = yield* listEncounters(ws, { claim_status: "draft" })
          assert.deepEqual(drafts.items.map((r) => r.encounter.external_id), ["enc-a"])
          const read = yield* getEncounter(ws, a.encounter_id)
          yield* changeClaimStatus(ws, read.claim.id, "submitted_to_payer")
          const submitted = yield* listEncounters(ws, { claim_status: "submitted_to_payer" })
          assert.deepEqual(submitted.items.map((r) => r.encounter.external_id), ["enc-a"])
          assert.equal((yield* listEncounters(ws, { claim_status: "draft" })).items.length, 0)
          const notFilterable = yield* Effect.either(listEncounters(ws, { claim_status: "paid" }))
          assert.ok(Either.isLeft(notFilterable))
          assert.equal((yield* listEncounters(ws, { claim_status: "paid" }, "all")).items.length, 0)
        })
      ))

    test("events: type filter, inclusive time bounds, oldest first, paged both ways", () => {
      const clock = Clock.manual(T0)
      return run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const claims: Array<string> = []
          for (let i = 0; i < 5; i++) {
            clock.control.set(T0 + i * 1000)
            const r = yield* create(ws, validPayload(`enc-${i}`))
            claims.push((yield* getEncounter(ws, r.encounter_id)).claim.id)
          }
          clock.control.set(T0 + 10_000)
          yield* changeClaimStatus(ws, claims[0]!, "submitted_to_payer")
          const all = yield* listEvents(ws, {})
          assert.equal(all.items.length, 6)
          assert.deepEqual(
            all.items.map((e) => e.event_type),
            [...Array(5).fill("ExternalApi.Encounter.Created"), "ExternalApi.Encounter.StatusUpdated"]
          )
          const iso = (ms: number) => new Date(ms).toISOString()
          const window = yield* listEvents(ws, { created_after: iso(T0 + 1000), created_before: iso(T0 + 3000) })
          assert.deepEqual(window.items.map((e) => e.created_at), [iso(T0 + 1000), iso(T0 + 2000), iso(T0 + 3000)])
          const updates = yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })
          assert.equal(updates.items.length, 1)
          const comma = yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated,ExternalApi.Encounter.Created"] })
          assert.equal(comma.items.length, 6)
          const unknownType = yield* Effect.either(listEvents(ws, { event_types: ["Nope"] }))
          assert.ok(Either.isLeft(unknownType))
          const badTime = yield* Effect.either(listEvents(ws, { created_after: "yesterday" }))
          assert.ok(Either.isLeft(badTime))

          const paged = yield* allPages((t) => listEvents(ws, { limit: 2, page_token: t }))
          assert.deepEqual(paged.map((e) => e.id), all.items.map((e) => e.id))
          const p1 = yield* listEvents(ws, { limit: 4 })
          const p2 = yield* listEvents(ws, { limit: 4, page_token: p1.next_page_token! })
          const back = yield* listEvents(ws, { limit: 4, page_token: p2.prev_page_token! })
          assert.deepEqual(back.items.map((e) => e.id), p1.items.map((e) => e.id))
          assert.equal(back.prev_page_token, null)
        }),
        clock
      )
    })

    test("events are recorded with created_at in recorded order, even when a clock goes back", () => {
      const clock = Clock.manual(T0)
      return run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          clock.control.set(T0 + 5000)
          yield* create(ws, validPayload("enc-late"))
          clock.control.set(T0 + 1000)
          const early = yield* create(ws, validPayload("enc-early"))
          const events = (yield* listEvents(ws, {})).items
          assert.deepEqual(events.map((e) => e.created_at), [new Date(T0 + 5000).toISOString(), new Date(T0 + 5000).toISOString()])
          // Resuming from the newest created_at seen (inclusive) finds the later-recorded event.
          const resumed = yield* listEvents(ws, { created_after: events[0]!.created_at })
          assert.ok(resumed.items.some((e) => e.payload.encounter_id === early.encounter_id))
          const read = yield* getEncounter(ws, early.encounter_id)
          assert.equal(read.encounter.last_event_at, events[1]!.created_at)
        }),
        clock
      )
    })

    test("claim status: one event per change, none for the same status, typed error for an illegal move", () => {
      const clock = Clock.manual(T0)
      return run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const r = yield* create(ws, validPayload("enc-s"))
          const claimId = (yield* getEncounter(ws, r.encounter_id)).claim.id
          clock.control.advance(60_000)
          const moved = yield* changeClaimStatus(ws, claimId, "submitted_to_payer", "sent")
          assert.equal(moved.changed, true)
          assert.equal(moved.claim.status, "submitted_to_payer")
          const same = yield* changeClaimStatus(ws, claimId, "submitted_to_payer")
          assert.equal(same.changed, false)
          const illegal = yield* Effect.either(changeClaimStatus(ws, claimId, "draft"))
          assert.ok(Either.isLeft(illegal) && illegal.left._tag === "InvalidTransition")
          const updates = yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })
          assert.equal(updates.items.length, 1)
          assert.deepEqual(updates.items[0]!.payload, {
            encounter_id: r.encounter_id,
            external_id: "enc-s",
            claim_id: claimId,
            previous_status: "draft",
            status: "submitted_to_payer",
            note: "sent"
          })
          const read = yield* getEncounter(ws, r.encounter_id)
          assert.equal(read.encounter.last_event_at, updates.items[0]!.created_at)
          // The encounter's read shows the claim as it now is: status and the time it changed.
          assert.equal(read.claim.status, "submitted_to_payer")
          assert.equal(read.claim.status_changed_at, new Date(T0 + 60_000).toISOString())
          assert.equal(read.claim.created_at, new Date(T0).toISOString())
        }),
        clock
      )
    })

    test("concurrent changes from one status: one wins, one event", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const r = yield* create(ws, validPayload("enc-race-status"))
          const claimId = (yield* getEncounter(ws, r.encounter_id)).claim.id
          const results = yield* Effect.all(
            [
              ...Array.from({ length: 10 }, () => Effect.either(changeClaimStatus(ws, claimId, "submitted_to_payer"))),
              ...Array.from({ length: 10 }, () => Effect.either(changeClaimStatus(ws, claimId, "missing_information")))
            ],
            { concurrency: "unbounded" }
          )
          const changed = results.filter((x) => Either.isRight(x) && x.right.changed)
          assert.equal(changed.length, 1)
          const updates = yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })
          assert.equal(updates.items.length, 1)
        })
      ))

    test("workspace isolation: another workspace's anything is not found", () =>
      run(
        Effect.gen(function* () {
          const a = yield* workspace("clinic-a")
          const b = yield* workspace("clinic-b")
          const inA = yield* create(a, validPayload("shared-ext"))
          const inB = yield* create(b, validPayload("shared-ext"))
          assert.notEqual(inA.encounter_id, inB.encounter_id)
          assert.equal(inB.duplicate, false)
          const claimA = (yield* getEncounter(a, inA.encounter_id)).claim.id
          const eventA = (yield* listEvents(a, {})).items[0]!.id
          const get = yield* Effect.either(getEncounter(b, inA.encounter_id))
          assert.ok(Either.isLeft(get) && get.left._tag === "EncounterNotFound")
          const ev = yield* Effect.either(getEvent(b, eventA))
          assert.ok(Either.isLeft(ev) && ev.left._tag === "EventNotFound")
          const st = yield* Effect.either(changeClaimStatus(b, claimA, "submitted_to_payer"))
          assert.ok(Either.isLeft(st) && st.left._tag === "ClaimNotFound")
          assert.deepEqual((yield* listEncounters(b, {})).items.map((r) => r.encounter.id), [inB.encounter_id])
          assert.equal((yield* listEvents(b, {})).items.length, 1)
          assert.equal((yield* getEncounter(a, inA.encounter_id)).claim.status, "draft")
          const malformed = yield* Effect.either(getEncounter(a, "not-a-uuid"))
          assert.ok(Either.isLeft(malformed) && malformed.left._tag === "EncounterNotFound")
        })
      ))

    // ---- the write's preconditions, decided by every adapter alike --------------------------

    const eventOf = (ws: WorkspaceId, encounterId: string, at: string, id: string) => ({
      id: EventId.make(id),
      workspace_id: ws,
      event_type: "ExternalApi.Encounter.StatusUpdated" as const,
      created_at: at,
      timestamp: at,
      payload: { encounter_id: encounterId, external_id: "x", claim_id: "c", status: "draft" }
    })

    test("write precondition: a taken unique key refuses the whole write with the holder's id, and writes nothing", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const storage = yield* Storage
          const first = yield* create(ws, validPayload("taken-ext"))
          const before = yield* storage.findEncounter(ws, first.encounter_id)
          const row = Option.getOrThrow(before)
          const eventsBefore = (yield* listEvents(ws, {})).items.length
          const copyId = EncounterId.make("01a00000-0000-7000-8000-0000000000e1")
          const claimId = ClaimId.make("01a00000-0000-7000-8000-0000000000c1")
          const result = yield* rawWrite(storage, {
            operation: "test",
            steps: [
              // An event first: refused later in the write, it must be undone too.
              appendEvent(eventOf(ws, copyId, "2026-11-01T00:00:00.000Z", "01a00000-0000-7000-8000-0000000000f1")),
              insert("claims", { ...row.claim, id: claimId, patient_control_number: "FRESHPCN" }),
              insert("encounters", toEncounterRow({ ...row.encounter, id: copyId }, row.claim, null), {
                unique: "external_id",
                refuse: (holder) => holder
              })
            ]
          })
          assert.deepEqual(result, { _tag: "Refused", refusal: first.encounter_id })
          assert.ok(Option.isNone(yield* storage.findClaim(ws, claimId)))
          assert.ok(Option.isNone(yield* storage.findEncounter(ws, copyId)))
          assert.equal((yield* listEvents(ws, {})).items.length, eventsBefore)
          // Another workspace's same key is not taken.
          const other = yield* workspace("clinic-b")
          const inOther = yield* create(other, validPayload("taken-ext"))
          assert.equal(inOther.duplicate, false)
        })
      ))

    test("write precondition: an update applies only while the row still has the values read (compare-and-set)", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const storage = yield* Storage
          const created = yield* create(ws, validPayload("cas"))
          const { claim } = yield* getEncounter(ws, created.encounter_id)
          const at = "2026-11-01T00:00:01.000Z"
          const move = (expected: string, eventId: string) =>
            rawWrite(storage, {
              operation: "test",
              steps: [
                update("claims", claim.id, { workspace_id: ws, status: expected }, { status: "submitted_to_payer", status_changed_at: at }, "stale"),
                appendEvent(eventOf(ws, created.encounter_id, at, eventId), created.encounter_id)
              ]
            })
          const stale = yield* move("paid", "01a00000-0000-7000-8000-0000000000f2")
          assert.deepEqual(stale, { _tag: "Refused", refusal: "stale" })
          assert.equal((yield* listEvents(ws, {})).items.length, 1)
          assert.equal(Option.getOrThrow(yield* storage.findClaim(ws, claim.id)).claim.status, "draft")
          const applied = yield* move("draft", "01a00000-0000-7000-8000-0000000000f3")
          assert.deepEqual(applied, { _tag: "Written" })
          assert.equal(Option.getOrThrow(yield* storage.findClaim(ws, claim.id)).claim.status, "submitted_to_payer")
          // Another workspace cannot move it, even with the right status.
          const other = yield* workspace("clinic-b")
          const foreign = yield* rawWrite(storage, {
            operation: "test",
            steps: [update("claims", claim.id, { workspace_id: other, status: "submitted_to_payer" }, { status: "paid" }, "stale")]
          })
          assert.deepEqual(foreign, { _tag: "Refused", refusal: "stale" })
        })
      ))

    test("every write of an encounter's row is seen by the next read, one with no event included", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const storage = yield* Storage
          const created = yield* create(ws, validPayload("seen-again"))
          const read = () =>
            Effect.gen(function* () {
              const one = yield* getEncounter(ws, created.encounter_id)
              const page = yield* listEncounters(ws, {})
              const claim = Option.getOrThrow(yield* storage.findClaim(ws, one.claim.id))
              return [one.claim.processing_started_at, page.items[0]?.claim.processing_started_at, claim.claim.processing_started_at]
            })
          // Read twice (an adapter may keep what it read), then change the row alone: no event, no last_event_at.
          assert.deepEqual(yield* read(), [null, null, null])
          assert.deepEqual(yield* read(), [null, null, null])
          const { claim } = yield* getEncounter(ws, created.encounter_id)
          for (const at of ["2026-11-01T00:00:05.000Z", "2026-11-01T00:00:06.000Z"]) {
            const written = yield* rawWrite(storage, {
              operation: "test",
              steps: [
                update("claims", claim.id, { workspace_id: ws }, { processing_started_at: at }),
                update("encounters", created.encounter_id, { workspace_id: ws, latest_claim_id: claim.id }, { latest_claim_processing_started_at: at })
              ]
            })
            assert.deepEqual(written, { _tag: "Written" })
            assert.deepEqual(yield* read(), [at, at, at])
          }
        })
      ))

    test("write precondition: an event takes the next place in its workspace's feed, never recorded before the one ahead", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const storage = yield* Storage
          const created = yield* create(ws, validPayload("feed"))
          const first = (yield* listEvents(ws, {})).items[0]!
          // A clock behind the feed: recorded at the previous event's time, and the encounter follows.
          const early = "2020-01-01T00:00:00.000Z"
          yield* rawWrite(storage, {
            operation: "test",
            steps: [appendEvent(eventOf(ws, created.encounter_id, early, "01a00000-0000-7000-8000-0000000000f4"), created.encounter_id)]
          })
          const later = "2030-01-01T00:00:00.000Z"
          yield* rawWrite(storage, {
            operation: "test",
            steps: [appendEvent(eventOf(ws, created.encounter_id, later, "01a00000-0000-7000-8000-0000000000f5"), created.encounter_id)]
          })
          const feed = (yield* listEvents(ws, {})).items
          assert.deepEqual(
            feed.map((e) => [e.id, e.created_at, e.timestamp]),
            [
              [first.id, first.created_at, first.timestamp],
              ["01a00000-0000-7000-8000-0000000000f4", first.created_at, early],
              ["01a00000-0000-7000-8000-0000000000f5", later, later]
            ]
          )
          assert.equal((yield* getEncounter(ws, created.encounter_id)).encounter.last_event_at, later)
        })
      ))

    test("write precondition: an event's touch with more columns is one compare-and-set on the encounter's row, refusing the whole write on a miss", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const storage = yield* Storage
          const created = yield* create(ws, validPayload("touch-also"))
          const { claim } = yield* getEncounter(ws, created.encounter_id)
          const at = "2030-01-01T00:00:00.000Z"
          const move = (latest: string, eventId: string, inWorkspace = ws) =>
            rawWrite<"stale">(storage, {
              operation: "test",
              steps: [
                update("claims", claim.id, { workspace_id: ws, status: "draft" }, { status: "missing_information", status_changed_at: at }, "stale"),
                appendEvent<"stale">(eventOf(inWorkspace, created.encounter_id, at, eventId), created.encounter_id, {
                  where: { latest_claim_id: ClaimId.make(latest) },
                  set: { latest_claim_status: "missing_information", latest_claim_status_changed_at: at },
                  ifUnmatched: "stale"
                })
              ]
            })
          const before = yield* getEncounter(ws, created.encounter_id)
          // Another claim named as the latest: refused, and the claim's own update before it undone.
          const missed = yield* move("01a00000-0000-7000-8000-0000000000e1", "01a00000-0000-7000-8000-0000000000f6")
          assert.deepEqual(missed, { _tag: "Refused", refusal: "stale" })
          // An event of another workspace cannot touch this workspace's encounter either.
          const other = yield* workspace("clinic-b")
          const foreign = yield* move(claim.id, "01a00000-0000-7000-8000-0000000000f8", other)
          assert.deepEqual(foreign, { _tag: "Refused", refusal: "stale" })
          assert.deepEqual(yield* getEncounter(ws, created.encounter_id), before)
          assert.equal(Option.getOrThrow(yield* storage.findClaim(ws, claim.id)).claim.status, "draft")
          assert.equal((yield* listEvents(ws, {})).items.length, 1)
          assert.equal((yield* listEvents(other, {})).items.length, 0)
          // The latest claim named: the time and the columns in one update.
          const applied = yield* move(claim.id, "01a00000-0000-7000-8000-0000000000f7")
          assert.deepEqual(applied, { _tag: "Written" })
          const after = yield* getEncounter(ws, created.encounter_id)
          assert.equal(after.encounter.last_event_at, at)
          assert.equal(after.claim.status, "missing_information")
          assert.equal(after.claim.status_changed_at, at)
          const page = yield* listEncounters(ws, { claim_status: "missing_information" })
          assert.deepEqual(page.items.map((e) => e.encounter.id), [created.encounter_id])
        })
      ))

    test("intake log: every request with its outcome and external id, filtered, newest first, paged both ways", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const other = yield* workspace("clinic-b")
          const enc = (u: unknown) => new TextEncoder().encode(typeof u === "string" ? u : JSON.stringify(u))
          const ok = yield* intakeEncounter({ workspace_id: ws, body: enc(validPayload("log-1")) })
          yield* intakeEncounter({ workspace_id: ws, body: enc(validPayload("log-1")) })
          yield* Effect.either(intakeEncounter({ workspace_id: ws, body: enc({ external_id: "log-bad" }) }))
          yield* Effect.either(intakeEncounter({ workspace_id: ws, body: enc("{nope") }))
          for (let i = 0; i < 5; i++) yield* intakeEncounter({ workspace_id: ws, body: enc(validPayload(`log-more-${i}`)) })
          yield* intakeEncounter({ workspace_id: other, body: enc(validPayload("log-1")) })

          const all = yield* listIntakeRequests(ws, {})
          assert.equal(all.items.length, 9)
          const received = all.items.map((r) => r.received_at)
          assert.deepEqual(received, [...received].sort().reverse())
          const rejected = yield* listIntakeRequests(ws, { outcome: "rejected" })
          assert.deepEqual(
            rejected.items.map((r) => r.external_id).sort((a, b) => String(a).localeCompare(String(b))),
            [null, "log-bad"].sort((a, b) => String(a).localeCompare(String(b)))
          )
          const bad = rejected.items.find((r) => r.external_id === "log-bad")!
          assert.ok(bad.errors.length > 0 && bad.errors.every((e) => e.path !== "" && e.message !== ""))
          assert.equal(bad.encounter_id, null)
          const byExt = yield* listIntakeRequests(ws, { external_id: "log-1" })
          assert.deepEqual(byExt.items.map((r) => r.outcome).sort(), ["accepted", "duplicate"])
          assert.ok(byExt.items.every((r) => r.encounter_id === ok.encounter_id))
          const detail = yield* getIntakeRequest(ws, ok.raw_request_id)
          assert.equal(detail.body, JSON.stringify(validPayload("log-1")))
          assert.equal(detail.content_type, "application/json")
          const foreign = yield* Effect.either(getIntakeRequest(other, ok.raw_request_id))
          assert.ok(Either.isLeft(foreign) && foreign.left._tag === "IntakeRequestNotFound")
          // Paged by 2, forward then back: the same items, each once.
          const forward: Array<string> = []
          let page = yield* listIntakeRequests(ws, { limit: 2 })
          forward.push(...page.items.map((r) => r.id))
          while (page.next_page_token !== null) {
            page = yield* listIntakeRequests(ws, { limit: 2, page_token: page.next_page_token })
            forward.push(...page.items.map((r) => r.id))
          }
          assert.deepEqual(forward, all.items.map((r) => r.id))
          const back: Array<string> = [...page.items.map((r) => r.id)]
          while (page.prev_page_token !== null) {
            page = yield* listIntakeRequests(ws, { limit: 2, page_token: page.prev_page_token })
            back.unshift(...page.items.map((r) => r.id))
          }
          assert.deepEqual(back, forward)
          const badOutcome = yield* Effect.either(listIntakeRequests(ws, { outcome: "lost" }))
          assert.ok(Either.isLeft(badOutcome) && badOutcome.left._tag === "InvalidQuery")
          const window = yield* listIntakeRequests(ws, { received_after: "2000-01-01T00:00:00Z", received_before: "2000-01-02T00:00:00Z" })
          assert.equal(window.items.length, 0)
        })
      ))

    test("intake log by external id: rejected, accepted and replayed requests of one id, by outcome and paged both ways", () =>
      run(
        Effect.gen(function* () {
          const ws = yield* workspace("clinic-a")
          const other = yield* workspace("clinic-b")
          const enc = (u: unknown) => new TextEncoder().encode(JSON.stringify(u))
          const ext = "trail-1"
          // First sent invalid, then valid (accepted), then replayed twice; a neighbour id and another workspace share nothing.
          yield* Effect.either(intakeEncounter({ workspace_id: ws, body: enc({ ...validPayload(ext), diagnoses: [] }) }))
          const ok = yield* intakeEncounter({ workspace_id: ws, body: enc(validPayload(ext)) })
          yield* intakeEncounter({ workspace_id: ws, body: enc(validPayload(ext)) })
          // The same encounter in other bytes: a replay too, through the full path.
          yield* intakeEncounter({ workspace_id: ws, body: new TextEncoder().encode(JSON.stringify(validPayload(ext), null, 2)) })
          yield* intakeEncounter({ workspace_id: ws, body: enc(validPayload("trail-2")) })
          yield* intakeEncounter({ workspace_id: other, body: enc(validPayload(ext)) })

          const trail = yield* listIntakeRequests(ws, { external_id: ext })
          assert.deepEqual(
            trail.items.map((r) => r.outcome),
            ["duplicate", "duplicate", "accepted", "rejected"]
          )
          const times = trail.items.map((r) => r.received_at)
          assert.deepEqual(times, [...times].sort().reverse())
          assert.equal(trail.items[2]!.id, ok.raw_request_id)
          assert.equal(trail.next_page_token, null)
          const only = (outcome: string) => listIntakeRequests(ws, { external_id: ext, outcome }).pipe(Effect.map((p) => p.items.map((r) => r.id)))
          assert.deepEqual(yield* only("accepted"), [ok.raw_request_id])
          assert.deepEqual(yield* only("duplicate"), trail.items.slice(0, 2).map((r) => r.id))
          assert.deepEqual(yield* only("rejected"), [trail.items[3]!.id])
          assert.deepEqual(
            (yield* listIntakeRequests(ws, { external_id: ext, received_after: trail.items[2]!.received_at })).items.map((r) => r.id),
            trail.items.filter((r) => r.received_at >= trail.items[2]!.received_at).map((r) => r.id)
          )
          assert.deepEqual((yield* listIntakeRequests(ws, { external_id: "never-sent" })).items, [])
          assert.equal((yield* listIntakeRequests(other, { external_id: ext })).items.length, 1)
          // One at a time, forward then back: the same four, each once, in order.
          const forward: Array<string> = []
          let page = yield* listIntakeRequests(ws, { external_id: ext, limit: 1 })
          forward.push(...page.items.map((r) => r.id))
          while (page.next_page_token !== null) {
            page = yield* listIntakeRequests(ws, { external_id: ext, limit: 1, page_token: page.next_page_token })
            forward.push(...page.items.map((r) => r.id))
          }
          assert.deepEqual(forward, trail.items.map((r) => r.id))
          const back: Array<string> = [...page.items.map((r) => r.id)]
          while (page.prev_page_token !== null) {
            page = yield* listIntakeRequests(ws, { external_id: ext, limit: 1, page_token: page.prev_page_token })
            back.unshift(...page.items.map((r) => r.id))
          }
          assert.deepEqual(back, forward)
        })
      ))

    test("API keys: created once, authenticated by hash, listed without secrets, revoked at once", () =>
      run(
        Effect.gen(function* () {
          yield* workspace("clinic-a")
          const key = yield* createApiKey("clinic-a", ["claims:write"])
          assert.match(key.key, /^eik_[0-9A-Za-z]{40}$/)
          assert.deepEqual(key.scopes, ["encounters", "claims:write"])
          const principal = yield* authenticate(key.key)
          assert.equal(principal.workspace.slug, "clinic-a")
          assert.deepEqual(principal.scopes, ["encounters", "claims:write"])
          const listed = yield* listApiKeys("clinic-a")
          assert.equal(listed.length, 1)
          assert.ok(!JSON.stringify(listed).includes(key.key))
          for (const bad of [undefined, "", "Bearer x", `${key.key}x`, "eik_" + "A".repeat(40)]) {
            const r = yield* Effect.either(authenticate(bad))
            assert.ok(Either.isLeft(r) && r.left._tag === "Unauthorized", String(bad))
          }
          yield* revokeApiKey(key.id)
          const revoked = yield* Effect.either(authenticate(key.key))
          assert.ok(Either.isLeft(revoked) && revoked.left._tag === "Unauthorized")
          const dup = yield* Effect.either(createWorkspace("clinic-a", "again"))
          assert.ok(Either.isLeft(dup) && dup.left._tag === "SlugTaken")
        })
      ))

    clearinghouseContract((effect) => run(effect), test)
    clearinghouseRaces((effect) => run(effect), test)
    clearinghouseConnectionsContract((effect) => run(effect), test),
    claimCorrectionsContract((effect) => run(effect), test)
    boundedReadsContract((effect) => run(effect), test)
    x12BoundsContract((effect) => run(effect), test)
    x12ImportWritesContract((effect) => run(effect), test)
    x12RealFilesContract((effect) => run(effect), test)
    webhookOutboxContract(run, { test })
    consoleReadsContract(run, { test })
    usersAuditContract(run, () => Clock.manual(T0), { test })
    encounterSearchContract(run, { test })
    statusChecksContract((effect) => run(effect), { test }),
    tasksContract(run, test)
  })
