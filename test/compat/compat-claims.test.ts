import { describe, expect, test } from "bun:test"
import { serialization } from "candidhealth"
import { Effect, Layer } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { WorkspaceId } from "../../lib/domain/ids.js"
import { Clock, Ids } from "../../lib/ports/clock.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { correctClaim } from "../../lib/rules/correct-claim.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { withAllClaims } from "../../lib/rules/encounter-claims.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { toCompatEncounter } from "../../server/compat/encounter.js"
import { insurancePayload } from "../support/payloads.js"

const ws = WorkspaceId.make("0190a1b2-0000-7000-8000-000000000002")
const VendorEncounter = serialization.encounters.v4.Encounter

/** An encounter whose claim was rejected twice and resubmitted each time, the last time with other lines. */
const threeClaims = () =>
  Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const payload = insurancePayload("compat-claims-1")
        const created = yield* createEncounter(ws, payload)
        let claim: string = (yield* getEncounter(ws, created.encounter_id)).claim.id
        for (const lines of [undefined, [{ procedure_code: "99214", quantity: "2", units: "UN", diagnosis_pointers: [0], charge_amount_cents: 9000 }]]) {
          yield* changeClaimStatus(ws, claim, "submitted_to_payer")
          yield* changeClaimStatus(ws, claim, "rejected")
          const content = lines === undefined ? undefined : { ...payload, service_lines: lines }
          claim = (yield* correctClaim(ws, claim, { action: "resubmit", encounter: content })).claim.id
        }
        return yield* withAllClaims(ws, yield* getEncounter(ws, created.encounter_id))
      }),
      Layer.mergeAll(MemoryStorage.layer, Clock.live, Ids.live)
    )
  )

describe("compat Encounter with several claims", () => {
  test("every claim is listed, oldest first, each with its own lines, and the vendor SDK parses it", async () => {
    const read = await threeClaims()
    const compat = toCompatEncounter(read, "http://localhost:8080/")
    expect(compat.claims.map((c) => c.status)).toEqual(["rejected", "rejected", "draft"])
    expect(new Set(compat.claims.map((c) => c.claim_id)).size).toBe(3)
    expect(compat.claims[2]!.claim_id).toBe(read.claim.id)
    expect(compat.claims.map((c) => c.service_lines.map((l) => l.procedure_code))).toEqual([["99213"], ["99213"], ["99214"]])
    expect(compat.claims.every((c) => c.service_lines.every((l) => l.claim_id === c.claim_id))).toBe(true)
    // `draft` is not in the vendor's enum (the allowance of DECISIONS.md): lenient on enums only, then
    // with a vendor status everywhere, fully strict.
    const lenient = VendorEncounter.parse(compat, { allowUnrecognizedEnumValues: true })
    expect(lenient.ok ? [] : lenient.errors).toEqual([])
    const strict = VendorEncounter.parse({ ...compat, claims: compat.claims.map((c) => ({ ...c, status: "biller_received" })) })
    expect(strict.ok ? [] : strict.errors).toEqual([])
  })
})
