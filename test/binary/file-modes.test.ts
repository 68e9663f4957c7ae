import { chmodSync, existsSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Effect, ManagedRuntime } from "effect"
import { createPrivateFile, makePrivate } from "../../lib/adapters/sqlite/files.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { sqliteLayer } from "../../lib/sqlite-bun.js"
import { removeTemps, runCli, tempDir } from "../support/binary.js"

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
})
