import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { clearinghouseSettingsFlags } from "../support/x12-files.js"
import { join } from "node:path"
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Effect, ManagedRuntime } from "effect"
import { createPrivateFile, makePrivate } from "../../lib/adapters/sqlite/files.js"
import { discardStagedFile, publishStagedFile, stagePrivateFile, writeNewPrivateFile } from "../../lib/private-files.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { createWorkspace, findWorkspace } from "../../lib/rules/workspaces.js"
import { sqliteLayer } from "../../lib/sqlite-bun.js"
import { exportablePayload } from "../contract/clearinghouse.contract.js"
import { removeTemps, runCli, startBinary, tempDir } from "../support/binary.js"

/** Database files hold patient data: owner-only whatever the umask (SECURITY.md, "Data at rest"). */
const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8).padStart(3, "0")

let saved = 0
beforeEach(() => {
  // The usual default: without the service's own modes, new files would be 644 and folders 755.
  saved = process.umask(0o022)
})
afterEach(() => {
  process.umask(saved)
})
afterAll(removeTemps)

describe("files holding patient data are owner-only", () => {
  test("a new database under new folders: folders 0700, database, -wal and -shm 0600; an existing parent keeps its mode", async () => {
    const parent = tempDir("modes")
    chmodSync(parent, 0o755)
    const db = join(parent, "data", "nested", "encounterd.sqlite")
    const runtime = ManagedRuntime.make(sqliteLayer(db))
    try {
      await runtime.runPromise(Effect.asVoid(createWorkspace("clinic-a", "Clinic A")))
      // While the connection is open SQLite keeps the WAL and the shared-memory file beside the database.
      expect(existsSync(`${db}-wal`)).toBe(true)
      expect(existsSync(`${db}-shm`)).toBe(true)
      const modes = [join(parent, "data"), join(parent, "data", "nested"), db, `${db}-wal`, `${db}-shm`].map(mode)
      expect(modes).toEqual(["700", "700", "600", "600", "600"])
      expect(mode(parent)).toBe("755")
    } finally {
      await runtime.dispose()
    }
  })

  test("an existing database left readable by others (an earlier version) is made 0600 when opened", async () => {
    const dir = tempDir("modes-old")
    const db = join(dir, "old.sqlite")
    writeFileSync(db, "")
    chmodSync(db, 0o644)
    const runtime = ManagedRuntime.make(sqliteLayer(db))
    try {
      await runtime.runPromise(Effect.asVoid(createWorkspace("clinic-b", "Clinic B")))
      expect([db, `${db}-wal`, `${db}-shm`].map(mode)).toEqual(["600", "600", "600"])
    } finally {
      await runtime.dispose()
    }
  })

  test("the binary: `workspaces create` on a new --db makes its folder 0700 and the database 0600", async () => {
    const dir = tempDir("modes-bin")
    const db = join(dir, "data", "encounterd.sqlite")
    const r = await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })
    expect(r.code).toBe(0)
    expect([join(dir, "data"), db].map(mode)).toEqual(["700", "600"])
  })

  test("backup targets: createPrivateFile makes an empty 0600 file and refuses an existing one; makePrivate sets 0600", () => {
    const dir = tempDir("modes-backup")
    const out = join(dir, "backup.sqlite")
    createPrivateFile(out)
    expect(mode(out)).toBe("600")
    expect(statSync(out).size).toBe(0)
    expect(() => createPrivateFile(out)).toThrow(/EEXIST/)
    const written = join(dir, "written.sqlite")
    writeFileSync(written, "copy")
    expect(mode(written)).toBe("644")
    makePrivate(written)
    expect(mode(written)).toBe("600")
    expect(() => makePrivate(join(dir, "missing.sqlite"))).not.toThrow()
  })

  test("writeNewPrivateFile: 0600 from its creation whatever the umask, and never over an existing file", () => {
    const dir = tempDir("modes-write")
    for (const umask of [0o000, 0o022, 0o277]) {
      process.umask(umask)
      const out = join(dir, `out-${umask.toString(8)}.txt`)
      writeNewPrivateFile(out, "ISA*00*")
      expect(mode(out)).toBe("600")
      expect(readFileSync(out, "utf8")).toBe("ISA*00*")
      expect(() => writeNewPrivateFile(out, "again")).toThrow(/EEXIST/)
      expect(readFileSync(out, "utf8")).toBe("ISA*00*")
    }
  })
})

