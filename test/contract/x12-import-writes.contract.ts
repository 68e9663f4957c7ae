import assert from "node:assert/strict"
import { Effect, Either, Option } from "effect"
import { StorageError } from "../../lib/domain/errors.js"
import { ClaimId, type WorkspaceId } from "../../lib/domain/ids.js"
import type { Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import type { CommittedWrite, WriteResult } from "../../lib/ports/write.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { finishImports, importX12File, ImportWriteSteps } from "../../lib/rules/x12-import.js"
import { listX12FileOutcomes } from "../../lib/rules/x12-reads.js"
import { bomb835 } from "../support/x12-bombs.js"
import { make277 } from "../support/x12-files.js"
import { clearinghouseSettingsInput, exportablePayload } from "./clearinghouse.contract.js"

type Services = Storage | Clock | Ids

const encoder = new TextEncoder()
const CLAIMS = 12
const pcnOf = (i: number) => `PCNW${String(i).padStart(3, "0")}`
/** One or two claims of an 835 per write: 12 claims make several writes. */
const SMALL = 10

/**
 * A file naming many claims is applied in several writes (x12-import.ts), over one adapter: the
 * same outcomes, events and remittances as in one write; a process stopped between two writes
 * leaves the file `importing`, and finishing it (at start, or on the same file sent again) applies
 * each entry once; a claim moved by someone else between two writes is judged as it now is.
 */
export const x12ImportWritesContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  test: (name: string, body: () => Promise<void>) => void
) => {
  const setup = (slug: string) =>
    Effect.gen(function* () {
      const ws = (yield* createWorkspace(slug, slug)).id
      yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
      const claims: Array<string> = []
      for (let i = 0; i < CLAIMS; i++) {
        const created = yield* createEncounter(ws, exportablePayload(`enc-${pcnOf(i)}`, pcnOf(i)))
        claims.push((yield* getEncounter(ws, created.encounter_id)).claim.id)
      }
      yield* createX12Batch(ws, claims)
      return { ws, claims }
    })
  const upload = (ws: WorkspaceId, text: string) => importX12File({ workspace_id: ws, body: encoder.encode(text), content_type: "application/edi-x12" })
  const small = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.locally(effect, ImportWriteSteps, SMALL)
  /** Counts the import's writes; `fail` makes the write of that number fail as a stopped disk would, without writing; `before` runs before one. */
  const counting = <A, E>(effect: Effect.Effect<A, E, Services>, seen: { n: number }, fail?: number, before?: (n: number) => Effect.Effect<void, never, Services>) =>
    Effect.gen(function* () {
      const storage = yield* Storage
      const context = yield* Effect.context<Services>()
      const write = <R>(w: CommittedWrite<R>): Effect.Effect<WriteResult<R>, StorageError> => {
        if (w.operation !== "importX12File") return storage.write(w)
        const n = ++seen.n
        if (n === fail) return Effect.fail(new StorageError({ operation: w.operation, cause: "disk gone" }))
        return Effect.zipRight(Effect.provide(before === undefined ? Effect.void : before(n), context), storage.write(w))
      }
      return yield* Effect.provideService(effect, Storage, { ...storage, write })
    })
  /** The claim of each status move recorded, in order. */
  const moves = (ws: WorkspaceId) =>
    Effect.map(listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"], limit: 100 }), (p) =>
      p.items.map((e) => (typeof e.payload === "object" && e.payload !== null && "claim_id" in e.payload ? String(e.payload.claim_id) : ""))
    )
  const movesPerClaim = (ws: WorkspaceId) =>
    Effect.map(moves(ws), (all) => {
      const per = new Map<string, number>()
      for (const m of all) per.set(m, (per.get(m) ?? 0) + 1)
      return per
    })
  const outcomesOf = (ws: WorkspaceId, fileId: string) =>
    Effect.map(listX12FileOutcomes(ws, fileId, { limit: 100 }), (p) => p.items.map((o) => [o.patient_control_number, o.outcome, o.previous_status, o.status]))
  const remittances = (ws: WorkspaceId, claims: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const storage = yield* Storage
      let n = 0
      for (const id of claims) n += (yield* storage.page("remittances", ws, { where: { claim_id: ClaimId.make(id) }, limit: 10 })).length
      return n
    })
  const file835 = bomb835(901, CLAIMS, pcnOf)

  test("x12 import writes: an 835 of many claims in several writes does what one write does", () =>
    run(
      Effect.gen(function* () {
        const one = yield* setup("writes-one")
        const seenOne = { n: 0 }
        const whole = yield* counting(upload(one.ws, file835), seenOne)
        assert.equal(seenOne.n, 1)
        const many = yield* setup("writes-many")
        const seenMany = { n: 0 }
        const cut = yield* small(counting(upload(many.ws, file835), seenMany))
        assert.ok(seenMany.n >= 4, `${seenMany.n} writes`)
        assert.equal(cut.summary.total, CLAIMS)
        assert.deepEqual([cut.summary, cut.duplicate], [whole.summary, false])
        assert.deepEqual(
          cut.claims.map((c) => [c.patient_control_number, c.outcome, c.status]),
          whole.claims.map((c) => [c.patient_control_number, c.outcome, c.status])
        )
        assert.deepEqual(yield* outcomesOf(many.ws, cut.id), yield* outcomesOf(one.ws, whole.id))
        assert.equal((yield* moves(many.ws)).length, (yield* moves(one.ws)).length)
        assert.equal(yield* remittances(many.ws, many.claims), CLAIMS)
        const stored = Option.getOrThrow(yield* (yield* Storage).get("x12_files", many.ws, cut.id))
        assert.deepEqual([stored.import_state, stored.import_resume_at, stored.summary, stored.claims.length], ["imported", null, whole.summary, CLAIMS])
      })
    ))

  test("x12 import writes: a file stopped between two writes is finished at start, each entry applied once; sent again it answers as a duplicate", () =>
    run(
      Effect.gen(function* () {
        const one = yield* setup("stopped-one")
        const whole = yield* upload(one.ws, file835)
        const { ws, claims } = yield* setup("stopped")
        const failed = yield* Effect.either(small(counting(upload(ws, file835), { n: 0 }, 3)))
        assert.ok(Either.isLeft(failed) && failed.left._tag === "StorageError")
        const storage = yield* Storage
        const [left] = yield* storage.page("x12_files", ws, { where: { import_state: "importing" }, limit: 5 })
        assert.ok(left !== undefined)
        assert.ok(left.import_resume_at !== null && left.import_resume_at > 0 && left.import_resume_at < CLAIMS, String(left.import_resume_at))
        const movedBefore = (yield* moves(ws)).length
        assert.ok(movedBefore > 0 && movedBefore < (yield* moves(one.ws)).length)

        assert.equal(yield* small(finishImports), 1)
        assert.equal(yield* finishImports, 0)
        const done = Option.getOrThrow(yield* storage.get("x12_files", ws, left.id))
        assert.deepEqual([done.import_state, done.import_resume_at, done.summary.total], ["imported", null, CLAIMS])
        assert.equal((yield* moves(ws)).length, (yield* moves(one.ws)).length)
        assert.equal(yield* remittances(ws, claims), CLAIMS)
        assert.deepEqual(yield* outcomesOf(ws, left.id), yield* outcomesOf(one.ws, whole.id))
        assert.deepEqual(done.summary, whole.summary)

        const again = yield* upload(ws, file835)
        assert.deepEqual([again.id, again.duplicate, again.summary], [left.id, true, whole.summary])
        assert.equal(yield* remittances(ws, claims), CLAIMS)
      })
    ))

  test("x12 import writes: the same file sent again while it is left importing finishes it once", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("resent")
        const before = yield* movesPerClaim(ws)
        const failed = yield* Effect.either(small(counting(upload(ws, file835), { n: 0 }, 2)))
        assert.ok(Either.isLeft(failed))
        const again = yield* small(upload(ws, file835))
        assert.deepEqual([again.duplicate, again.summary.total], [true, CLAIMS])
        assert.equal(yield* remittances(ws, claims), CLAIMS)
        // One move of each claim by the file (the batch made the others).
        const after = yield* movesPerClaim(ws)
        assert.deepEqual(claims.map((c) => (after.get(c) ?? 0) - (before.get(c) ?? 0)), claims.map(() => 1))
      })
    ))

  test("x12 import writes: a claim moved by someone else between two writes is judged as it now is", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("raced")
        // A 277CA rejecting every claim; before its second write, the last claim is moved by hand.
        const text = make277(902, Array.from({ length: CLAIMS }, (_, i) => ({ pcn: pcnOf(i), category: "A7", text: "Rejected" })))
        const last = claims[CLAIMS - 1]!
        const before = yield* movesPerClaim(ws)
        const res = yield* Effect.locally(
          counting(upload(ws, text), { n: 0 }, undefined, (n) => (n === 2 ? Effect.orDie(Effect.asVoid(changeClaimStatus(ws, last, "rejected", "by hand"))) : Effect.void)),
          ImportWriteSteps,
          8
        )
        assert.equal(res.summary.total, CLAIMS)
        const outcomes = (yield* listX12FileOutcomes(ws, res.id, { limit: 100 })).items
        assert.deepEqual(outcomes.map((o) => o.patient_control_number), claims.map((_, i) => pcnOf(i)))
        const lastOutcome = outcomes[CLAIMS - 1]!
        assert.deepEqual([lastOutcome.previous_status, lastOutcome.outcome], ["rejected", "unchanged"])
        assert.ok(outcomes.slice(0, CLAIMS - 1).every((o) => o.outcome === "status_changed" && o.status === "rejected"))
        // Each claim moved once: by the file, or (the last) by hand.
        const after = yield* movesPerClaim(ws)
        assert.deepEqual(claims.map((c) => (after.get(c) ?? 0) - (before.get(c) ?? 0)), claims.map(() => 1))
      })
    ))
}
