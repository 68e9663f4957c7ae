import { existsSync, readFileSync } from "node:fs"
import { clearinghouseSettingsFlags } from "../support/x12-files.js"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { liveServices } from "../../lib/layers.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { findWorkspace } from "../../lib/rules/workspaces.js"
import { sqliteStorageLayer } from "../../lib/sqlite-bun.js"
import { exportablePayload } from "../contract/clearinghouse.contract.js"
import { ensureBinary, removeTemps, runCli, tempDb } from "../support/binary.js"
import { claimsOf, parseWithNodeX12, val } from "../x12/node-x12-walk.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

const fixture = (name: string) => join(import.meta.dir, "..", "fixtures", "x12", name)

const settingsFlags = clearinghouseSettingsFlags

/** Encounters written straight into the database file, as the server would have. */
const seed = async (db: string, pcns: ReadonlyArray<string>) => {
  const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(db), liveServices))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const ws = yield* findWorkspace("clinic")
        const claims: Array<string> = []
        for (const pcn of pcns) {
          const created = yield* createEncounter(ws.id, exportablePayload(`enc-${pcn}`, pcn))
          claims.push((yield* getEncounter(ws.id, created.encounter_id)).claim.id)
        }
        return claims
      })
    )
  } finally {
    await runtime.dispose()
  }
}

describe("encounterd CLI: clearinghouse and x12", () => {
  test("every command has --help", async () => {
    for (const command of [["clearinghouse", "set"], ["clearinghouse", "show"], ["x12", "export"], ["x12", "import"], ["x12", "files"], ["x12", "outcomes"], ["claims", "remittances"]]) {
      const r = await runCli([...command, "--help"])
      expect([r.code, r.stdout.includes(`Usage: encounterd ${command.join(" ")}`)]).toEqual([0, true])
    }
    const flags = await runCli(["clearinghouse", "set", "--help"])
    for (const flag of settingsFlags.filter((f) => f.startsWith("--"))) expect(flags.stdout).toContain(flag)
  })

  test("settings, export with its file, imports with duplicates and a malformed file", async () => {
    const db = tempDb("cli-x12")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
    const unset = await runCli(["clearinghouse", "show", "--workspace", "clinic"], { db })
    expect([unset.code, unset.stdout]).toEqual([1, ""])
    const missing = await runCli(["clearinghouse", "set", "--workspace", "clinic", ...settingsFlags.slice(2)], { db })
    expect(missing.code).toBe(2)
    const invalid = await runCli(["clearinghouse", "set", "--workspace", "clinic", ...settingsFlags.slice(0, -1), "X"], { db })
    expect([invalid.code, invalid.stderr]).toEqual([1, expect.stringContaining("usage")])
    const set = await runCli(["clearinghouse", "set", "--workspace", "clinic", ...settingsFlags], { db })
    expect(set.code).toBe(0)
    expect(set.json.submitter).toEqual({ name: "Encounterd Billing", id: "SUB123", contact_name: "Ops Desk", contact_phone: "6155550100" })
    expect((await runCli(["clearinghouse", "show", "--workspace", "clinic"], { db })).json).toEqual(set.json)

    const claims = await seed(db, ["PCN0001", "PCN0005", "PCN0007", "PCN0010"])
    const out = join(db, "..", "batch-1.x12")
    const exported = await runCli(["x12", "export", "--workspace", "clinic", "--claims", claims.join(","), "--out", out], { db })
    expect(exported.code).toBe(0)
    expect(exported.json).toMatchObject({ interchange_control_number: 1, group_control_number: 1, claim_ids: claims, file: out })
    expect(existsSync(out)).toBe(true)
    const read = parseWithNodeX12(readFileSync(out, "utf8"))
    expect(read.functionalGroups[0]!.transactions.flatMap(claimsOf).map((c) => val(c.clm, 1))).toEqual(["PCN0001", "PCN0005", "PCN0007", "PCN0010"])
    expect((await runCli(["x12", "export", "--workspace", "clinic", "--claims", claims[0]!, "--out", out], { db })).code).toBe(2)
    const again = await runCli(["x12", "export", "--workspace", "clinic", "--claims", claims[0]!, "--out", join(db, "..", "batch-2.x12")], { db })
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining("submitted_to_payer")])

    const ack = await runCli(["x12", "import", fixture("277ca-mixed.x12"), "--workspace", "clinic"], { db })
    expect(ack.code).toBe(0)
    expect([ack.json.kind, ack.json.duplicate]).toEqual(["277CA", false])
    expect(ack.json.claims.map((c: { outcome: string }) => c.outcome)).toEqual(["unchanged", "status_changed", "unchanged", "unmatched", "status_changed"])
    const dup = await runCli(["x12", "import", fixture("277ca-mixed.x12"), "--workspace", "clinic"], { db })
    expect([dup.json.id, dup.json.duplicate]).toEqual([ack.json.id, true])
    const bad = await runCli(["x12", "import", fixture("835-bad-se-count.x12"), "--workspace", "clinic"], { db })
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([1, "", expect.stringContaining("at segment 39 (SE)")])
    expect((await runCli(["x12", "import", fixture("no-such-file.x12"), "--workspace", "clinic"], { db })).code).toBe(2)
  })
})
