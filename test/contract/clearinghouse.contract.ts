import assert from "node:assert/strict"
import { Effect, Either, Option } from "effect"
import type { WorkspaceId } from "../../lib/domain/ids.js"
import { ClaimId } from "../../lib/domain/ids.js"
import type { Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getClearinghouseSettings, putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch, preview837P } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { getX12BatchFile, listX12Batches, listX12Files } from "../../lib/rules/x12-reads.js"
import { insurancePayload } from "../support/payloads.js"
import { make277, make999, x12File } from "../support/x12-files.js"

type Services = Storage | Clock | Ids

export const clearinghouseSettingsInput = {
  interchange_sender_id: "SENDER01",
  interchange_receiver_id: "CLEARHOUSE",
  submitter: { name: "Encounterd Billing", id: "SUB123", contact_name: "Ops Desk", contact_phone: "6155550100" },
  receiver: { name: "Example Clearinghouse", id: "CH987" },
  usage: "T"
}

/** An exportable claim with the given control number (the hand-written responses name PCN0001…). */
export const exportablePayload = (externalId: string, pcn: string) => ({
  ...insurancePayload(externalId),
  date_of_service: "2026-10-01",
  patient_control_number: pcn
})

const encoder = new TextEncoder()

/**
 * The clearinghouse exchange over one adapter: settings, batches with their control numbers and
 * status moves, and the hand-written 999, 277CA and 835 driving statuses, events and remittances.
 */
