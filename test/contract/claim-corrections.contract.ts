import assert from "node:assert/strict"
import { Effect, Either, Option } from "effect"
import type { ClaimRecord } from "../../lib/domain/encounter.js"
import { ClaimId, EncounterId, EventId, type WorkspaceId } from "../../lib/domain/ids.js"
import type { Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { claimAdded } from "../../lib/rules/claim-writes.js"
import { commit } from "../../lib/rules/commit.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { correctClaim } from "../../lib/rules/correct-claim.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getClaim, listEncounterClaims, withAllClaims } from "../../lib/rules/encounter-claims.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { listTasks } from "../../lib/rules/tasks.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { make835 } from "../support/x12-remits.js"
import { make277, make999 } from "../support/x12-files.js"
import { clearinghouseSettingsInput, exportablePayload } from "./clearinghouse.contract.js"

type Services = Storage | Clock | Ids

const encoder = new TextEncoder()

/** A secondary subscriber for the COB cases. */
export const secondarySubscriber = {
  first_name: "Avery",
  last_name: "Testpatient",
  gender: "female",
  patient_relationship_to_subscriber_code: "18",
  insurance_card: { member_id: "S-2", payer_name: "Second Health", payer_id: "SEC02" }
}

/**
 * Corrections of claims on one adapter (issue "a claim's second life"): the four actions, the
 * refusals, the one-winner race, the StatusUpdated event of each, the latest-claim bookkeeping,
 * and the clearinghouse's later files moving the claim they name, latest or not.
 */
