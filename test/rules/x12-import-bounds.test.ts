import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { liveServices } from "../../lib/layers.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { runWith } from "../support/run.js"
import { interchange } from "../support/x12-bombs.js"
import { make277 } from "../support/x12-files.js"

/**
 * Whatever a 999 or a 277CA repeats, a claim it names has one outcome, and that outcome and the
 * claim's status are the file's last decision on it (the entries it stands for counted).
 */

const KNOWN = ["PCNA1", "PCNA2", "PCNA3", "PCNA4"]
const encoder = new TextEncoder()

const services = Layer.merge(MemoryStorage.layer, liveServices)

/** A fresh store with the known claims sent in one batch (one transaction set, 0001). */
const setup = Effect.gen(function* () {
  const ws = (yield* createWorkspace("prop", "Prop")).id
  yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
  const encounters: Array<string> = []
  const claims: Array<string> = []
  for (const pcn of KNOWN) {
    const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
    encounters.push(created.encounter_id)
    claims.push((yield* getEncounter(ws, created.encounter_id)).claim.id)
  }
  const batch = yield* createX12Batch(ws, claims)
  return { ws, encounters, claims, group: batch.group_control_number }
})

const withBatch = <A>(body: (s: Effect.Effect.Success<typeof setup>) => Effect.Effect<A, unknown, Layer.Layer.Success<typeof services>>) =>
  runWith(services, Effect.flatMap(setup, body))

/** The last entry of each key and how many there were, in the order of each key's last entry. */
const lastOf = <A>(entries: ReadonlyArray<A>, key: (a: A) => string) => {
  const out = new Map<string, { entry: A; count: number }>()
  for (const e of entries) {
    const k = key(e)
    const count = (out.get(k)?.count ?? 0) + 1
    out.delete(k)
    out.set(k, { entry: e, count })
  }
  return out
}

describe("one outcome per claim, the last decision", () => {
  test("a 277CA naming known and unknown claims any number of times", async () => {
    const entry = fc.record({ pcn: fc.constantFrom(...KNOWN, "UNKNOWN1", "UNKNOWN2"), category: fc.constantFrom("A1", "A2", "A3", "A7") })
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 30 }), (entries) =>
        withBatch(({ ws, encounters }) =>
          Effect.gen(function* () {
            const res = yield* importX12File({ workspace_id: ws, body: encoder.encode(make277(500, entries)), content_type: "application/edi-x12" })
            const last = lastOf(entries, (e) => e.pcn)
            expect(res.claims.map((c) => c.patient_control_number)).toEqual([...last.keys()])
            for (const c of res.claims) {
              const { entry: e, count } = last.get(c.patient_control_number!)!
              expect(c.detail.includes(`named ${count} times in this file`)).toBe(count > 1)
              if (c.claim_id === null) continue
              const rejects = e.category === "A3" || e.category === "A7"
              expect([c.outcome, c.status]).toEqual(rejects ? ["status_changed", "rejected"] : ["unchanged", "submitted_to_payer"])
              const read = yield* getEncounter(ws, encounters[KNOWN.indexOf(e.pcn)]!)
              expect(read.claim.status).toBe(c.status!)
            }
          })
        )
      ),
      { numRuns: 25 }
    )
  }, 30_000)

  test("a 999 acknowledging the batch's sets, and the whole group, any number of times", async () => {
    const loop = fc.record({ set: fc.constantFrom("0001", "1", "0002", "0004", "whole"), code: fc.constantFrom("A", "E", "R") })
    await fc.assert(
      fc.asyncProperty(fc.array(loop, { minLength: 1, maxLength: 30 }), (loops) =>
        withBatch(({ ws, claims, group }) =>
          Effect.gen(function* () {
            // Each loop its own 999 transaction set: AK1, then an AK2 loop (or none, for the whole group), AK9.
            const sets = loops.map((l, i) => {
              const control = String(i + 1).padStart(4, "0")
              const body =
                l.set === "whole"
                  ? [`AK1*HC*${group}*005010X222A1`, `AK9*${l.code}*1*1*${l.code === "R" ? 0 : 1}`]
                  : [`AK1*HC*${group}*005010X222A1`, `AK2*837*${l.set}*005010X222A1`, `IK5*${l.code}`, `AK9*${l.code === "R" ? "R" : "A"}*1*1*${l.code === "R" ? 0 : 1}`]
              return [`ST*999*${control}*005010X231A1`, ...body, `SE*${body.length + 2}*${control}`]
            })
            const text = interchange(600, "FA", "005010X231A1", "999", [])
              .replace(/ST\*999\*0001\*005010X231A1~\nSE\*2\*0001~\n/, `${sets.flat().join("~\n")}~\n`)
              .replace("GE*1*600", `GE*${sets.length}*600`)
            const res = yield* importX12File({ workspace_id: ws, body: encoder.encode(text), content_type: "application/edi-x12" })
            // The batch is one set, 0001 (also named 1); the whole group is the same claims; others name none.
            const named = (l: (typeof loops)[number]): ReadonlyArray<string> => (l.set === "0002" || l.set === "0004" ? [] : claims)
            const decided = lastOf(loops.flatMap((l) => named(l).map((claim) => ({ claim, l }))), (d) => d.claim)
            const matched = res.claims.filter((c) => c.claim_id !== null)
            expect(matched.map((c) => c.claim_id).sort()).toEqual([...decided.keys()].sort())
            for (const c of matched) {
              const { entry } = decided.get(c.claim_id!)!
              expect(c.status).toBe(entry.l.code === "R" ? "submission_bounced" : "submitted_to_payer")
            }
          })
        )
      ),
      { numRuns: 25 }
    )
  }, 30_000)
})
