import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { liveServices } from "../../lib/layers.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { findWorkspace } from "../../lib/rules/workspaces.js"
import { sqliteStorageLayer } from "../../lib/sqlite-bun.js"
import { exportablePayload } from "../contract/clearinghouse.contract.js"
import { ensureBinary, removeTemps, runCli, tempDb } from "../support/binary.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

/** A claim denied, written straight into the database file as the server would have; its id. */
const deniedClaim = async (db: string) => {
  const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(db), liveServices))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const ws = yield* findWorkspace("clinic")
        const created = yield* createEncounter(ws.id, exportablePayload("enc-cli-task", "PCNCLI1"))
        const claim = (yield* getEncounter(ws.id, created.encounter_id)).claim.id
        yield* changeClaimStatus(ws.id, claim, "submitted_to_payer")
        yield* changeClaimStatus(ws.id, claim, "denied", "CO-29 on the payer's letter")
        return claim
      })
    )
  } finally {
    await runtime.dispose()
  }
}

describe("encounterd CLI: tasks", () => {
  test("every command has --help", async () => {
    for (const command of [["tasks", "list"], ["tasks", "show"], ["tasks", "update"], ["tasks", "settings"]]) {
      const r = await runCli([...command, "--help"])
      expect([r.code, r.stdout.includes(`Usage: encounterd ${command.join(" ")}`)]).toEqual([0, true])
    }
  })

  test("list, show, update and settings against a database file", async () => {
    const db = tempDb("cli-tasks")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
    const claim = await deniedClaim(db)
    const list = await runCli(["tasks", "list", "--workspace", "clinic", "--status", "open"], { db })
    expect(list.code).toBe(0)
    const page = list.json as { items: Array<{ id: string; type: string; claim_id: string; cause: { text: string } }> }
    expect(page.items.map((t) => [t.type, t.claim_id, t.cause.text])).toEqual([["denial_resolution", claim, "CO-29 on the payer's letter"]])
    const id = page.items[0]!.id
    expect((await runCli(["tasks", "show", id, "--workspace", "clinic"], { db })).json).toMatchObject({ id, status: "open" })
    const updated = await runCli(["tasks", "update", id, "--workspace", "clinic", "--status", "in_progress", "--assignee", "dana", "--note", "appeal sent"], { db })
    expect(updated.code).toBe(0)
    expect(updated.json).toMatchObject({ status: "in_progress", assignee: "dana", notes: [{ text: "appeal sent", key_id: null }] })
    expect((await runCli(["tasks", "update", id, "--workspace", "clinic", "--status", "closed"], { db })).code).toBe(2)
    expect((await runCli(["tasks", "list", "--workspace", "clinic", "--type", "nope"], { db })).code).toBe(1)
    expect((await runCli(["tasks", "settings", "--workspace", "clinic"], { db })).json).toEqual({ follow_up_after_days: null })
    expect((await runCli(["tasks", "settings", "--workspace", "clinic", "--follow-up-after-days", "30"], { db })).json).toEqual({ follow_up_after_days: 30 })
    expect((await runCli(["tasks", "settings", "--workspace", "clinic"], { db })).json).toEqual({ follow_up_after_days: 30 })
  })
})
