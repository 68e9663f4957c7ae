import assert from "node:assert/strict"
import { Effect, Either, Option } from "effect"
import type { ClaimRecord } from "../../lib/domain/encounter.js"
import { ClaimId, type WorkspaceId } from "../../lib/domain/ids.js"
import { REMITTANCES_SHOWN, type RemittanceRecord } from "../../lib/domain/remittance.js"
import { summarize, type X12FileOutcomeRecord, type X12FileRecord } from "../../lib/domain/x12-exchange.js"
import type { Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { insert, update } from "../../lib/ports/write.js"
import { listClaimRemittances } from "../../lib/rules/claim-remittances.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter, listEncounters } from "../../lib/rules/read-encounters.js"
import { rawWrite } from "../support/raw-write.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { getX12File, listX12FileOutcomes, listX12Files } from "../../lib/rules/x12-reads.js"
import { insurancePayload } from "../support/payloads.js"

type Services = Storage | Clock | Ids

/**
 * Reads that never load what a claim or a file gathers without bound: a claim's remittances (its
 * most recent on every read of it, all of them paged), a file's outcomes (paged in file order),
 * a file's bytes (a record of their own), and the lookup of many claims at once.
 */
export const boundedReadsContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  test: (name: string, body: () => Promise<void>) => void
) => {
  const claimOf = (ws: WorkspaceId, externalId: string, pcn: string) =>
    Effect.gen(function* () {
      const created = yield* createEncounter(ws, { ...insurancePayload(externalId), patient_control_number: pcn })
      return (yield* getEncounter(ws, created.encounter_id)).claim
    })

  /** A remittance of `claim` as an import writes it: the row, and the time on its encounter's row. */
  const remit = (ws: WorkspaceId, claim: ClaimRecord, n: number) => {
    const at = new Date(Date.parse("2026-11-01T00:00:00.000Z") + n * 60_000).toISOString()
    const record: RemittanceRecord = {
      id: `01a00000-0000-7000-8000-${String(n).padStart(12, "0")}`,
      workspace_id: ws,
      claim_id: claim.id,
      received_at: at,
      file_id: `file-${n}`,
      check_number: `EFT${n}`,
      payment_date: "2026-11-01",
      payer_claim_control_number: null,
      charge_amount_cents: 100,
      paid_amount_cents: n,
      patient_responsibility_cents: null,
      adjustments: [],
      service_lines: [],
      discrepancies: []
    }
    return [
      insert("remittances", record),
      update("encounters", claim.encounter_id, { workspace_id: ws, latest_claim_id: claim.id }, { latest_claim_remittances_at: at })
    ]
  }

  test("claims by ids or control numbers, many in one read, with their encounters' keys; unknown values and other workspaces' claims left out", () =>
    run(
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("bounded-a", "A")).id
        const other = (yield* createWorkspace("bounded-b", "B")).id
        const claims = [yield* claimOf(ws, "e1", "PCNM1"), yield* claimOf(ws, "e2", "PCNM2"), yield* claimOf(ws, "e3", "PCNM3")]
        const theirs = yield* claimOf(other, "e1", "PCNM4")
        const storage = yield* Storage
        const byPcn = yield* storage.findClaims(ws, "patient_control_number", ["PCNM3", "PCNM1", "NOPE", "PCNM4"])
        assert.deepEqual(byPcn.map((f) => f.claim.patient_control_number).sort(), ["PCNM1", "PCNM3"])
        const first = byPcn.find((f) => f.claim.patient_control_number === "PCNM1")!
        assert.deepEqual(first.encounter, { id: claims[0]!.encounter_id, external_id: "e1", latest_claim_id: claims[0]!.id })
        assert.deepEqual(first.claim, claims[0])
        const byId = yield* storage.findClaims(ws, "id", [claims[1]!.id, theirs.id, "01a00000-0000-7000-8000-00000000dead"])
        assert.deepEqual(byId.map((f) => f.claim.id), [claims[1]!.id])
        assert.deepEqual(yield* storage.findClaims(ws, "id", []), [])
      })
    ))

  test(`reads of a claim carry its ${REMITTANCES_SHOWN} most recent remittances, oldest first, and say there are more; all are paged newest first`, () =>
    run(
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("bounded-r", "R")).id
        const storage = yield* Storage
        const claim = yield* claimOf(ws, "enc-r", "PCNR1")
        const few = yield* claimOf(ws, "enc-few", "PCNR2")
        const total = REMITTANCES_SHOWN + 3
        for (let n = 1; n <= total; n++) yield* rawWrite(storage, { operation: "test", steps: remit(ws, claim, n) })
        yield* rawWrite(storage, { operation: "test", steps: [...remit(ws, few, 100), ...remit(ws, few, 101)] })

        const newest = Array.from({ length: REMITTANCES_SHOWN }, (_, i) => total - REMITTANCES_SHOWN + 1 + i)
        const read = yield* getEncounter(ws, claim.encounter_id)
        assert.deepEqual([read.remittances?.map((r) => r.paid_amount_cents), read.more_remittances], [newest, true])
        const viaClaim = Option.getOrThrow(yield* storage.findClaim(ws, claim.id))
        assert.deepEqual([viaClaim.remittances?.map((r) => r.paid_amount_cents), viaClaim.more_remittances], [newest, true])
        const viaPcn = Option.getOrThrow(yield* storage.findClaimByPcn(ws, "PCNR1"))
        assert.deepEqual(viaPcn.remittances?.map((r) => r.paid_amount_cents), newest)
        const fewRead = yield* getEncounter(ws, few.encounter_id)
        assert.deepEqual([fewRead.remittances?.map((r) => r.paid_amount_cents), fewRead.more_remittances ?? false], [[100, 101], false])
        const page = yield* listEncounters(ws, {})
        const listed = page.items.find((e) => e.encounter.id === claim.encounter_id)!
        assert.deepEqual([listed.remittances?.length, listed.more_remittances], [REMITTANCES_SHOWN, true])

        // Every one, newest first, in pages of 5 forward, then back.
        const forward: Array<number> = []
        let p = yield* listClaimRemittances(ws, claim.id, { limit: 5 })
        forward.push(...p.items.map((r) => r.paid_amount_cents))
        while (p.next_page_token !== null) {
          p = yield* listClaimRemittances(ws, claim.id, { limit: 5, page_token: p.next_page_token })
          forward.push(...p.items.map((r) => r.paid_amount_cents))
        }
        assert.deepEqual(forward, Array.from({ length: total }, (_, i) => total - i))
        const back: Array<number> = [...p.items.map((r) => r.paid_amount_cents)]
        while (p.prev_page_token !== null) {
          p = yield* listClaimRemittances(ws, claim.id, { limit: 5, page_token: p.prev_page_token })
          back.unshift(...p.items.map((r) => r.paid_amount_cents))
        }
        assert.deepEqual(back, forward)
        assert.deepEqual((yield* storage.page("remittances", ws, { where: { claim_id: ClaimId.make(few.id) }, limit: 10 })).map((r) => r.paid_amount_cents), [101, 100])

        const other = (yield* createWorkspace("bounded-r2", "R2")).id
        for (const [w, id] of [[other, claim.id], [ws, "not-a-claim"]] as const) {
          const missing = yield* Effect.either(listClaimRemittances(w, id, {}))
          assert.ok(Either.isLeft(missing) && missing.left._tag === "ClaimNotFound")
        }
        const foreignToken = yield* Effect.either(listClaimRemittances(ws, few.id, { page_token: (yield* listClaimRemittances(ws, claim.id, { limit: 1 })).next_page_token ?? "" }))
        assert.ok(Either.isLeft(foreignToken) && foreignToken.left._tag === "InvalidQuery")
      })
    ))

  test("a file's outcomes are stored one by one and paged in file order both ways; its bytes are a record of their own", () =>
    run(
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("bounded-f", "F")).id
        const storage = yield* Storage
        const outcomes = Array.from({ length: 12 }, (_, i) => ({
          patient_control_number: `PCN${i}`,
          claim_id: null,
          outcome: i % 3 === 0 ? ("unmatched" as const) : ("unchanged" as const),
          previous_status: null,
          status: null,
          detail: `entry ${i}`,
          response: null
        }))
        const body = new TextEncoder().encode("ISA*...")
        const file: X12FileRecord = {
          id: "01a00000-0000-7000-8000-0000000f11e1",
          workspace_id: ws,
          received_at: "2026-11-02T00:00:00.000Z",
          key_id: null,
          content_type: "application/edi-x12",
          kind: "277CA",
          sender_id: "CLEARHOUSE",
          interchange_control_number: "000000001",
          interchange_key: "CLEARHOUSE|000000001",
          content_key: "content:0",
          reused_control_number_of: null,
          sha256: "0".repeat(64),
          size: body.byteLength,
          claims: outcomes.slice(0, 2),
          summary: summarize(outcomes),
          error: null,
          import_state: "imported",
          import_resume_at: null
        }
        // Written out of order: the order is the position.
        const rows: Array<X12FileOutcomeRecord> = outcomes.map((o, position) => ({ id: `${file.id}.${position}`, workspace_id: ws, file_id: file.id, position, ...o }))
        yield* rawWrite(storage, {
          operation: "test",
          steps: [insert("x12_files", file), insert("x12_file_bodies", { id: file.id, workspace_id: ws, body }), ...[...rows].reverse().map((r) => insert("x12_file_outcomes", r))]
        })

        assert.deepEqual(Option.getOrThrow(yield* storage.get("x12_files", ws, file.id)), file)
        assert.deepEqual((yield* storage.page("x12_files", ws, { limit: 10 }))[0], file)
        assert.deepEqual(Option.getOrThrow(yield* storage.findX12FileByInterchange(ws, file.interchange_key)), file)
        assert.deepEqual(Option.getOrThrow(yield* storage.findX12FileBySha(ws, file.sha256)), file)
        // Compared as bytes: drivers answer a Buffer, a Uint8Array of their own.
        assert.deepEqual([...Option.getOrThrow(yield* storage.get("x12_file_bodies", ws, file.id)).body], [...body])
        const view = yield* getX12File(ws, file.id)
        assert.deepEqual([view.size, view.claims.length, view.summary], [body.byteLength, 2, { total: 12, status_changed: 0, unchanged: 8, unmatched: 4, conflict: 0 }])
        assert.deepEqual((yield* listX12Files(ws, {})).items, [view])

        const forward: Array<string> = []
        let p = yield* listX12FileOutcomes(ws, file.id, { limit: 5 })
        forward.push(...p.items.map((o) => o.detail))
        assert.equal(p.prev_page_token, null)
        while (p.next_page_token !== null) {
          p = yield* listX12FileOutcomes(ws, file.id, { limit: 5, page_token: p.next_page_token })
          forward.push(...p.items.map((o) => o.detail))
        }
        assert.deepEqual(forward, outcomes.map((o) => o.detail))
        assert.deepEqual(p.items[0], outcomes[10])
        const back: Array<string> = [...p.items.map((o) => o.detail)]
        while (p.prev_page_token !== null) {
          p = yield* listX12FileOutcomes(ws, file.id, { limit: 5, page_token: p.prev_page_token })
          back.unshift(...p.items.map((o) => o.detail))
        }
        assert.deepEqual(back, forward)

        const other = (yield* createWorkspace("bounded-f2", "F2")).id
        const missing = yield* Effect.either(listX12FileOutcomes(other, file.id, {}))
        assert.ok(Either.isLeft(missing) && missing.left._tag === "X12FileNotFound")
        assert.deepEqual(yield* storage.listX12FileOutcomes(other, file.id, { limit: 10 }), [])
        const badLimit = yield* Effect.either(listX12FileOutcomes(ws, file.id, { limit: 0 }))
        assert.ok(Either.isLeft(badLimit) && badLimit.left._tag === "InvalidQuery")
      })
    ))
}
