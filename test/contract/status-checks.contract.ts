import assert from "node:assert/strict"
import { Effect, Either, Option } from "effect"
import { ClaimId, type WorkspaceId } from "../../lib/domain/ids.js"
import { type Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listTasks } from "../../lib/rules/tasks.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { getStatusCheck, listStatusChecks, requestStatusCheck } from "../../lib/rules/status-checks.js"
import { export276 } from "../../lib/rules/status-checks-export.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { type Answer, make277Status } from "../support/x12-status.js"
import { clearinghouseSettingsInput, exportablePayload } from "./clearinghouse.contract.js"

type Services = Storage | Clock | Ids

const encoder = new TextEncoder()

/** Status checks over one adapter: asking, the file transport's 276 export, and the 277's effects. */
export const statusChecksContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  { test }: { readonly test: (name: string, body: () => Promise<void>) => void }
) => {
  const setup = (slug: string, pcns: ReadonlyArray<string>, status: "submitted_to_payer" | "draft" = "submitted_to_payer") =>
    Effect.gen(function* () {
      const ws = (yield* createWorkspace(slug, slug)).id
      yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
      const claims: Array<string> = []
      for (const pcn of pcns) {
        const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
        const claimId = (yield* getEncounter(ws, created.encounter_id)).claim.id
        if (status !== "draft") yield* changeClaimStatus(ws, claimId, status)
        claims.push(claimId)
      }
      return { ws, claims }
    })
  const claimOf = (ws: WorkspaceId, id: string) =>
    Effect.map(Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(id))), (found) => Option.getOrThrow(found).claim)
  const upload = (ws: WorkspaceId, text: string) => importX12File({ workspace_id: ws, body: encoder.encode(text), content_type: "application/edi-x12" })

  test("status checks: asked for, queued until a 276 export sends them, answered by a 277 per the category table", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("checks-a", ["C1", "C2", "C3", "C4", "C5", "C6"])
        const checks = []
        for (const id of claims) checks.push(yield* requestStatusCheck(ws, id))
        assert.deepEqual(checks.map((c) => [c.status, c.transport, c.effect]), claims.map(() => ["queued", "file", null]))
        const exported = yield* export276(ws)
        assert.equal(exported.checks.length, 6)
        assert.match(exported.text, /GS\*HR\*/)
        for (const c of checks) assert.ok(exported.text.includes(`TRN*1*${c.trace_number}~`))
        assert.equal((yield* getStatusCheck(ws, checks[0]!.id)).status, "sent")
        const again = yield* Effect.either(export276(ws))
        assert.ok(Either.isLeft(again) && again.left._tag === "InvalidExportRequest")

        const answers: ReadonlyArray<Answer> = [
          { trace: checks[0]!.trace_number, category: "F1", status: "65", paid: "100.00", payerControl: "PAYER-1" },
          { trace: checks[1]!.trace_number, category: "F2", status: "88" },
          { trace: checks[2]!.trace_number, category: "A7", status: "21" },
          { trace: checks[3]!.trace_number, category: "P1", dependent: true },
          { trace: checks[4]!.trace_number, category: "R3", status: "21" },
          // By PCN alone: a payer that lost the trace number.
          { trace: "UNKNOWN-TRACE", pcn: "C6", category: "D0", status: "35" }
        ]
        const result = yield* upload(ws, make277Status(901, answers))
        assert.equal(result.kind, "277")
        assert.deepEqual(result.claims.map((o) => o.outcome), ["status_changed", "status_changed", "status_changed", "unchanged", "unchanged", "unchanged"])

        const read = []
        for (const c of checks) read.push(yield* getStatusCheck(ws, c.id))
        assert.deepEqual(read.map((c) => c.status), ["answered", "answered", "answered", "answered", "answered", "answered"])
        assert.deepEqual(read.map((c) => c.effect?.outcome), ["status_changed", "status_changed", "status_changed", "unchanged", "unchanged", "unanswered"])
        assert.deepEqual(read.map((c) => c.effect?.status), ["paid", "denied", "rejected", "submitted_to_payer", "submitted_to_payer", "submitted_to_payer"])
        assert.deepEqual(read[0]!.statuses[0], {
          category_code: "F1",
          status_code: "65",
          entity_code: "PR",
          meaning: "Finalized: payment",
          effective_date: "2026-11-24",
          charge_amount_cents: 12500,
          paid_amount_cents: 10000,
          payer_claim_control_number: "PAYER-1",
          text: null
        })
        const after = []
        for (const id of claims) after.push(yield* claimOf(ws, id))
        assert.equal(after[0]!.payer_claim_control_number, "PAYER-1")
        assert.ok(after[3]!.processing_started_at !== null)
        // Every answered inquiry sets last_checked_at; a not-found answer does not count as one.
        assert.deepEqual(after.map((c) => c.last_checked_at !== null), [true, true, true, true, true, false])
        const encounter = yield* getEncounter(ws, after[0]!.encounter_id)
        assert.equal(encounter.claim.last_checked_at, after[0]!.last_checked_at)
        const events = yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"], limit: 100 })
        assert.deepEqual(events.items.slice(-3).map((e) => (e.payload as { status?: string }).status), ["paid", "denied", "rejected"])
        // More information requested (R3): the claim is not moved, but a follow-up lands in the work queue.
        const [followUp] = (yield* listTasks(ws, { claim_id: claims[4]!, status: "open" })).items
        assert.equal(followUp?.type, "claim_follow_up")
        assert.equal(followUp?.cause.kind, "277")
        assert.equal(followUp?.cause.check_id, checks[4]!.id)
        assert.equal(followUp?.category, "information_requested")

        // A refused move (a paid claim told it is denied) is a conflict, recorded on the check.
        const late = yield* requestStatusCheck(ws, claims[0]!)
        yield* export276(ws)
        const conflict = yield* upload(ws, make277Status(902, [{ trace: late.trace_number, category: "A7" }]))
        assert.equal(conflict.claims[0]!.outcome, "conflict")
        const recorded = yield* getStatusCheck(ws, late.id)
        assert.deepEqual(recorded.effect, { outcome: "conflict", previous_status: "paid", status: "paid" })
        const page = yield* listStatusChecks(ws, claims[0]!, {})
        assert.deepEqual(page.items.map((c) => c.id), [late.id, checks[0]!.id])
      })
    ))

  test("status checks: a claim never submitted is refused; another workspace's claim or check is not found", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("checks-b", ["D1"], "draft")
        const draft = yield* Effect.either(requestStatusCheck(ws, claims[0]!))
        assert.ok(Either.isLeft(draft) && draft.left._tag === "ClaimNotSubmitted")
        const other = yield* setup("checks-c", ["D2"])
        const foreign = yield* Effect.either(requestStatusCheck(ws, other.claims[0]!))
        assert.ok(Either.isLeft(foreign) && foreign.left._tag === "ClaimNotFound")
        const theirs = yield* requestStatusCheck(other.ws, other.claims[0]!)
        const read = yield* Effect.either(getStatusCheck(ws, theirs.id))
        assert.ok(Either.isLeft(read) && read.left._tag === "StatusCheckNotFound")
        // An export naming a claim with no queued check makes one for it.
        const exported = yield* export276(other.ws, [other.claims[0]!])
        assert.equal(exported.checks.length, 1)
        assert.equal(exported.checks[0]!.id, theirs.id)
      })
    ))
}
