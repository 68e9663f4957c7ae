import assert from "node:assert/strict"
import { Effect } from "effect"
import type { Clock, Ids } from "../../lib/ports/clock.js"
import type { Storage } from "../../lib/ports/storage.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { listX12Files } from "../../lib/rules/x12-reads.js"
import { x12File } from "../support/x12-files.js"
import { clearinghouseSettingsInput, exportablePayload } from "./clearinghouse.contract.js"

type Services = Storage | Clock | Ids

/** The exchange's preconditions under concurrency: the control number counter and the interchange key. */
export const clearinghouseRaces = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  test: (name: string, body: () => Promise<void>) => void
) => {
  const setup = (pcns: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const ws = (yield* createWorkspace("clinic-r", "R")).id
      yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
      const claims: Array<string> = []
      for (const pcn of pcns) {
        const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
        claims.push((yield* getEncounter(ws, created.encounter_id)).claim.id)
      }
      return { ws, claims }
    })

  test("concurrent batches take distinct control numbers; concurrent batches of one claim: one wins", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup(["PCNR1", "PCNR2", "PCNR3", "PCNR4", "PCNR5"])
        const batches = yield* Effect.all(claims.slice(0, 4).map((c) => createX12Batch(ws, [c])), { concurrency: "unbounded" })
        assert.deepEqual(batches.map((b) => b.interchange_control_number).sort(), [1, 2, 3, 4])
        const same = yield* Effect.all([0, 1, 2].map(() => Effect.either(createX12Batch(ws, [claims[4]!]))), { concurrency: "unbounded" })
        assert.equal(same.filter((r) => r._tag === "Right").length, 1)
        assert.ok(same.every((r) => r._tag === "Right" || r.left._tag === "BatchTransitionsRefused"))
        const moves = (yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items
        assert.equal(moves.length, 5)
      })
    ))

  test("the same file imported concurrently is applied once; the others answer it as a duplicate", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup(["PCN0001", "PCN0005", "PCN0007", "PCN0010"])
        yield* createX12Batch(ws, claims)
        const before = (yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.length
        const body = new TextEncoder().encode(x12File("835-mixed.x12"))
        const results = yield* Effect.all(
          [0, 1, 2, 3].map(() => importX12File({ workspace_id: ws, body, content_type: "application/edi-x12" })),
          { concurrency: "unbounded" }
        )
        assert.equal(results.filter((r) => !r.duplicate).length, 1)
        assert.equal(new Set(results.map((r) => r.id)).size, 1)
        // Paid, paid (a deductible) and denied: the reversal of a claim never paid is a conflict.
        assert.equal((yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.length, before + 3)
        assert.equal((yield* listX12Files(ws, {})).items.length, 1)
      })
    ))
}
