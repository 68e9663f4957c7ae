import assert from "node:assert/strict"
import { Effect, Either } from "effect"
import type { EncounterId, WorkspaceId } from "../../lib/domain/ids.js"
import { Clock, type Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { listClaimWork } from "../../lib/rules/claim-work-list.js"
import { countClaimsByStatus } from "../../lib/rules/count-claims.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { type EncounterListQuery, getEncounter, listEncounters } from "../../lib/rules/read-encounters.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { validPayload } from "../support/payloads.js"
import type { Harness } from "../support/run.js"

type Services = Storage | Clock | Ids
const T0 = Date.parse("2026-11-01T00:00:00.000Z")
const DAY = 86_400_000

interface Patient {
  readonly last: string
  readonly birth: string
  /** The encounter's own date of service; the lines carry `lineDate` (or none). */
  readonly seen?: string
  readonly lineDate?: string
  readonly payer?: string
  readonly charges?: ReadonlyArray<number>
}

/** A valid payload for one patient, with its dates, payer and line charges. */
export const searchPayload = (externalId: string, p: Patient): Record<string, unknown> => {
  const base = validPayload(externalId)
  const patient = typeof base.patient === "object" && base.patient !== null ? base.patient : {}
  return {
    ...base,
    patient: { ...patient, last_name: p.last, date_of_birth: p.birth },
    ...(p.seen === undefined ? {} : { date_of_service: p.seen }),
    service_lines: (p.charges ?? [12500]).map((cents) => ({
      procedure_code: "99213",
      quantity: "1",
      units: "UN",
      diagnosis_pointers: [0],
      charge_amount_cents: cents,
      ...(p.lineDate === undefined ? {} : { date_of_service: p.lineDate })
    })),
    ...(p.payer === undefined
      ? {}
      : {
          responsible_party: "INSURANCE_PAY",
          subscriber_primary: {
            first_name: "Avery",
            last_name: p.last,
            gender: "female",
            patient_relationship_to_subscriber_code: "18",
            insurance_card: { member_id: "M-1", payer_name: `Payer ${p.payer}`, payer_id: p.payer }
          }
        })
  }
}

/**
 * Finding an encounter and the money of claims by status, on one adapter: every search filter,
 * each combined with the others and with paging, and the counts' billed sums and a status's work
 * list by age and by amount.
 */
export const encounterSearchContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>, clock?: ReturnType<typeof Clock.manual>) => Promise<A>,
  { test }: Pick<Harness, "test">
) => {
  const workspace = (slug: string) => Effect.map(createWorkspace(slug, slug.toUpperCase()), (w) => w.id)
  const create = (ws: WorkspaceId, externalId: string, p: Patient) =>
    Effect.map(createEncounter(ws, searchPayload(externalId, p), { source: "api" }), (r) => r.encounter_id)
  const found = (ws: WorkspaceId, q: EncounterListQuery) =>
    Effect.map(listEncounters(ws, q), (page) => page.items.map((r) => r.encounter.external_id))

  /** Seven patients, created in this order (the list is newest first). */
  const seed = (ws: WorkspaceId) =>
    Effect.gen(function* () {
      yield* create(ws, "A-100", { last: "Smith", birth: "1980-01-02", seen: "2026-03-01", payer: "MCR01" })
      yield* create(ws, "A-101", { last: "smithers", birth: "1980-01-02", lineDate: "2026-03-02", payer: "BCBS1" })
      yield* create(ws, "A-200", { last: "Smythe", birth: "1975-06-30", seen: "2026-03-03", lineDate: "2026-01-01" })
      yield* create(ws, "B-100", { last: "Öberg", birth: "1990-12-31", lineDate: "2026-03-04", payer: "MCR01" })
      yield* create(ws, "B-101", { last: "O'Brien", birth: "1980-01-02", seen: "2026-03-05", payer: "MCR01" })
      yield* create(ws, "B-102", { last: "SMITH", birth: "2001-02-03" })
      yield* create(ws, "C-1", { last: "Møller", birth: "1980-01-02", seen: "2026-02-28", payer: "AET01" })
    })

  test("search: each filter alone, every value it matches and none it does not", () =>
    run(
      Effect.gen(function* () {
        const ws = yield* workspace("clinic-a")
        const other = yield* workspace("clinic-b")
        yield* seed(ws)
        yield* create(other, "A-100", { last: "Smith", birth: "1980-01-02", seen: "2026-03-01", payer: "MCR01" })
        // Last name: a prefix, in any case, also beyond ASCII.
        assert.deepEqual(yield* found(ws, { patient_last_name: "smith" }), ["B-102", "A-101", "A-100"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "SMI" }), ["B-102", "A-101", "A-100"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "Sm" }), ["B-102", "A-200", "A-101", "A-100"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "smithers" }), ["A-101"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "smithersx" }), [])
        assert.deepEqual(yield* found(ws, { patient_last_name: "öb" }), ["B-100"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "ÖBERG" }), ["B-100"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "o'" }), ["B-101"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "MØ" }), ["C-1"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "o" }), ["B-101"])
        // Date of birth: exactly.
        assert.deepEqual(yield* found(ws, { patient_date_of_birth: "1980-01-02" }), ["C-1", "B-101", "A-101", "A-100"])
        assert.deepEqual(yield* found(ws, { patient_date_of_birth: "1980-01-03" }), [])
        // Date of service: the encounter's own, else its first line's; both ends inclusive.
        assert.deepEqual(yield* found(ws, { date_of_service_from: "2026-03-02", date_of_service_to: "2026-03-04" }), ["B-100", "A-200", "A-101"])
        assert.deepEqual(yield* found(ws, { date_of_service_from: "2026-03-05" }), ["B-101"])
        assert.deepEqual(yield* found(ws, { date_of_service_to: "2026-03-01" }), ["C-1", "A-100"])
        assert.deepEqual(yield* found(ws, { date_of_service_from: "2026-01-01", date_of_service_to: "2026-01-01" }), [])
        // External id: a prefix, case as sent.
        assert.deepEqual(yield* found(ws, { external_id_prefix: "A-1" }), ["A-101", "A-100"])
        assert.deepEqual(yield* found(ws, { external_id_prefix: "B-10" }), ["B-102", "B-101", "B-100"])
        assert.deepEqual(yield* found(ws, { external_id_prefix: "b-10" }), [])
        assert.deepEqual(yield* found(ws, { external_id_prefix: "C-1" }), ["C-1"])
        // Payer: exactly; self-pay encounters have none.
        assert.deepEqual(yield* found(ws, { payer_id: "MCR01" }), ["B-101", "B-100", "A-100"])
        assert.deepEqual(yield* found(ws, { payer_id: "MCR0" }), [])
        // The other workspace's encounter is never found.
        assert.deepEqual(yield* found(other, { patient_last_name: "s" }), ["A-100"])
      })
    ))

  test("search: filters combine with each other, with external_id and with the claim status", () =>
    run(
      Effect.gen(function* () {
        const ws = yield* workspace("clinic-a")
        yield* seed(ws)
        assert.deepEqual(yield* found(ws, { patient_last_name: "smith", patient_date_of_birth: "1980-01-02" }), ["A-101", "A-100"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "smith", payer_id: "MCR01" }), ["A-100"])
        assert.deepEqual(yield* found(ws, { payer_id: "MCR01", date_of_service_from: "2026-03-02" }), ["B-101", "B-100"])
        assert.deepEqual(yield* found(ws, { external_id_prefix: "A-", date_of_service_to: "2026-03-02", patient_date_of_birth: "1980-01-02" }), [
          "A-101",
          "A-100"
        ])
        assert.deepEqual(
          yield* found(ws, {
            patient_last_name: "Sm",
            patient_date_of_birth: "1980-01-02",
            date_of_service_from: "2026-03-01",
            date_of_service_to: "2026-03-01",
            external_id_prefix: "A-1",
            payer_id: "MCR01"
          }),
          ["A-100"]
        )
        assert.deepEqual(yield* found(ws, { external_id: "A-101", patient_last_name: "smith" }), ["A-101"])
        assert.deepEqual(yield* found(ws, { external_id: "A-101", patient_last_name: "o" }), [])
        const a100 = (yield* listEncounters(ws, { external_id: "A-100" })).items[0]!
        yield* changeClaimStatus(ws, a100.claim.id, "submitted_to_payer")
        assert.deepEqual(yield* found(ws, { patient_last_name: "smith", claim_status: "submitted_to_payer" }), ["A-100"])
        assert.deepEqual(yield* found(ws, { patient_last_name: "smith", claim_status: "draft" }), ["B-102", "A-101"])
      })
    ))

  test("search: paged both ways with the filters, tokens bound to them; bad values are refused, all at once", () => {
    const clock = Clock.manual(T0)
    return run(
      Effect.gen(function* () {
        const ws = yield* workspace("clinic-a")
        const made: Array<EncounterId> = []
        for (let i = 0; i < 23; i++) {
          if (i % 4 === 0) clock.control.advance(1)
          made.push(yield* create(ws, `P-${i}`, { last: i % 2 === 0 ? "Paige" : "Quinn", birth: "1970-05-05", lineDate: `2026-04-${String(1 + (i % 9)).padStart(2, "0")}` }))
        }
        const query: EncounterListQuery = { patient_last_name: "pa", date_of_service_from: "2026-04-02", limit: 3 }
        const expected = made.filter((_, i) => i % 2 === 0 && 1 + (i % 9) >= 2).reverse()
        const forward: Array<string> = []
        let page = yield* listEncounters(ws, query)
        for (;;) {
          forward.push(...page.items.map((r) => r.encounter.id))
          if (page.next_page_token === null) break
          page = yield* listEncounters(ws, { ...query, page_token: page.next_page_token })
        }
        assert.deepEqual(forward, expected)
        const backward: Array<string> = [...page.items.map((r) => r.encounter.id)]
        let prev = page.prev_page_token
        while (prev !== null) {
          const p = yield* listEncounters(ws, { ...query, page_token: prev })
          backward.unshift(...p.items.map((r) => r.encounter.id))
          prev = p.prev_page_token
        }
        assert.deepEqual(backward, forward)

        const token = (yield* listEncounters(ws, query)).next_page_token!
        for (const other of [{ patient_last_name: "pai" }, { payer_id: "X" }, { date_of_service_from: "2026-04-03" }, { patient_last_name: undefined }]) {
          const r = yield* Effect.either(listEncounters(ws, { ...query, ...other, page_token: token }))
          assert.ok(Either.isLeft(r) && r.left._tag === "InvalidQuery" && r.left.errors[0]?.path === "page_token", JSON.stringify(other))
        }
        // A token of a list without search filters still pages that list.
        const plain = yield* listEncounters(ws, { limit: 2 })
        assert.equal((yield* listEncounters(ws, { limit: 2, page_token: plain.next_page_token! })).items.length, 2)

        const bad = yield* Effect.either(
          listEncounters(ws, {
            patient_last_name: "",
            patient_date_of_birth: "1970-02-30",
            date_of_service_from: "2026-4-1",
            date_of_service_to: "yesterday",
            external_id_prefix: "x".repeat(256),
            payer_id: ""
          })
        )
        assert.ok(Either.isLeft(bad) && bad.left._tag === "InvalidQuery")
        assert.deepEqual(
          bad.left.errors.map((e) => e.path),
          ["patient_last_name", "patient_date_of_birth", "date_of_service_from", "date_of_service_to", "external_id_prefix", "payer_id"]
        )
        const reversed = yield* Effect.either(listEncounters(ws, { date_of_service_from: "2026-04-05", date_of_service_to: "2026-04-04" }))
        assert.ok(Either.isLeft(reversed) && reversed.left._tag === "InvalidQuery")
        assert.deepEqual(reversed.left.errors.map((e) => e.path), ["date_of_service_to"])
      }),
      clock
    )
  })

  test("claims by status: each status's count and billed total, following moves; the workspace's own only", () =>
    run(
      Effect.gen(function* () {
        const storage = yield* Storage
        const ws = yield* workspace("clinic-a")
        const other = yield* workspace("clinic-b")
        const a = yield* create(ws, "M-1", { last: "A", birth: "1980-01-01", charges: [10000, 2550] })
        yield* create(ws, "M-2", { last: "B", birth: "1980-01-01", charges: [4000] })
        yield* create(ws, "M-3", { last: "C", birth: "1980-01-01", charges: [1, 2, 3] })
        // Lines past a 32-bit integer of cents, together.
        yield* create(ws, "M-4", { last: "D", birth: "1980-01-01", charges: [2_000_000_000, 2_000_000_000] })
        yield* create(other, "M-1", { last: "A", birth: "1980-01-01", charges: [999] })
        yield* changeClaimStatus(ws, (yield* getEncounter(ws, a)).claim.id, "coded")
        const byStatus = (c: ReadonlyArray<{ readonly status: string; readonly count: number; readonly billed_cents: number }>) =>
          Object.fromEntries(c.filter((x) => x.count > 0).map((x) => [x.status, [x.count, x.billed_cents]]))
        assert.deepEqual(byStatus(yield* countClaimsByStatus(ws)), { coded: [1, 12550], draft: [3, 4_000_004_006] })
        assert.deepEqual(byStatus(yield* storage.countClaimStatuses(other)), { draft: [1, 999] })
        const all = yield* countClaimsByStatus(ws)
        assert.deepEqual(all.find((c) => c.status === "paid"), { status: "paid", count: 0, billed_cents: 0 })
      })
    ))

  test("a status's work list: by age or amount, either way round, paged both ways, with days in the status", () => {
    const clock = Clock.manual(T0)
    return run(
      Effect.gen(function* () {
        const ws = yield* workspace("clinic-a")
        const charges = [500, 7000, 7000, 120, 9999, 3000, 7000]
        const ids: Array<EncounterId> = []
        for (const [i, cents] of charges.entries()) {
          ids.push(yield* create(ws, `W-${i}`, { last: "W", birth: "1980-01-01", charges: [cents] }))
        }
        // Moved into `coded` on different days, not in creation order; W-6 stays a draft.
        const movedOn = [3, 0, 5, 1, 1, 4]
        for (const day of [0, 1, 3, 4, 5]) {
          clock.control.set(T0 + day * DAY)
          for (const [i, d] of movedOn.entries()) if (d === day) yield* changeClaimStatus(ws, (yield* getEncounter(ws, ids[i]!)).claim.id, "coded")
        }
        clock.control.set(T0 + 10 * DAY + 3_600_000)
        const all = (sort: string, order: string, limit: number) =>
          Effect.gen(function* () {
            const out: Array<string> = []
            let page = yield* listClaimWork(ws, { status: "coded", sort, order, limit })
            for (;;) {
              out.push(...page.items.map((r) => r.external_id))
              if (page.next_page_token === null) break
              page = yield* listClaimWork(ws, { status: "coded", sort, order, limit, page_token: page.next_page_token })
            }
            const back: Array<string> = page.items.map((r) => r.external_id)
            let prev = page.prev_page_token
            while (prev !== null) {
              const p = yield* listClaimWork(ws, { status: "coded", sort, order, limit, page_token: prev })
              back.unshift(...p.items.map((r) => r.external_id))
              prev = p.prev_page_token
            }
            assert.deepEqual(back, out)
            return out
          })
        // Longest in the status first; W-3 and W-4, moved at the same instant, by id (creation order).
        assert.deepEqual(yield* all("age", "desc", 2), ["W-1", "W-3", "W-4", "W-0", "W-5", "W-2"])
        assert.deepEqual(yield* all("age", "asc", 4), (yield* all("age", "desc", 5)).reverse())
        // Largest first; equal amounts by id, descending.
        assert.deepEqual(yield* all("amount", "desc", 2), ["W-4", "W-2", "W-1", "W-5", "W-0", "W-3"])
        assert.deepEqual(yield* all("amount", "asc", 3), ["W-3", "W-0", "W-5", "W-1", "W-2", "W-4"])
        const first = yield* listClaimWork(ws, { status: "coded", limit: 1 })
        assert.deepEqual([first.items[0]?.external_id, first.items[0]?.days_in_status, first.items[0]?.total_charge_cents], ["W-1", 10, 7000])
        assert.deepEqual((yield* listClaimWork(ws, { status: "paid" })).items, [])

        const token = first.next_page_token!
        const other = yield* Effect.either(listClaimWork(ws, { status: "coded", sort: "amount", limit: 1, page_token: token }))
        assert.ok(Either.isLeft(other) && other.left._tag === "InvalidQuery" && other.left.errors[0]?.path === "page_token")
        const bad = yield* Effect.either(listClaimWork(ws, { status: "nope", sort: "size", order: "up" }))
        assert.ok(Either.isLeft(bad) && bad.left._tag === "InvalidQuery")
        assert.deepEqual(bad.left.errors.map((e) => e.path), ["status", "sort", "order"])
        const missing = yield* Effect.either(listClaimWork(ws, {}))
        assert.ok(Either.isLeft(missing) && missing.left._tag === "InvalidQuery" && missing.left.errors[0]?.path === "status")
      }),
      clock
    )
  })
}
