import { existsSync, statSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { Effect } from "effect"
import { BackupFailed, reasonOf, StorageError } from "../../domain/errors.js"
import type { DatabaseAdminShape } from "../../ports/database-admin.js"
import type { OpenSqlite, ReadBatching, SqliteDriver } from "./driver.js"
import { createPrivateFile } from "./files.js"
import { appliedMigrations, toAppliedMigration } from "../sql/statements.js"
import { sqliteUnavailable } from "../sql/unavailable.js"

/**
 * What is wrong with a copy of a database, opened on its own (never created): undefined when
 * `PRAGMA integrity_check` answers ok and it holds an encounterd schema (a migration record).
 * Throws when the file cannot be opened.
 */
export const copyProblem = (file: string, open: OpenSqlite): string | undefined => {
  const copy = open(file, { create: false })
  try {
    const integrity = String(copy.prepare("PRAGMA integrity_check").get()?.integrity_check)
    if (integrity !== "ok") return `failed the integrity check: ${integrity}`
    const ours = copy.prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'effect_sql_migrations'").get()
    return ours === undefined ? "holds no encounterd database" : undefined
  } finally {
    copy.close()
  }
}

/**
 * Backup and migration status of a SQLite database. A backup is `VACUUM INTO` (a consistent copy,
 * also while the server writes) into a file created owner-only, then opened on its own and checked with
 * `PRAGMA integrity_check`: a copy that fails the check is reported, never passed off as good.
 */
export const sqliteAdmin = (
  driver: SqliteDriver,
  reads: ReadBatching,
  filename: string,
  open: OpenSqlite
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
      const problem = yield* Effect.try({
        try: () => copyProblem(out, open),
        catch: (cause) => refuse(`the copy could not be checked: ${reasonOf(cause)}`)
      })
      if (problem !== undefined) return yield* refuse(`the copy ${problem}`)
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
