import { existsSync, statSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { Effect } from "effect"
import { BackupFailed, reasonOf, StorageError } from "../../domain/errors.js"
import type { DatabaseAdminShape } from "../../ports/database-admin.js"
import type { ReadBatching, SqliteDriver } from "./driver.js"
import { createPrivateFile } from "./files.js"
import { appliedMigrations, toAppliedMigration } from "../sql/statements.js"
import { sqliteUnavailable } from "../sql/unavailable.js"

/**
 * Backup and migration status of a SQLite database. A backup is `VACUUM INTO` (a consistent copy,
 * also while the server writes) into a file created owner-only, then opened on its own and checked with
 * `PRAGMA integrity_check`: a copy that fails the check is reported, never passed off as good.
 */
export const sqliteAdmin = (
  driver: SqliteDriver,
  reads: ReadBatching,
  filename: string,
  open: (filename: string) => SqliteDriver
): DatabaseAdminShape => ({
  description: filename === ":memory:" ? filename : resolve(filename),
  backup: (target) =>
    Effect.gen(function* () {
      const out = resolve(target)
      const refuse = (reason: string) => new BackupFailed({ out, reason })
      if (filename === ":memory:") return yield* refuse("the database is in memory")
      if (existsSync(out)) return yield* refuse("the file already exists")
      if (!existsSync(dirname(out))) return yield* refuse(`the folder ${dirname(out)} does not exist`)
      yield* Effect.try({
        try: () => {
          // Created 0600 first, so the copy is never readable by others, not even while it is written.
          createPrivateFile(out)
          reads.end()
          driver.prepare("VACUUM INTO ?").run(out)
        },
        catch: (cause) => refuse(reasonOf(cause))
      })
      const integrity = yield* Effect.try({
        try: () => {
          const copy = open(out)
          try {
            return String(copy.prepare("PRAGMA integrity_check").get()?.integrity_check)
          } finally {
            copy.close()
          }
        },
        catch: (cause) => refuse(`the copy could not be checked: ${reasonOf(cause)}`)
      })
      if (integrity !== "ok") return yield* refuse(`the copy failed the integrity check: ${integrity}`)
      return { backup: out, db: resolve(filename), integrity: "ok" as const, bytes: statSync(out).size }
    }),
  migrations: () =>
    Effect.try({
      try: () => {
        reads.end()
        return driver.prepare(appliedMigrations.sql).all().map(toAppliedMigration)
      },
      catch: (cause) => new StorageError({ operation: "migrations", cause, unavailable: sqliteUnavailable(cause) })
    })
})
