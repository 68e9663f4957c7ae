import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { liveServices } from "../../lib/layers.js"
import { sqliteStorageLayer } from "../../lib/sqlite-bun.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { removeTemps, runCli, tempDb } from "../support/binary.js"
import { insurancePayload } from "../support/payloads.js"

afterAll(removeTemps)

/** A database file holding one encounter whose claim was rejected. */
const withRejectedClaim = async (db: string) => {
  const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(db), liveServices))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("clinic", "Clinic")).id
        const created = yield* createEncounter(ws, insurancePayload("cli-correct-1"))
        const claim = (yield* getEncounter(ws, created.encounter_id)).claim.id
        yield* changeClaimStatus(ws, claim, "submitted_to_payer")
        yield* changeClaimStatus(ws, claim, "rejected")
        return { encounter: created.encounter_id, claim }
      })
    )
  } finally {
    await runtime.dispose()
  }
}

describe("encounterd claims correct / claims list", () => {
  test("resubmits a rejected claim with corrected content; refuses what its status does not take; lists the claims", async () => {
    const db = tempDb("cli-correct")
    const { encounter, claim } = await withRejectedClaim(db)
    const file = join(db, "..", "corrected.json")
    writeFileSync(file, JSON.stringify({ ...insurancePayload("cli-correct-1"), date_of_service: "2026-10-02" }))
    const made = await runCli(["claims", "correct", claim, "--action", "resubmit", "--payload", file, "--workspace", "clinic", "--note", "fixed"], { db })
    expect(made.code).toBe(0)
    expect(made.json).toMatchObject({ status: "draft", resubmission_original_claim_id: claim, resubmission_action: "resubmit", date_of_service: "2026-10-02" })
    const again = await runCli(["claims", "correct", claim, "--action", "resubmit", "--workspace", "clinic"], { db })
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/latest claim/)
    const list = await runCli(["claims", "list", encounter, "--workspace", "clinic"], { db })
    expect(list.code).toBe(0)
    expect(list.json.map((c: { id: string }) => c.id)).toEqual([claim, made.json.id])
    const usage = await runCli(["claims", "correct", claim, "--action", "redo", "--workspace", "clinic"], { db })
    expect(usage.code).toBe(2)
  }, 180_000)
})
