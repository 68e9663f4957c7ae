import assert from "node:assert/strict"
import { Effect, Option } from "effect"
import { ClaimId, type WorkspaceId } from "../../lib/domain/ids.js"
import type { Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { listX12FileOutcomes, listX12Files } from "../../lib/rules/x12-reads.js"
import { make999, x12File } from "../support/x12-files.js"
import { clearinghouseSettingsInput, exportablePayload } from "./clearinghouse.contract.js"

type Services = Storage | Clock | Ids

/**
 * Inbound files shaped as payers and clearinghouses send them (test/fixtures/x12): rejections of a
 * whole batch or billing provider, a reused control number, an empty STC02, line-level statuses, a
 * deductible-only claim, 999 segment and element errors, several envelopes with a byte-order mark.
 * Every first batch of a fresh workspace is interchange 1, so its set's BHT03 is `000000001-0001`.
 */
export const x12RealFilesContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  test: (name: string, body: () => Promise<void>) => void
) => {
  const encoder = new TextEncoder()
  const upload = (ws: WorkspaceId, text: string) => importX12File({ workspace_id: ws, body: encoder.encode(text), content_type: "application/edi-x12" })
  /** Claims made from `payloads` (by PCN), all sent in one batch. */
  const sent = (slug: string, payloads: Record<string, Record<string, unknown>>) =>
    Effect.gen(function* () {
      const ws = (yield* createWorkspace(slug, slug)).id
      yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
      const claims: Record<string, string> = {}
      for (const [pcn, payload] of Object.entries(payloads)) {
        const created = yield* createEncounter(ws, payload)
        claims[pcn] = (yield* getEncounter(ws, created.encounter_id)).claim.id
      }
      yield* createX12Batch(ws, Object.values(claims))
      return { ws, claims }
    })
  const plain = (pcns: ReadonlyArray<string>) => Object.fromEntries(pcns.map((pcn) => [pcn, exportablePayload(`enc-${pcn}`, pcn)]))
  const statusOf = (ws: WorkspaceId, claimId: string) =>
    Effect.map(Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(claimId))), (found) => Option.getOrThrow(found))
  const moves = (ws: WorkspaceId) =>
    Effect.map(listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"], limit: 100 }), (p) =>
      p.items.filter((e) => e.payload.status !== "submitted_to_payer").map((e) => [String(e.payload.claim_id), String(e.payload.status), String(e.payload.note ?? "")] as const)
    )

  test("277CA: a rejection of the whole transaction set (2200B, TRN02 = our BHT03) rejects each of its claims, with an event each", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* sent("real-batch", plain(["PCNB1", "PCNB2", "PCNB3"]))
        const result = yield* upload(ws, x12File("277ca-batch-rejected.x12"))
        assert.deepEqual(result.claims.map((c) => [c.patient_control_number, c.outcome, c.status]), [
          ["PCNB1", "status_changed", "rejected"],
          ["PCNB2", "status_changed", "rejected"],
          ["PCNB3", "status_changed", "rejected"]
        ])
        assert.deepEqual(result.claims[0]?.response?.statuses.map((s) => [s.level, s.codes[0]?.category, s.text]), [
          ["batch", "A3", "Submitter not authorized to send claims for this payer"]
        ])
        const events = yield* moves(ws)
        assert.deepEqual(events.map(([id, status]) => [id, status]), Object.values(claims).map((id) => [id, "rejected"]))
        assert.match(events[0]![2], /whole transaction set 000000001-0001 rejected: 277CA A3:24 Submitter not authorized/)
        // A batch-level rejection naming no set we sent is listed, not lost.
        const stray = yield* upload(ws, x12File("277ca-batch-rejected.x12").replace("TRN*2*000000001-0001", "TRN*2*000000077-0001"))
        assert.deepEqual(stray.claims.map((c) => [c.outcome, c.patient_control_number]), [["unmatched", null]])
        assert.match(stray.claims[0]!.detail, /no 837P transaction set with BHT03 000000077-0001/)
      })
    ))

  test("277CA: a billing provider rejected (2200C) rejects only that provider's claims of the set; the other provider's are acknowledged", () =>
    run(
      Effect.gen(function* () {
        const other = (pcn: string) => {
          const p = exportablePayload(`enc-${pcn}`, pcn)
          const address = { address1: "300 Fixture Ave", city: "Boise", state: "ID", zip_code: "83702", zip_plus_four_code: "1234" }
          return { ...p, billing_provider: { organization_name: "Other Clinic", npi: "1183647753", tax_id: "987654321", address } }
        }
        const { ws, claims } = yield* sent("real-provider", { ...plain(["PCNP1", "PCNP2"]), PCNP3: other("PCNP3") })
        const result = yield* upload(ws, x12File("277ca-provider-rejected.x12"))
        assert.deepEqual(result.claims.map((c) => [c.patient_control_number, c.outcome, c.status]), [
          ["PCNP1", "unchanged", "submitted_to_payer"],
          ["PCNP2", "unchanged", "submitted_to_payer"],
          ["PCNP3", "status_changed", "rejected"]
        ])
        assert.equal((yield* statusOf(ws, claims.PCNP1!)).claim.payer_claim_control_number, "PAYERP1")
        assert.ok((yield* statusOf(ws, claims.PCNP1!)).claim.processing_started_at !== null)
        const events = yield* moves(ws)
        assert.deepEqual(events.map(([id, status]) => [id, status]), [[claims.PCNP3, "rejected"]])
        assert.match(events[0]![2], /billing provider 1183647753 rejected: 277CA A3:562:85 Billing provider NPI not on file/)
        assert.deepEqual(result.claims[2]?.response?.statuses.map((s) => s.level), ["billing_provider"])
      })
    ))

  test("277CA: an empty STC02 is tolerated and noted; a line's status (2220D) with its REF*FJ and STC12 is kept and rejects the claim", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* sent("real-stc02", plain(["PCNE1", "PCNE2"]))
        const result = yield* upload(ws, x12File("277ca-empty-stc02-lines.x12"))
        assert.deepEqual(result.claims.map((c) => [c.patient_control_number, c.outcome, c.status]), [
          ["PCNE1", "unchanged", "submitted_to_payer"],
          ["PCNE2", "status_changed", "rejected"]
        ])
        assert.equal(result.claims[0]?.detail, "277CA A2:20:PR (STC02 missing)")
        assert.ok((yield* statusOf(ws, claims.PCNE1!)).claim.processing_started_at !== null)
        const rejected = result.claims[1]!
        assert.deepEqual(rejected.response?.statuses.map((s) => [s.level, s.procedure_code, s.line_control_number, s.date, s.missing, s.text]), [
          ["claim", null, null, null, ["STC02"], "Claim has line-level errors"],
          ["line", "99213", "L-E2", null, ["STC02"], "Procedure code for services rendered is invalid"]
        ])
        const [event] = yield* moves(ws)
        assert.equal(event?.[2], "277CA A3:21:PR Claim has line-level errors (STC02 missing)")
        // The file's outcomes, as the API pages them, carry the same detail.
        const files = (yield* listX12Files(ws, {})).items
        const paged = (yield* listX12FileOutcomes(ws, files[0]!.id, { limit: 10 })).items
        assert.deepEqual(paged.map((o) => o.response?.statuses.length), [1, 2])
      })
    ))

  test("999: a reused control number with other content is imported and flagged; its IK3/IK4 detail is kept; the same bytes again are a duplicate", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* sent("real-999", plain(["PCNR1"]))
        const accepted = yield* upload(ws, make999(801, 1, [["0001", "A"]]))
        assert.deepEqual([accepted.duplicate, accepted.reused_control_number, accepted.claims[0]?.outcome], [false, false, "unchanged"])
        const text = x12File("999-rejected-ik3-ik4.x12")
        const rejected = yield* upload(ws, text)
        assert.deepEqual([rejected.duplicate, rejected.reused_control_number], [false, true])
        assert.notEqual(rejected.id, accepted.id)
        assert.deepEqual(rejected.claims.map((c) => [c.patient_control_number, c.outcome, c.status]), [["PCNR1", "status_changed", "submission_bounced"]])
        assert.deepEqual(rejected.claims[0]?.response, {
          set_error_codes: ["5"],
          segment_errors: [
            { segment_id: "NM1", position: 21, loop: "2010BA", code: "8", elements: [{ position: "9", code: "7", bad_value: "M-1X" }] },
            { segment_id: "CLM", position: 26, loop: "2300", code: "8", elements: [{ position: "2", code: "6", bad_value: "12X.00" }, { position: "5:3", code: "7", bad_value: "9" }] }
          ],
          statuses: []
        })
        const [event] = yield* moves(ws)
        assert.deepEqual(event?.slice(0, 2), [claims.PCNR1, "submission_bounced"])
        assert.match(event![2], /NM1 at 21 \(loop 2010BA\) error 8; element 9 error 7; CLM at 26 \(loop 2300\) error 8; element 2 error 6/)
        const again = yield* upload(ws, text.replaceAll("~\n", "~"))
        assert.deepEqual([again.id, again.duplicate, again.reused_control_number], [rejected.id, true, true])
        const files = (yield* listX12Files(ws, {})).items
        assert.deepEqual(files.map((f) => [f.id, f.reused_control_number, f.reused_control_number_of]), [
          [rejected.id, true, accepted.id],
          [accepted.id, false, null]
        ])
        assert.equal((yield* listEvents(ws, { limit: 100, event_types: ["ExternalApi.Encounter.Created", "ExternalApi.Encounter.StatusUpdated"] })).items.length, 3)
      })
    ))

  test("835: two envelopes with a byte-order mark and a Ctrl-Z; a deductible-only claim is paid with a zero remittance; lines matched by code and date or REF*6R, what differs flagged", () =>
    run(
      Effect.gen(function* () {
        const lines = (pcn: string) => ({
          ...exportablePayload(`enc-${pcn}`, pcn),
          service_lines: [
            { procedure_code: "99213", modifiers: ["25"], quantity: "1", units: "UN", diagnosis_pointers: [0], charge_amount_cents: 12500, external_id: "L-L1" },
            { procedure_code: "96372", quantity: "1", units: "UN", diagnosis_pointers: [0], charge_amount_cents: 2500, external_id: "L-L2" }
          ]
        })
        const { ws, claims } = yield* sent("real-835", { ...plain(["PCND1"]), PCNL1: lines("PCNL1") })
        const body = new Uint8Array([...encoder.encode("\uFEFF"), ...encoder.encode(x12File("835-two-envelopes-bom.x12").replace(/^\uFEFF/, ""))])
        const result = yield* importX12File({ workspace_id: ws, body, content_type: "application/edi-x12" })
        assert.deepEqual(result.claims.map((c) => [c.patient_control_number, c.outcome, c.status]), [
          ["PCND1", "status_changed", "paid"],
          ["PCNL1", "status_changed", "paid"]
        ])
        assert.match(result.claims[0]!.detail, /paid 0\.00 of 125\.00, patient responsibility 125\.00 \(nothing paid: the patient's responsibility\)/)
        const deductible = yield* statusOf(ws, claims.PCND1!)
        assert.deepEqual(deductible.remittances?.map((r) => [r.paid_amount_cents, r.patient_responsibility_cents, r.discrepancies]), [[0, 12500, []]])
        const matched = (yield* statusOf(ws, claims.PCNL1!)).remittances?.[0]
        assert.deepEqual(matched?.service_lines.map((l) => [l.procedure_code, l.line_control_number, l.matched_line]), [
          ["99213", undefined, 0],
          ["96373", "L-L2", 1]
        ])
        assert.deepEqual(matched?.discrepancies, [{ code: "line_procedure_differs", line: 1, detail: "line L-L2 was billed as 96372 and paid as 96373" }])
        assert.deepEqual((yield* moves(ws)).map(([, status]) => status), ["paid", "paid"])
      })
    ))
}