describe("a file staged under a temporary name, then given its name", () => {
  test("stagePrivateFile writes a 0600 synced file beside the target; publish names it and never replaces; discard removes it", () => {
    const dir = tempDir("modes-stage")
    process.umask(0o000)
    const target = join(dir, "batch.x12")
    const staged = stagePrivateFile(target, "ISA*00*")
    expect(staged.temp.startsWith(join(dir, ".batch.x12."))).toBe(true)
    expect(mode(staged.temp)).toBe("600")
    expect(existsSync(target)).toBe(false)
    publishStagedFile(staged)
    expect([readFileSync(target, "utf8"), mode(target), existsSync(staged.temp)]).toEqual(["ISA*00*", "600", false])

    const taken = join(dir, "taken.x12")
    writeFileSync(taken, "someone else's")
    const second = stagePrivateFile(taken, "ISA*01*")
    expect(() => publishStagedFile(second)).toThrow(/EEXIST/)
    expect(readFileSync(taken, "utf8")).toBe("someone else's")
    expect(readFileSync(second.temp, "utf8")).toBe("ISA*01*")
    discardStagedFile(second)
    expect(existsSync(second.temp)).toBe(false)
    expect(() => discardStagedFile(second)).not.toThrow()

    expect(() => stagePrivateFile(join(dir, "missing", "batch.x12"), "ISA")).toThrow(/ENOENT/)
    expect(readdirSync(dir).sort()).toEqual(["batch.x12", "taken.x12"])
  })
})

/** Under each umask, as the binary is run by a service manager or a shell. */
const umasks = [0o000, 0o022] as const

describe("folders the server and the CLI create are 0700, whatever runs first and whatever the umask", () => {
  for (const umask of umasks) {
    test(`serve on a new --db (umask ${umask.toString(8).padStart(3, "0")}): the folder 0700 (made with the database, the webhook key beside it), key and database 0600`, async () => {
      process.umask(umask)
      const dir = tempDir("modes-serve")
      chmodSync(dir, 0o755)
      const db = join(dir, "data", "nested", "encounterd.sqlite")
      const server = await startBinary({ db })
      try {
        expect([join(dir, "data"), join(dir, "data", "nested")].map(mode)).toEqual(["700", "700"])
        expect([join(dir, "data", "nested", "webhook-secret.key"), db].map(mode)).toEqual(["600", "600"])
        expect(mode(dir)).toBe("755")
      } finally {
        expect(await server.stop()).toBe(0)
      }
    })

    test(`a CLI command on a new --db (umask ${umask.toString(8).padStart(3, "0")}): folders 0700, database 0600`, async () => {
      process.umask(umask)
      const dir = tempDir("modes-cli")
      const db = join(dir, "a", "b", "encounterd.sqlite")
      const r = await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })
      expect(r.code).toBe(0)
      expect([join(dir, "a"), join(dir, "a", "b"), db].map(mode)).toEqual(["700", "700", "600"])
    })
  }
})

describe("files the CLI writes that hold patient data are 0600 from their creation", () => {
  const settings = clearinghouseSettingsFlags

  /** A claim ready for an 837P, written straight into the database file. */
  const seedClaim = async (db: string, pcn: string): Promise<string> => {
    const runtime = ManagedRuntime.make(sqliteLayer(db))
    try {
      return await runtime.runPromise(
        Effect.gen(function* () {
          const ws = yield* findWorkspace("clinic")
          const created = yield* createEncounter(ws.id, exportablePayload(`enc-${pcn}`, pcn))
          return (yield* getEncounter(ws.id, created.encounter_id)).claim.id
        })
      )
    } finally {
      await runtime.dispose()
    }
  }

  test("x12 export --out (the 837P names patients and member ids) under umask 000 and 022; backup under umask 000", async () => {
    const dir = tempDir("modes-x12")
    const db = join(dir, "encounterd.sqlite")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
    expect((await runCli(["clearinghouse", "set", "--workspace", "clinic", ...settings], { db })).code).toBe(0)
    for (const umask of umasks) {
      process.umask(umask)
      const claim = await seedClaim(db, `PCN${umask}`)
      const out = join(dir, `batch-${umask}.x12`)
      const exported = await runCli(["x12", "export", "--workspace", "clinic", "--claims", claim, "--out", out], { db })
      expect(exported.code).toBe(0)
      expect(readFileSync(out, "utf8")).toStartWith("ISA*")
      expect(mode(out)).toBe("600")
    }
    process.umask(0o000)
    const backup = join(dir, "backup.sqlite")
    expect((await runCli(["backup", "--out", backup], { db })).code).toBe(0)
    expect(mode(backup)).toBe("600")
  })

  test("x12 export into a missing folder fails with one line naming the file, and sends nothing", async () => {
    const dir = tempDir("modes-x12-missing")
    const db = join(dir, "encounterd.sqlite")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
    expect((await runCli(["clearinghouse", "set", "--workspace", "clinic", ...settings], { db })).code).toBe(0)
    const claim = await seedClaim(db, "PCN0100")
    const out = join(dir, "missing", "batch.x12")
    const r = await runCli(["x12", "export", "--workspace", "clinic", "--claims", claim, "--out", out], { db })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`encounterd: Cannot write ${out}: the folder ${join(dir, "missing")} does not exist; nothing was sent and no claim moved\n`)
    expect(existsSync(out)).toBe(false)
  })
})