export const clearinghouseContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  test: (name: string, body: () => Promise<void>) => void
) => {
  const setup = (pcns: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const ws = (yield* createWorkspace("clinic-x", "Clinic X")).id
      yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
      const claims: Record<string, string> = {}
      for (const pcn of pcns) {
        const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
        claims[pcn] = (yield* getEncounter(ws, created.encounter_id)).claim.id
      }
      return { ws, claims }
    })
  const statusOf = (ws: WorkspaceId, claimId: string) =>
    Effect.map(
      Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(claimId))),
      (found) => Option.getOrThrow(found)
    )
  const upload = (ws: WorkspaceId, text: string) => importX12File({ workspace_id: ws, body: encoder.encode(text), content_type: "application/edi-x12" })

  test("clearinghouse settings: 404 while unset, then stored and replaced; exports need them", () =>
    run(
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("clinic-s", "S")).id
        const none = yield* Effect.either(getClearinghouseSettings(ws))
        assert.ok(Either.isLeft(none) && none.left._tag === "ClearinghouseSettingsNotFound")
        const created = yield* createEncounter(ws, exportablePayload("enc-s", "PCNS1"))
        const claimId = (yield* getEncounter(ws, created.encounter_id)).claim.id
        const preview = yield* Effect.either(preview837P(ws, claimId))
        assert.ok(Either.isLeft(preview) && preview.left._tag === "ClearinghouseNotConfigured")
        const bad = yield* Effect.either(putClearinghouseSettings(ws, { ...clearinghouseSettingsInput, usage: "X" }))
        assert.ok(Either.isLeft(bad) && bad.left._tag === "InvalidClearinghouseSettings")
        yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
        yield* putClearinghouseSettings(ws, { ...clearinghouseSettingsInput, usage: "P" })
        assert.equal((yield* getClearinghouseSettings(ws)).usage, "P")
        const text = yield* preview837P(ws, claimId)
        assert.match(text, /^ISA\*/)
        assert.match(text, /\*P\*:~/)
        assert.match(text, /CLM\*PCNS1\*125\.00\*/)
        assert.equal((yield* statusOf(ws, claimId)).claim.status, "draft")
      })
    ))

  test("a batch moves every claim with its event and takes increasing control numbers; a refused one changes nothing", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup(["PCN0001", "PCN0005", "PCN0007"])
        const first = yield* createX12Batch(ws, [claims.PCN0001!, claims.PCN0005!])
        assert.deepEqual([first.interchange_control_number, first.group_control_number], [1, 1])
        assert.deepEqual(first.claim_ids, [claims.PCN0001, claims.PCN0005])
        for (const pcn of ["PCN0001", "PCN0005"]) assert.equal((yield* statusOf(ws, claims[pcn]!)).claim.status, "submitted_to_payer")
        const moves = (yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items
        assert.deepEqual(moves.map((e) => [e.payload.claim_id, e.payload.previous_status, e.payload.status]), [
          [claims.PCN0001, "draft", "submitted_to_payer"],
          [claims.PCN0005, "draft", "submitted_to_payer"]
        ])
        const bytes = new TextDecoder().decode(yield* getX12BatchFile(ws, first.id))
        assert.match(bytes, /\*000000001\*0\*T\*:~/)
        assert.match(bytes, /CLM\*PCN0001\*/)

        // PCN0001 is already submitted: the whole batch is refused, PCN0007 stays a draft.
        const refused = yield* Effect.either(createX12Batch(ws, [claims.PCN0007!, claims.PCN0001!]))
        assert.ok(Either.isLeft(refused) && refused.left._tag === "BatchTransitionsRefused")
        assert.deepEqual(refused.left.claims.map((c) => c.claim_id), [claims.PCN0001])
        assert.equal((yield* statusOf(ws, claims.PCN0007!)).claim.status, "draft")
        const second = yield* createX12Batch(ws, [claims.PCN0007!])
        assert.deepEqual([second.interchange_control_number, second.group_control_number], [2, 2])
        const page = yield* listX12Batches(ws, { limit: 1 })
        assert.deepEqual(page.items.map((b) => b.id), [second.id])
        assert.notEqual(page.next_page_token, null)
      })
    ))

  test("a batch whose hand-over fails before the write (the CLI's file) is not stored and moves nothing; the hand-over sees the stored bytes", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup(["PCN0001"])
        const failed = yield* Effect.either(createX12Batch(ws, [claims.PCN0001!], () => Effect.fail("disk full" as const)))
        assert.ok(Either.isLeft(failed) && failed.left === "disk full")
        assert.equal((yield* statusOf(ws, claims.PCN0001!)).claim.status, "draft")
        assert.equal((yield* listX12Batches(ws, {})).items.length, 0)
        const handed: Array<Uint8Array> = []
        const sent = yield* createX12Batch(ws, [claims.PCN0001!], (batch) => Effect.sync(() => void handed.push(batch.file)))
        // The control number the failed batch was built with was never taken.
        assert.equal(sent.interchange_control_number, 1)
        assert.equal(handed.length, 1)
        assert.equal(new TextDecoder().decode(handed[0]), new TextDecoder().decode(yield* getX12BatchFile(ws, sent.id)))
        assert.equal((yield* statusOf(ws, claims.PCN0001!)).claim.status, "submitted_to_payer")
      })
    ))

  test("a batch holding a claim the 837P cannot carry is refused whole", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup(["PCN0001"])
        const selfPay = yield* createEncounter(ws, { ...exportablePayload("enc-self", "PCNSELF"), responsible_party: "SELF_PAY" })
        const selfPayClaim = (yield* getEncounter(ws, selfPay.encounter_id)).claim.id
        const refused = yield* Effect.either(createX12Batch(ws, [claims.PCN0001!, selfPayClaim]))
        assert.ok(Either.isLeft(refused) && refused.left._tag === "ClaimsNotExportable")
        assert.deepEqual(refused.left.claims.map((c) => [c.claim_id, c.problems.map((p) => p.field)]), [[selfPayClaim, ["responsible_party"]]])
        assert.equal((yield* statusOf(ws, claims.PCN0001!)).claim.status, "draft")
        assert.equal((yield* listX12Batches(ws, {})).items.length, 0)
      })
    ))

  test("277CA then 835: statuses, events, acknowledgments and remittances; unmatched and refused moves reported", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup(["PCN0001", "PCN0005", "PCN0007", "PCN0010"])
        yield* createX12Batch(ws, Object.values(claims))
        const ack = yield* upload(ws, x12File("277ca-mixed.x12"))
        assert.equal(ack.kind, "277CA")
        assert.deepEqual(ack.claims.map((c) => [c.patient_control_number, c.outcome, c.status]), [
          ["PCN0001", "unchanged", "submitted_to_payer"],
          ["PCN0005", "status_changed", "rejected"],
          ["PCN0010", "unchanged", "submitted_to_payer"],
          ["PCNX0099", "unmatched", null],
          ["PCN0007", "status_changed", "rejected"]
        ])
        assert.equal(ack.claims[3]!.claim_id, null)
        const one = yield* statusOf(ws, claims.PCN0001!)
        assert.equal(one.claim.payer_claim_control_number, "PLB2026112400017")
        assert.notEqual(one.claim.processing_started_at, null)
        const read = yield* getEncounter(ws, one.encounter.id)
        assert.equal(read.claim.payer_claim_control_number, "PLB2026112400017")
        assert.equal(read.claim.processing_started_at, one.claim.processing_started_at)
        const rejected = (yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.filter((e) => e.payload.status === "rejected")
        assert.equal(rejected.length, 2)
        assert.match(String(rejected[0]?.payload.note), /A7:562:85.*Billing provider NPI not on file/)

        const remit = yield* upload(ws, x12File("835-mixed.x12"))
        assert.deepEqual(remit.claims.map((c) => [c.patient_control_number, c.outcome, c.previous_status, c.status]), [
          ["PCN0001", "status_changed", "submitted_to_payer", "paid"],
          ["PCN0007", "conflict", "rejected", "rejected"],
          ["PCNX0099", "unmatched", null, null],
          ["PCN0005", "conflict", "rejected", "rejected"],
          ["PCN0010", "status_changed", "submitted_to_payer", "paid"]
        ])
        assert.match(remit.claims[1]?.detail ?? "", /era_requires_review/)
        const paid = yield* getEncounter(ws, one.encounter.id)
        assert.equal(paid.claim.status, "paid")
        assert.deepEqual(paid.remittances?.map((r) => ({ ...r, id: "-", received_at: "-" })), [
          {
            id: "-",
            received_at: "-",
            workspace_id: ws,
            claim_id: claims.PCN0001,
            file_id: remit.id,
            check_number: "EFT20261130001",
            payment_date: "2026-11-30",
            payer_claim_control_number: "PLB2026112400017",
            charge_amount_cents: 26800,
            paid_amount_cents: 20000,
            patient_responsibility_cents: 2000,
            adjustments: [],
            service_lines: [
              { procedure_code: "92014", line_control_number: "sl-shr-0001-1", service_date: "2026-01-15", charge_amount_cents: 17000, paid_amount_cents: 13000, adjustments: [{ group: "CO", reason: "45", amount_cents: 2800 }, { group: "PR", reason: "1", amount_cents: 1200 }] },
              { procedure_code: "92083", line_control_number: "sl-shr-0001-2", service_date: "2026-01-15", charge_amount_cents: 9800, paid_amount_cents: 7000, adjustments: [{ group: "CO", reason: "45", amount_cents: 2000 }, { group: "PR", reason: "2", amount_cents: 800 }] }
            ],
            // The hand-written 835 pays other lines than the claim billed (one 99213 of 125.00): flagged, not taken silently.
            discrepancies: [
              { code: "charge_differs", line: null, detail: "CLP03 268.00 is not the billed total 125.00" },
              { code: "line_unmatched", line: 0, detail: "paid line 92014 of 2026-01-15 (sl-shr-0001-1) matches no billed line" },
              { code: "line_unmatched", line: 1, detail: "paid line 92083 of 2026-01-15 (sl-shr-0001-2) matches no billed line" }
            ]
          }
        ])
        // A conflict still keeps the money: the rejected claim holds its reversal's remittance.
        assert.equal((yield* statusOf(ws, claims.PCN0007!)).remittances?.length, 1)

        // The reversal and its correction in one file: paid -> era_requires_review -> paid.
        const reversal = yield* upload(ws, x12File("835-reversal.x12"))
        assert.deepEqual(reversal.claims.map((c) => [c.outcome, c.previous_status, c.status]), [
          ["status_changed", "paid", "era_requires_review"],
          ["status_changed", "era_requires_review", "paid"]
        ])
        const after = yield* statusOf(ws, claims.PCN0001!)
        assert.equal(after.claim.payer_claim_control_number, "PLB2026120200031")
        assert.deepEqual(after.remittances?.map((r) => r.paid_amount_cents), [20000, -20000, 18000])
        const last = (yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.slice(-2)
        assert.deepEqual(last.map((e) => e.payload.status), ["era_requires_review", "paid"])
      })
    ))

  test("999: a rejected transaction set bounces its batch's claims; an accepted one changes nothing", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup(["PCNA1", "PCNA2", "PCNB1"])
        const a = yield* createX12Batch(ws, [claims.PCNA1!, claims.PCNA2!])
        const b = yield* createX12Batch(ws, [claims.PCNB1!])
        const accepted = yield* upload(ws, make999(501, b.group_control_number, [["0001", "A"]]))
        assert.deepEqual(accepted.claims.map((c) => [c.claim_id, c.outcome]), [[claims.PCNB1, "unchanged"]])
        const rejected = yield* upload(ws, make999(502, a.group_control_number, [["0001", "R"]]))
        assert.deepEqual(rejected.claims.map((c) => [c.claim_id, c.outcome, c.status]), [
          [claims.PCNA1, "status_changed", "submission_bounced"],
          [claims.PCNA2, "status_changed", "submission_bounced"]
        ])
        const unknown = yield* upload(ws, make999(503, 777, [], "R"))
        assert.deepEqual(unknown.claims.map((c) => [c.patient_control_number, c.claim_id, c.outcome]), [[null, null, "unmatched"]])
        assert.equal((yield* statusOf(ws, claims.PCNB1!)).claim.status, "submitted_to_payer")
      })
    ))

  test("the same interchange again, or a malformed file, applies nothing", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup(["PCN0001", "PCN0005", "PCN0007", "PCN0010"])
        yield* createX12Batch(ws, Object.values(claims))
        const first = yield* upload(ws, x12File("835-mixed.x12"))
        const eventsAfterFirst = (yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.length
        const again = yield* upload(ws, x12File("835-mixed.x12"))
        assert.deepEqual([again.id, again.duplicate, again.claims], [first.id, true, first.claims])
        // Same sender and ISA13 with other bytes (a line break dropped) is the same interchange.
        const reformatted = yield* upload(ws, x12File("835-mixed.x12").replace("~\n", "~"))
        assert.deepEqual([reformatted.id, reformatted.duplicate], [first.id, true])
        const malformed = yield* Effect.either(upload(ws, x12File("835-bad-se-count.x12")))
        assert.ok(Either.isLeft(malformed) && malformed.left._tag === "X12ReadError")
        assert.deepEqual([malformed.left.segment_id, malformed.left.position], ["SE", 39])
        const truncated = yield* Effect.either(upload(ws, make277(601, [{ pcn: "PCN0005", category: "A3" }]).slice(0, -40)))
        assert.ok(Either.isLeft(truncated) && truncated.left._tag === "X12ReadError")
        assert.equal((yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })).items.length, eventsAfterFirst)
        const files = (yield* listX12Files(ws, {})).items
        assert.deepEqual(files.map((f) => f.kind), ["invalid", "invalid", "835"])
        assert.match(files[1]?.error ?? "", /at segment 39 \(SE\)/)
        assert.deepEqual([files[1]?.sender_id, files[1]?.claims], [null, []])
        assert.equal((yield* statusOf(ws, claims.PCN0001!)).remittances?.length, 1)
        assert.equal((yield* statusOf(ws, claims.PCN0005!)).claim.status, "denied")
      })
    ))
}
