import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { clearinghouseSettingsFlags } from "../support/x12-files.js"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { ClaimId } from "../../lib/domain/ids.js"
import { Storage } from "../../lib/ports/storage.js"
import { liveServices } from "../../lib/layers.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listX12Batches } from "../../lib/rules/x12-reads.js"
import { findWorkspace } from "../../lib/rules/workspaces.js"
import { sqliteStorageLayer } from "../../lib/sqlite-bun.js"
import { exportablePayload } from "../contract/clearinghouse.contract.js"
import { ensureBinary, removeTemps, runCli, tempDb, tempDir } from "../support/binary.js"
import { claimsOf, parseWithNodeX12, val } from "../x12/node-x12-walk.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

const fixture = (name: string) => join(import.meta.dir, "..", "fixtures", "x12", name)

const settingsFlags = clearinghouseSettingsFlags

/** Encounters written straight into the database file, as the server would have; their claim ids. */
const seedPayloads = async (db: string, payloads: ReadonlyArray<unknown>) => {
  const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(db), liveServices))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const ws = yield* findWorkspace("clinic")
        const claims: Array<string> = []
        for (const payload of payloads) {
          const created = yield* createEncounter(ws.id, payload)
          claims.push((yield* getEncounter(ws.id, created.encounter_id)).claim.id)
        }
        return claims
      })
    )
  } finally {
    await runtime.dispose()
  }
}

const seed = (db: string, pcns: ReadonlyArray<string>) => seedPayloads(db, pcns.map((pcn) => exportablePayload(`enc-${pcn}`, pcn)))
const seedPayload = async (db: string, payload: unknown) => (await seedPayloads(db, [payload]))[0]!

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

/** Each claim's status and how many batches the workspace has, read from the database file. */
const stateOf = async (db: string, claims: ReadonlyArray<string>) => {
  const runtime = ManagedRuntime.make(Layer.merge(sqliteStorageLayer(db), liveServices))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const ws = yield* findWorkspace("clinic")
        const storage = yield* Storage
        const statuses: Array<string> = []
        for (const id of claims) {
          const found = yield* storage.findClaim(ws.id, ClaimId.make(id))
          statuses.push(Option.isSome(found) ? found.value.claim.status : "missing")
        }
        return { statuses, batches: (yield* listX12Batches(ws.id, {})).items.length }
      })
    )
  } finally {
    await runtime.dispose()
  }
}

/** A workspace `clinic` with clearinghouse settings, on a new database. */
const clinic = async (label: string) => {
  const db = tempDb(label)
  expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
  expect((await runCli(["clearinghouse", "set", "--workspace", "clinic", ...settingsFlags], { db })).code).toBe(0)
  return db
}

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8)

describe("x12 export never moves claims it could not hand over", () => {
  test("into a missing folder: exit 1 saying nothing moved, claims unchanged, no batch; a retry to a good path sends them", async () => {
    const db = await clinic("x12-missing-folder")
    const claims = await seed(db, ["PCN0001", "PCN0005"])
    const dir = tempDir("x12-out")
    const out = join(dir, "missing", "batch.x12")
    const failed = await runCli(["x12", "export", "--workspace", "clinic", "--claims", claims.join(","), "--out", out], { db })
    expect(failed.code).toBe(1)
    expect(failed.stdout).toBe("")
    expect(failed.stderr).toBe(`encounterd: Cannot write ${out}: the folder ${join(dir, "missing")} does not exist; nothing was sent and no claim moved\n`)
    expect(await stateOf(db, claims)).toEqual({ statuses: ["draft", "draft"], batches: 0 })
    expect(existsSync(join(dir, "missing"))).toBe(false)

    const good = join(dir, "batch.x12")
    const retried = await runCli(["x12", "export", "--workspace", "clinic", "--claims", claims.join(","), "--out", good], { db })
    expect(retried.code).toBe(0)
    // The control number the failed export built with was never taken.
    expect(retried.json).toMatchObject({ interchange_control_number: 1, claim_ids: claims, file: good })
    expect(readFileSync(good, "utf8")).toStartWith("ISA*")
    expect(mode(good)).toBe("600")
    expect(await stateOf(db, claims)).toEqual({ statuses: ["submitted_to_payer", "submitted_to_payer"], batches: 1 })
    // Nothing but the file itself is left in its folder (no temporary file).
    expect(readdirSync(dir)).toEqual(["batch.x12"])
  })

  test("a refused export names each claim and field, says nothing moved and leaves no file", async () => {
    const db = await clinic("x12-refusals")
    const [sent, draft] = await seed(db, ["PCN0001", "PCN0005"])
    const dir = tempDir("x12-refusal-out")
    expect((await runCli(["x12", "export", "--workspace", "clinic", "--claims", sent!, "--out", join(dir, "first.x12")], { db })).code).toBe(0)

    const out = join(dir, "second.x12")
    const moved = await runCli(["x12", "export", "--workspace", "clinic", "--claims", `${draft},${sent}`, "--out", out], { db })
    expect(moved.code).toBe(1)
    expect(moved.stderr).toContain("1 claim(s) cannot move to submitted_to_payer; nothing was sent and no claim moved")
    expect(moved.stderr).toContain(`\n  claims[${sent}].status: is submitted_to_payer, which cannot move to submitted_to_payer`)

    const selfPay = await seedPayload(db, { ...exportablePayload("enc-self", "PCNSELF"), responsible_party: "SELF_PAY" })
    const notExportable = await runCli(["x12", "export", "--workspace", "clinic", "--claims", `${draft},${selfPay}`, "--out", out], { db })
    expect(notExportable.code).toBe(1)
    expect(notExportable.stderr).toContain("1 claim(s) cannot be exported; nothing was sent and no claim moved")
    expect(notExportable.stderr).toContain(`\n  claims[${selfPay}].responsible_party: `)

    const unknown = "01a00000-0000-7000-8000-000000000000"
    const missing = await runCli(["x12", "export", "--workspace", "clinic", "--claims", `${draft},${unknown}`, "--out", out], { db })
    expect([missing.code, missing.stderr]).toEqual([1, `encounterd: claims[${unknown}]: no such claim in this workspace; nothing was sent and no claim moved\n`])

    const repeated = await runCli(["x12", "export", "--workspace", "clinic", "--claims", `${draft},${draft}`, "--out", out], { db })
    expect([repeated.code, repeated.stderr]).toEqual([1, expect.stringContaining(`--claims[1]: repeats the claim ${draft}`)])

    for (const r of [moved, notExportable, missing, repeated]) {
      expect(r.stdout).toBe("")
      expect(r.stderr).not.toContain("ENOENT: ENOENT")
    }
    expect(await stateOf(db, [sent!, draft!, selfPay])).toEqual({ statuses: ["submitted_to_payer", "draft", "draft"], batches: 1 })
    expect(readdirSync(dir)).toEqual(["first.x12"])
  })
})
