import assert from "node:assert/strict"
import { Effect, Either } from "effect"
import type { WorkspaceId } from "../../lib/domain/ids.js"
import type { Clock, Ids } from "../../lib/ports/clock.js"
import type { Storage } from "../../lib/ports/storage.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { listX12FileOutcomes, listX12Files } from "../../lib/rules/x12-reads.js"
import { bomb277, bomb835, bomb999Sets, interchange } from "../support/x12-bombs.js"
import { make277 } from "../support/x12-files.js"
import { clearinghouseSettingsInput, exportablePayload } from "./clearinghouse.contract.js"

type Services = Storage | Clock | Ids

const encoder = new TextEncoder()

/**
 * What one imported file may make, over one adapter: a claim named again is one outcome (the last
 * decision, counted); an 835 takes at most 3 CLPs per claim; a 999 at most 100 batches; entries
 * naming no claim are listed up to 1000; the answer lists the first 1000 outcomes with a summary.
 */
export const x12BoundsContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  test: (name: string, body: () => Promise<void>) => void
) => {
  const setup = (pcns: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const ws = (yield* createWorkspace("bounds", "Bounds")).id
      yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
      const claims: Array<string> = []
      const encounters: Array<string> = []
      for (const pcn of pcns) {
        const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
        claims.push((yield* getEncounter(ws, created.encounter_id)).claim.id)
        encounters.push(created.encounter_id)
      }
      return { ws, claims, encounters }
    })
  const upload = (ws: WorkspaceId, text: string) => importX12File({ workspace_id: ws, body: encoder.encode(text), content_type: "application/edi-x12" })

  test("a 999 acknowledging one set again and again: one outcome per claim, the last decision, its entries counted", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup(["PCNB01", "PCNB02", "PCNB03"])
        const batch = yield* createX12Batch(ws, claims)
        // 7 loops alternating accepted and rejected: the last (the 7th) accepts.
        const accepted = yield* upload(ws, bomb999Sets(801, batch.group_control_number, 7))
        assert.deepEqual(accepted.summary, { total: 3, status_changed: 0, unchanged: 3, unmatched: 0, conflict: 0 })
        assert.deepEqual(accepted.claims.map((c) => c.claim_id), claims)
        assert.match(accepted.claims[0]!.detail, /^999 A: transaction set 0001 accepted \(named 7 times in this file; the last entry kept\)$/)
        // 8 loops: the last rejects, and each claim moves once, with one event.
        const before = (yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.length
        const rejected = yield* upload(ws, bomb999Sets(802, batch.group_control_number, 8))
        assert.deepEqual(rejected.claims.map((c) => [c.outcome, c.status]), claims.map(() => ["status_changed", "submission_bounced"]))
        assert.equal((yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.length, before + 3)
        const files = (yield* listX12Files(ws, {})).items
        assert.deepEqual(files.map((f) => f.summary.total), [3, 3])
      })
    ))

  test("a 277CA naming a claim twice: one outcome, the last loop's decision", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims, encounters } = yield* setup(["PCNT01", "PCNT02"])
        yield* createX12Batch(ws, claims)
        const res = yield* upload(
          ws,
          make277(803, [
            { pcn: "PCNT01", category: "A7", text: "Rejected first" },
            { pcn: "PCNT02", category: "A1" },
            { pcn: "PCNT01", category: "A2", payerControl: "PAYER1" }
          ])
        )
        assert.deepEqual(res.claims.map((c) => [c.patient_control_number, c.outcome]), [["PCNT02", "unchanged"], ["PCNT01", "unchanged"]])
        assert.match(res.claims[1]!.detail, /named 2 times in this file; the last entry kept/)
        const first = yield* getEncounter(ws, encounters[0]!)
        assert.deepEqual([first.claim.status, first.claim.payer_claim_control_number], ["submitted_to_payer", "PAYER1"])
      })
    ))

  test("an 835 takes up to 3 CLPs for one claim, each a remittance; a 4th refuses the whole file", () =>
    run(
      Effect.gen(function* () {
        const { ws, encounters } = yield* setup(["PCNP01", "PCNP02"])
        const three = yield* upload(ws, bomb835(804, 3, () => "PCNP01"))
        assert.deepEqual(three.claims.map((c) => c.patient_control_number), ["PCNP01", "PCNP01", "PCNP01"])
        assert.equal((yield* getEncounter(ws, encounters[0]!)).remittances?.length, 3)
        const eventsBefore = (yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.length
        const four = yield* Effect.either(upload(ws, bomb835(805, 5, (i) => (i === 1 ? "PCNP02" : "PCNP01"))))
        assert.ok(Either.isLeft(four) && four.left._tag === "X12ReadError")
        assert.equal(four.left.message, "the 4th CLP for patient control number PCNP01 in one file: at most 3 are taken for one claim (a reversal, its correction and one more) at segment 22 (CLP)")
        assert.equal((yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.length, eventsBefore)
        assert.equal((yield* getEncounter(ws, encounters[1]!)).remittances, undefined)
        const [refused] = (yield* listX12Files(ws, {})).items
        assert.deepEqual([refused?.kind, refused?.summary.total], ["invalid", 0])
      })
    ))

  test("a 999 acknowledging more than 100 batches is refused", () =>
    run(
      Effect.gen(function* () {
        const { ws } = yield* setup([])
        const sets = Array.from({ length: 101 }, (_, i) => [`AK1*HC*${i + 1}*005010X222A1`, "AK9*A*0*0*0"])
        // One group per transaction set: each ST holds one AK1.
        const text = interchange(806, "FA", "005010X231A1", "999", sets[0]!).replace(
          /SE\*4\*0001~\n/,
          `SE*4*0001~\n${sets.slice(1).map((s, i) => `ST*999*${String(i + 2).padStart(4, "0")}*005010X231A1~\n${s.join("~\n")}~\nSE*4*${String(i + 2).padStart(4, "0")}~\n`).join("")}`
        ).replace("GE*1*806", "GE*101*806")
        const res = yield* Effect.either(upload(ws, text))
        assert.ok(Either.isLeft(res) && res.left._tag === "X12ReadError")
        assert.match(res.left.message, /^a 999 acknowledging more than 100 functional groups/)
      })
    ))

  test("entries naming no claim: the first 1000 listed, the rest counted in one outcome; the answer lists 1000, all are paged", () =>
    run(
      Effect.gen(function* () {
        const { ws } = yield* setup(["PCNU01"])
        const res = yield* upload(ws, bomb277(807, 1004, (i) => (i === 500 ? "PCNU01" : `UNKNOWN${String(i).padStart(5, "0")}`)))
        assert.deepEqual(res.summary, { total: 1002, status_changed: 0, unchanged: 1, unmatched: 1001, conflict: 0 })
        assert.equal(res.claims.length, 1000)
        const all: Array<string> = []
        let page = yield* listX12FileOutcomes(ws, res.id, {})
        all.push(...page.items.map((o) => o.detail))
        while (page.next_page_token !== null) {
          page = yield* listX12FileOutcomes(ws, res.id, { page_token: page.next_page_token })
          all.push(...page.items.map((o) => o.detail))
        }
        assert.equal(all.length, 1002)
        assert.equal(all[1001], "3 more entries name no claim of this workspace (from UNKNOWN01001 to UNKNOWN01003); the file is kept as received")
        const again = yield* upload(ws, bomb277(807, 1004, (i) => (i === 500 ? "PCNU01" : `UNKNOWN${String(i).padStart(5, "0")}`)))
        assert.deepEqual([again.duplicate, again.claims, again.summary], [true, res.claims, res.summary])
        const [file] = (yield* listX12Files(ws, {})).items
        assert.deepEqual([file?.claims.length, file?.summary], [20, res.summary])
      })
    ))
}
