import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { StorageError } from "../../domain/errors.js"
import { Storage } from "../../ports/storage.js"
import { latestMigrationId, migrate } from "../sql/migrations/index.js"
import { makeSqliteSqlClient } from "./client.js"
import { makeReadBatching, type SqliteDriver } from "./driver.js"
import { makeSqliteStorage } from "./storage.js"

/**
 * SQLite durability. WAL mode with `synchronous = FULL`: a write that was answered has been
 * fsynced, so it survives a process kill and a power loss. `NORMAL` survives a process kill only
 * (the last transactions may roll back on power loss). Concurrent writes share one commit and
 * one fsync (group commit), which is what makes FULL cheap.
 */
export type SqliteSynchronous = "FULL" | "NORMAL"

export interface SqliteOptions {
  readonly synchronous?: SqliteSynchronous
  /** Most writes committed together in one transaction (default 256). */
  readonly maxBatch?: number
}

/** Creates the folder of a database file (not for `:memory:`). */
export const ensureFolder = (filename: string): string => {
  if (filename !== ":memory:") mkdirSync(dirname(filename), { recursive: true })
  return filename
}

/** The newest migration recorded in the database (0 for a new one). */
const appliedMigration = (driver: SqliteDriver): number => {
  const table = driver.prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'effect_sql_migrations'").get()
  if (table === undefined) return 0
  return Number(driver.prepare("SELECT MAX(migration_id) AS id FROM effect_sql_migrations").get()?.id ?? 0)
}

/**
 * Storage and a SqlClient on one SQLite connection opened by `open` (bun:sqlite or
 * better-sqlite3): settings and migrations applied when built; pending writes committed and the
 * connection closed when released.
 */
export const sqliteStorageWith = (open: (filename: string) => SqliteDriver) => (filename: string, options: SqliteOptions = {}) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const driver = yield* Effect.acquireRelease(
        Effect.try({
          try: () => {
            const d = open(ensureFolder(filename))
            try {
              d.exec("PRAGMA journal_mode = WAL")
              d.exec(`PRAGMA synchronous = ${options.synchronous ?? "FULL"}`)
              d.exec("PRAGMA busy_timeout = 5000")
              d.exec("PRAGMA foreign_keys = ON")
              return d
            } catch (e) {
              d.close()
              throw e
            }
          },
          catch: (cause) => new StorageError({ operation: "open", cause })
        }),
        (d) => Effect.sync(() => d.close())
      )
      const reads = makeReadBatching(driver)
      const sql = yield* makeSqliteSqlClient(driver, reads)
      // A database already current (every start but the first) skips the migrator.
      if (appliedMigration(driver) < latestMigrationId) yield* Effect.provideService(migrate, SqlClient.SqlClient, sql)
      const storage = yield* makeSqliteStorage(driver, reads, options.maxBatch === undefined ? {} : { maxBatch: options.maxBatch })
      return Context.make(Storage, storage).pipe(Context.add(SqlClient.SqlClient, sql))
    })
  )
