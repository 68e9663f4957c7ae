import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
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
import { clearinghouseSettingsFlags } from "../support/x12-files.js"
import { make277Status } from "../support/x12-status.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

/** Claims written into the database file as the server would have, submitted to the payer (but the last when `draft`). */
const seed = async (db: string, pcns: ReadonlyArray<string>) => {
  const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(db), liveServices))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const ws = yield* findWorkspace("clinic")
        const claims: Array<string> = []
        for (const pcn of pcns) {
          const created = yield* createEncounter(ws.id, exportablePayload(`enc-${pcn}`, pcn))
          const claim = (yield* getEncounter(ws.id, created.encounter_id)).claim.id
          if (!pcn.startsWith("DRAFT")) yield* changeClaimStatus(ws.id, claim, "submitted_to_payer")
          claims.push(claim)
        }
        return claims
      })
    )
  } finally {
    await runtime.dispose()
  }
}

describe("encounterd CLI: status checks", () => {
  test("every command has --help", async () => {
    for (const command of [["claims", "check"], ["x12", "export-276"], ["status-checks", "set"], ["status-checks", "show"]]) {
      const r = await runCli([...command, "--help"])
      expect([r.code, r.stdout.includes(`Usage: encounterd ${command.join(" ")}`)]).toEqual([0, true])
    }
  })

  test("claims check, x12 export-276 writes the file and sends the checks, x12 import takes the 277; status-checks set and show", async () => {
    const db = tempDb("cli-checks")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
    expect((await runCli(["clearinghouse", "set", "--workspace", "clinic", ...clearinghouseSettingsFlags], { db })).code).toBe(0)
    const [c1, c2, draft] = await seed(db, ["PCNC1", "PCNC2", "DRAFT1"])

    expect((await runCli(["status-checks", "show", "--workspace", "clinic"], { db })).code).toBe(1)
    const set = await runCli(["status-checks", "set", "--workspace", "clinic", "--max-checks", "3"], { db })
    expect(set.code).toBe(0)
    expect(set.json).toEqual({ enabled: true, first_after_days: 7, every_days: 7, max_checks: 3, window_days: 7, transport: "file", core: null })
    expect((await runCli(["status-checks", "show", "--workspace", "clinic"], { db })).json).toEqual(set.json)
    const core = await runCli(
      ["status-checks", "set", "--workspace", "clinic", "--enabled", "false", "--transport", "core", "--core-url", "https://core.example.com/x", "--core-sender-id", "S1", "--core-receiver-id", "R1", "--core-username", "u"],
      { db, env: { ENCOUNTERD_CORE_PASSWORD: "pa55word" } }
    )
    expect([core.code, core.json?.core]).toEqual([0, { url: "https://core.example.com/x", sender_id: "S1", receiver_id: "R1", username: "u" }])
    expect(core.stdout).not.toContain("pa55word")
    expect((await runCli(["status-checks", "set", "--workspace", "clinic", "--enabled", "false"], { db })).code).toBe(0)

    const check = await runCli(["claims", "check", c1!, "--workspace", "clinic"], { db })
    expect(check.code).toBe(0)
    expect(check.json).toMatchObject({ claim_id: c1, status: "queued", transport: "file" })
    const refused = await runCli(["claims", "check", draft!, "--workspace", "clinic"], { db })
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("never submitted")])

    const out = join(db, "..", "inquiry-1.x12")
    const exported = await runCli(["x12", "export-276", "--workspace", "clinic", "--out", out, "--claims", `${c1},${c2}`], { db })
    expect(exported.code).toBe(0)
    expect(exported.json.checks.map((c: { claim_id: string; status: string }) => [c.claim_id, c.status])).toEqual([[c1, "sent"], [c2, "sent"]])
    expect(existsSync(out)).toBe(true)
    expect(statSync(out).mode & 0o777).toBe(0o600)
    const text = readFileSync(out, "utf8")
    expect(text).toContain("GS*HR*")
    expect(text).toContain(`TRN*1*${check.json.trace_number}~`)
    const nothing = await runCli(["x12", "export-276", "--workspace", "clinic", "--out", join(db, "..", "inquiry-2.x12")], { db })
    expect(nothing.code).toBe(1)
    expect(existsSync(join(db, "..", "inquiry-2.x12"))).toBe(false)

    const answer = join(db, "..", "answer.x12")
    writeFileSync(answer, make277Status(4242, [{ trace: check.json.trace_number, category: "F2", status: "88" }]))
    const imported = await runCli(["x12", "import", answer, "--workspace", "clinic"], { db })
    expect(imported.code).toBe(0)
    expect([imported.json.kind, imported.json.claims[0].outcome, imported.json.claims[0].status]).toEqual(["277", "status_changed", "denied"])
  }, 60_000)
})