export const claimCorrectionsContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  test: (name: string, body: () => Promise<void>) => void
) => {
  /** One exportable encounter, sent in a batch: its claim is `submitted_to_payer`. */
  const submitted = (slug: string, pcn: string, extra: Record<string, unknown> = {}) =>
    Effect.gen(function* () {
      const ws = (yield* createWorkspace(slug, slug.toUpperCase())).id
      yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
      const payload = { ...exportablePayload(`enc-${pcn}`, pcn), ...extra }
      const created = yield* createEncounter(ws, payload)
      const claimId = (yield* getEncounter(ws, created.encounter_id)).claim.id
      const batch = yield* createX12Batch(ws, [claimId])
      return { ws, encounterId: created.encounter_id, claimId, payload, batch }
    })
  const upload = (ws: WorkspaceId, text: string) => importX12File({ workspace_id: ws, body: encoder.encode(text), content_type: "application/edi-x12" })
  const claimRow = (ws: WorkspaceId, id: string) =>
    Effect.map(Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(id))), (found): ClaimRecord => Option.getOrThrow(found).claim)
  const lastStatusEvent = (ws: WorkspaceId) =>
    Effect.map(listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] }), (page) => page.items[page.items.length - 1]!)
  /** The 835 that pays PCN's claim $100 of $125 (CO-45 $5, PR-1 $20), payer claim number `control`. */
  const paid835 = (icn: number, pcn: string, control: string) =>
    make835(icn, [{
      pcn,
      charge: 125,
      paid: 100,
      patientResponsibility: 20,
      payerControl: control,
      lines: [{ procedure: "99213", charge: 125, paid: 100, adjustments: [["CO", "45", 5], ["PR", "1", 20]] }]
    }])

  test("resubmit: a rejected claim gets a new original claim, draft, new PCN, the latest; one StatusUpdated event", () =>
    run(
      Effect.gen(function* () {
        const { ws, encounterId, claimId } = yield* submitted("corr-a", "PCNCA1")
        yield* upload(ws, make277(501, [{ pcn: "PCNCA1", category: "A7", text: "INVALID MEMBER" }]))
        assert.equal((yield* claimRow(ws, claimId)).status, "rejected")
        const made = yield* correctClaim(ws, claimId, { action: "resubmit", note: "member id fixed" })
        assert.equal(made.encounter_id, encounterId)
        assert.equal(made.claim.status, "draft")
        assert.equal(made.claim.resubmission_original_claim_id, claimId)
        assert.equal(made.claim.resubmission_action, "resubmit")
        assert.equal(made.claim.original_payer_claim_control_number, null)
        assert.notEqual(made.claim.patient_control_number, "PCNCA1")
        const stored = yield* claimRow(ws, made.claim.id)
        assert.equal(stored.frequency_code, "1")
        // The encounter's latest claim is the new one; its first claim keeps its own status.
        const read = yield* getEncounter(ws, encounterId)
        assert.equal(read.encounter.latest_claim_id, made.claim.id)
        assert.equal(read.claim.id, made.claim.id)
        assert.equal(read.claim.status, "draft")
        assert.equal(read.claim.resubmission_action, "resubmit")
        assert.equal(read.claim.patient_control_number, made.claim.patient_control_number)
        assert.deepEqual(read.remittances ?? [], [])
        assert.equal((yield* claimRow(ws, claimId)).status, "rejected")
        const event = yield* lastStatusEvent(ws)
        assert.deepEqual(event.payload, {
          encounter_id: encounterId,
          external_id: "enc-PCNCA1",
          claim_id: made.claim.id,
          previous_status: "rejected",
          status: "draft",
          note: "member id fixed"
        })
        const claims = yield* listEncounterClaims(ws, encounterId)
        assert.deepEqual(claims.map((c) => c.id), [claimId, made.claim.id])
        assert.deepEqual(claims.map((c) => c.status), ["rejected", "draft"])
        // The rejection's task closed in the correction's write: the rejected claim was fixed and replaced.
        const [task] = (yield* listTasks(ws, { claim_id: claimId })).items
        assert.equal(task?.type, "rejection_resolution")
        assert.equal(task?.status, "done")
        assert.equal(task?.closed_reason, `claim ${made.claim.id} made from it (resubmit)`)
        // The compat read lists both; an encounter with one claim needs no further read.
        const all = yield* withAllClaims(ws, read)
        assert.deepEqual(all.all_claims?.map((c) => c.claim.id), [claimId, made.claim.id])
        // The new claim goes out in a batch like any other.
        yield* createX12Batch(ws, [made.claim.id])
        assert.equal((yield* claimRow(ws, made.claim.id)).status, "submitted_to_payer")
      })
    ))

  test("replace with new content: frequency 7 with the payer's claim number; each claim keeps the content it was billed from", () =>
    run(
      Effect.gen(function* () {
        const { ws, encounterId, claimId, payload } = yield* submitted("corr-b", "PCNCB1")
        yield* upload(ws, paid835(601, "PCNCB1", "PAYER-CB1"))
        const paid = yield* claimRow(ws, claimId)
        assert.equal(paid.status, "paid")
        assert.equal(paid.payer_claim_control_number, "PAYER-CB1")
        const corrected = {
          ...payload,
          service_lines: [{ procedure_code: "99214", quantity: "1", units: "UN", diagnosis_pointers: [0], charge_amount_cents: 18000 }]
        }
        const made = yield* correctClaim(ws, claimId, { action: "replace", encounter: corrected })
        assert.equal(made.claim.original_payer_claim_control_number, "PAYER-CB1")
        assert.equal(made.claim.resubmission_action, "replace")
        assert.equal(made.claim.service_lines[0]?.procedure_code, "99214")
        assert.equal((yield* claimRow(ws, made.claim.id)).frequency_code, "7")
        // The encounter reads the new content (and its derived columns); the first claim, its own.
        const read = yield* getEncounter(ws, encounterId)
        assert.equal(read.encounter.payload.service_lines?.[0]?.procedure_code, "99214")
        const first = yield* getClaim(ws, claimId)
        assert.equal(first.service_lines[0]?.procedure_code, "99213")
        assert.equal(first.status, "paid")
        assert.equal(first.remittances.length, 1)
        const row = Option.getOrThrow(yield* (yield* Storage).get("encounters", ws, encounterId))
        assert.equal(row.billed_cents, 18000)
        assert.equal(row.latest_claim_frequency_code, "7")
        assert.equal(row.latest_claim_remittances_at, null)
        const claims = yield* listEncounterClaims(ws, encounterId)
        assert.deepEqual(claims.map((c) => c.service_lines[0]?.procedure_code), ["99213", "99214"])
        assert.deepEqual(claims.map((c) => c.remittances.length), [1, 0])
      })
    ))

  test("void: frequency 8 of the same content with the payer's claim number; it takes no new content", () =>
    run(
      Effect.gen(function* () {
        const { ws, encounterId, claimId, payload } = yield* submitted("corr-c", "PCNCC1")
        yield* upload(ws, paid835(602, "PCNCC1", "PAYER-CC1"))
        const withContent = yield* Effect.either(correctClaim(ws, claimId, { action: "void", encounter: payload }))
        assert.ok(Either.isLeft(withContent) && withContent.left._tag === "InvalidEncounter")
        const made = yield* correctClaim(ws, claimId, { action: "void" })
        assert.equal((yield* claimRow(ws, made.claim.id)).frequency_code, "8")
        assert.equal(made.claim.original_payer_claim_control_number, "PAYER-CC1")
        assert.equal((yield* getEncounter(ws, encounterId)).claim.original_payer_claim_control_number, "PAYER-CC1")
      })
    ))

  test("secondary: after the primary's 835, a claim to the secondary payer that carries the primary", () =>
    run(
      Effect.gen(function* () {
        const { ws, encounterId, claimId } = yield* submitted("corr-d", "PCNCD1", { subscriber_secondary: secondarySubscriber })
        const early = yield* Effect.either(correctClaim(ws, claimId, { action: "secondary" }))
        assert.ok(Either.isLeft(early) && early.left._tag === "InvalidCorrection")
        yield* upload(ws, paid835(603, "PCNCD1", "PAYER-CD1"))
        const made = yield* correctClaim(ws, claimId, { action: "secondary" })
        assert.equal(made.claim.resubmission_action, "secondary")
        assert.equal(made.claim.payer_id, "SEC02")
        assert.equal(made.claim.original_payer_claim_control_number, null)
        const stored = yield* claimRow(ws, made.claim.id)
        assert.equal(stored.primary_claim_id, claimId)
        assert.equal(stored.frequency_code, "1")
        assert.equal((yield* getEncounter(ws, encounterId)).claim.primary_claim_id, claimId)
      })
    ))

  test("refusals: not the latest claim, a status the action does not take, no payer claim number, no secondary subscriber, bad content", () =>
    run(
      Effect.gen(function* () {
        const { ws, claimId, payload } = yield* submitted("corr-e", "PCNCE1")
        const refusedWith = <A, E extends { readonly _tag: string }>(effect: Effect.Effect<A, E, Services>) =>
          Effect.map(Effect.either(effect), (r) => {
            assert.ok(Either.isLeft(r), "expected a refusal")
            return r.left
          })
        // submitted_to_payer takes no correction.
        const submittedRefusal = yield* refusedWith(correctClaim(ws, claimId, { action: "resubmit" }))
        assert.ok(submittedRefusal._tag === "InvalidCorrection")
        assert.equal(submittedRefusal.status, "submitted_to_payer")
        assert.deepEqual(submittedRefusal.allowed, [])
        // Paid, but the payer's number unknown (moved by hand): replace and void refused, naming what is allowed.
        yield* changeClaimStatus(ws, claimId, "paid")
        const noNumber = yield* refusedWith(correctClaim(ws, claimId, { action: "replace" }))
        assert.ok(noNumber._tag === "InvalidCorrection")
        assert.deepEqual(noNumber.allowed, ["replace", "void", "secondary"])
        assert.match(noNumber.reason, /payer's claim control number/)
        const resubmitPaid = yield* refusedWith(correctClaim(ws, claimId, { action: "resubmit" }))
        assert.ok(resubmitPaid._tag === "InvalidCorrection" && resubmitPaid.status === "paid")
        const noSecondary = yield* refusedWith(correctClaim(ws, claimId, { action: "secondary" }))
        assert.ok(noSecondary._tag === "InvalidCorrection")
        assert.match(noSecondary.reason, /subscriber_secondary/)
        // Content is validated as a create is: every problem at once, under `encounter`; the same external id.
        const bad = yield* refusedWith(
          correctClaim(ws, claimId, { action: "replace", encounter: { ...payload, diagnoses: [], place_of_service_code: 7 } })
        )
        assert.ok(bad._tag === "InvalidEncounter")
        assert.ok(bad.errors.length >= 2)
        assert.ok(bad.errors.every((e) => e.path.startsWith("encounter")))
        const otherExt = yield* refusedWith(correctClaim(ws, claimId, { action: "replace", encounter: { ...payload, external_id: "other" } }))
        assert.ok(otherExt._tag === "InvalidEncounter" && otherExt.errors[0]?.path === "encounter.external_id")
        // A claim that is no longer the latest cannot be corrected.
        yield* upload(ws, paid835(604, "PCNCE1", "PAYER-CE1"))
        const made = yield* correctClaim(ws, claimId, { action: "void" })
        const notLatest = yield* refusedWith(correctClaim(ws, claimId, { action: "void" }))
        assert.ok(notLatest._tag === "InvalidCorrection")
        assert.match(notLatest.reason, new RegExp(`latest claim \\(${made.claim.id}\\)`))
        const missing = yield* refusedWith(correctClaim(ws, "01900000-0000-7000-8000-00000000dead", { action: "void" }))
        assert.equal(missing._tag, "ClaimNotFound")
        // Another workspace's claim is not found.
        const other = (yield* createWorkspace("corr-e2", "E2")).id
        const foreign = yield* refusedWith(correctClaim(other, made.claim.id, { action: "void" }))
        assert.equal(foreign._tag, "ClaimNotFound")
      })
    ))

  test("concurrent corrections of one claim make exactly one new claim and one event", () =>
    run(
      Effect.gen(function* () {
        const { ws, encounterId, claimId } = yield* submitted("corr-f", "PCNCF1")
        yield* upload(ws, make277(502, [{ pcn: "PCNCF1", category: "A7" }]))
        const before = (yield* listEvents(ws, {})).items.length
        const tasksBefore = (yield* listEvents(ws, { event_types: ["ExternalApi.Task.Created", "ExternalApi.Task.Updated"] })).items.length
        const results = yield* Effect.all(
          [0, 1, 2, 3].map(() => Effect.either(correctClaim(ws, claimId, { action: "resubmit" }))),
          { concurrency: "unbounded" }
        )
        const won = results.filter(Either.isRight)
        assert.equal(won.length, 1)
        assert.ok(results.every((r) => Either.isRight(r) || r.left._tag === "InvalidCorrection"))
        assert.equal((yield* listEncounterClaims(ws, encounterId)).length, 2)
        // One StatusUpdated of the new claim, and one Task.Updated: the rejection's task closed.
        assert.equal((yield* listEvents(ws, {})).items.length, before + 2)
        assert.equal((yield* listEvents(ws, { event_types: ["ExternalApi.Task.Created", "ExternalApi.Task.Updated"] })).items.length, tasksBefore + 1)
        assert.equal((yield* getEncounter(ws, encounterId)).claim.id, won[0]!.right.claim.id)
      })
    ))

  test("a correction's write is refused when its claim moved since it was read, or is no longer the latest", () =>
    run(
      Effect.gen(function* () {
        const { ws, encounterId, claimId } = yield* submitted("corr-h", "PCNCH1")
        yield* changeClaimStatus(ws, claimId, "rejected")
        const read = Option.getOrThrow(yield* (yield* Storage).findClaim(ws, ClaimId.make(claimId)))
        // The claim moves on after the read: the write judged on "rejected" is refused, nothing written.
        yield* changeClaimStatus(ws, claimId, "draft")
        const attempt = (suffix: string) => {
          const made: ClaimRecord = { ...read.claim, id: ClaimId.make(`0190ffff-0000-7000-8000-00000000000${suffix}`), patient_control_number: `PCNCHX${suffix}`, status: "draft", resubmission_original_claim_id: read.claim.id, resubmission_action: "resubmit" }
          const event = {
            id: EventId.make(`0190ffff-0000-7000-8000-00000000010${suffix}`),
            workspace_id: ws,
            event_type: "ExternalApi.Encounter.StatusUpdated" as const,
            created_at: read.claim.created_at,
            timestamp: read.claim.created_at,
            payload: { encounter_id: encounterId, external_id: "enc-PCNCH1", claim_id: made.id, previous_status: "rejected", status: "draft" }
          }
          return commit(claimAdded(ws, read.encounter, read.claim, made, event, undefined, []))
        }
        assert.deepEqual(yield* attempt("1"), { _tag: "Refused", refusal: "stale" })
        assert.equal((yield* listEncounterClaims(ws, encounterId)).length, 1)
        assert.equal((yield* getEncounter(ws, encounterId)).claim.id, claimId)
      })
    ))

  test("a 999, 277CA or 835 naming an earlier claim moves that claim only; the encounter's latest claim is unchanged", () =>
    run(
      Effect.gen(function* () {
        const { ws, encounterId, claimId, batch } = yield* submitted("corr-g", "PCNCG1")
        // Rejected, resubmitted (the new claim is the latest, draft); then the clearinghouse speaks of the old one.
        yield* upload(ws, make277(503, [{ pcn: "PCNCG1", category: "A7" }]))
        const made = yield* correctClaim(ws, claimId, { action: "resubmit" })
        yield* changeClaimStatus(ws, claimId, "submitted_to_payer")
        // A 999 rejecting the first batch's set bounces the earlier claim.
        yield* upload(ws, make999(504, batch.group_control_number, [["0001", "R"]]))
        assert.equal((yield* claimRow(ws, claimId)).status, "submission_bounced")
        let event = yield* lastStatusEvent(ws)
        assert.equal(event.payload.claim_id, claimId)
        assert.equal(event.payload.status, "submission_bounced")
        yield* changeClaimStatus(ws, claimId, "submitted_to_payer")
        // A 277CA acknowledgment with the payer's number, then an 835 paying it.
        yield* upload(ws, make277(505, [{ pcn: "PCNCG1", category: "A2", payerControl: "PAYER-CG1", trace: "CHT-CG1" }]))
        yield* upload(ws, paid835(506, "PCNCG1", "PAYER-CG1"))
        const old = yield* claimRow(ws, claimId)
        assert.equal(old.status, "paid")
        assert.equal(old.payer_claim_control_number, "PAYER-CG1")
        assert.notEqual(old.processing_started_at, null)
        // The exchange's identifiers: the first batch's interchange and set, the 277CA's trace.
        assert.deepEqual(old.clearinghouse_transaction_ids, [`ISA13:${String(batch.interchange_control_number).padStart(9, "0")}`, "ST02:0001", "D9:CHT-CG1"])
        event = yield* lastStatusEvent(ws)
        assert.equal(event.payload.claim_id, claimId)
        assert.equal(event.payload.status, "paid")
        const read = yield* getEncounter(ws, encounterId)
        assert.equal(read.claim.id, made.claim.id)
        assert.equal(read.claim.status, "draft")
        assert.equal(read.claim.payer_claim_control_number, null)
        assert.deepEqual(read.remittances ?? [], [])
        const claims = yield* listEncounterClaims(ws, encounterId)
        assert.deepEqual(claims.map((c) => c.status), ["paid", "draft"])
        assert.equal(claims[0]!.remittances.length, 1)
        // The encounter's row was written, so a kept render of it cannot be stale.
        assert.ok((read.revision ?? 0) > 0)
        assert.equal(EncounterId.make(encounterId), read.encounter.id)
      })
    ))
}
