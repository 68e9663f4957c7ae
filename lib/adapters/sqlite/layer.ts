import { closeSync, existsSync, fsync, fsyncSync, openSync } from "node:fs"
import { resolve as resolvePath } from "node:path"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { DatabaseMissing, DatabaseUnusable, reasonOf, StorageError } from "../../domain/errors.js"
import { DatabaseAdmin } from "../../ports/database-admin.js"
import { Storage } from "../../ports/storage.js"
import { latestMigrationId, migrate } from "../sql/migrations/index.js"
import { sqliteUnavailable } from "../sql/unavailable.js"
import type { WalSync } from "./acknowledger.js"
import { sqliteAdmin } from "./admin.js"
import { makeSqliteSqlClient } from "./client.js"
import { makeReadBatching, type OpenSqlite, type SqliteDriver } from "./driver.js"
import { inMemory, makeDatabasePrivate, preparePrivateDatabase } from "./files.js"
import { makeSqliteStorage } from "./storage.js"

/**
 * SQLite durability. `FULL` (the default): a write that was answered has been fsynced, so it
 * survives a process kill and a power loss. On a WAL file the adapter does the syncing itself:
 * concurrent writes share one commit (group commit), and the WAL is fsynced off the event loop
 * before their callers are answered, one fsync for all the commits made before it began.
 * `NORMAL` survives a process kill only (the last transactions may roll back on power loss).
 */
export type SqliteSynchronous = "FULL" | "NORMAL"

export interface SqliteOptions {
  readonly synchronous?: SqliteSynchronous
  /** Most writes committed together in one transaction (default 256). */
  readonly maxBatch?: number
  /** Keep recorded events and encounters (at their row revision) for the reads to come (default true; see `sql/read-cache.ts`). */
  readonly readCache?: boolean
  /** How many of each are kept (defaults 10,000 events, 256 encounters). */
  readonly eventCacheSize?: number
  /**
   * Refuse a missing file (`DatabaseMissing`) instead of creating a new database: for tools that
   * read or change an existing one, where a mistyped path must not become an empty database. The
   * file is opened without SQLite's create flag, so there is no window between a check and the open.
   */
  readonly mustExist?: boolean
}

/** Creates a database file and its folder, owner-only (see files.ts); nothing for `:memory:`. */
export const ensureFolder = (filename: string): string => {
  preparePrivateDatabase(filename)
  return filename
}

/**
 * The newest migration recorded in the database (0 for a new, empty one). A database that holds
 * tables but no migration record belongs to another application: it is refused, not migrated.
 */
const appliedMigration = (driver: SqliteDriver): number => {
  const table = driver.prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'effect_sql_migrations'").get()
  if (table === undefined) {
    const other = driver.prepare("SELECT name FROM sqlite_master WHERE type = 'table' LIMIT 1").get()
    if (other !== undefined) throw new Error(`it holds tables of another application (${String(other.name)}) and no encounterd schema`)
    return 0
  }
  return Number(driver.prepare("SELECT MAX(migration_id) AS id FROM effect_sql_migrations").get()?.id ?? 0)
}

/**
 * Storage and a SqlClient on one SQLite connection opened by `open` (bun:sqlite or
 * better-sqlite3): settings and migrations applied when built; pending writes committed and the
 * connection closed when released.
 */
export const sqliteStorageWith = (open: OpenSqlite) => (filename: string, options: SqliteOptions = {}) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const create = options.mustExist !== true || inMemory(filename)
      const { driver, walSync, applied } = yield* Effect.acquireRelease(
        Effect.try({
          try: () => {
            const d = create ? open(ensureFolder(filename)) : open(filename, { create: false })
            try {
              // Read before anything is written: a file that is not ours is left as it is.
              const applied = appliedMigration(d)
              d.exec("PRAGMA journal_mode = WAL")
              makeDatabasePrivate(filename)
              const wal = String(d.prepare("PRAGMA journal_mode").get()?.journal_mode).toLowerCase() === "wal"
              // FULL on a WAL file: SQLite commits without syncing (NORMAL) and the adapter syncs the
              // WAL off the event loop before it answers (see walSyncFor). Elsewhere SQLite syncs.
              const sync = wal && (options.synchronous ?? "FULL") === "FULL" ? walSyncFor(`${resolvePath(filename)}-wal`) : undefined
              d.exec(`PRAGMA synchronous = ${sync !== undefined ? "NORMAL" : (options.synchronous ?? "FULL")}`)
              // Short: the write queue waits for a lock held elsewhere without blocking the event loop
              // (up to 5 s, see write-queue.ts); reads on a WAL file rarely wait at all.
              d.exec("PRAGMA busy_timeout = 50")
              d.exec("PRAGMA foreign_keys = ON")
              // Statement journals in memory. Every write of a group commit runs in a savepoint of its
              // own (write-queue.ts), so SQLite keeps the original of each page the write changes in
              // the statement journal. Once that journal passed 64 KiB, SQLite moved it to a temporary
              // file for the rest of the transaction: two system calls per page kept, some 80 per create
              // (strace; bench/RESULTS.md, "Statement journals in memory"). Temporary tables and sorts
              // are kept in memory too.
              d.exec("PRAGMA temp_store = MEMORY")
              return { driver: d, walSync: sync, applied }
            } catch (e) {
              d.close()
              throw e
            }
          },
          catch: (cause) =>
            // SQLite says only SQLITE_CANTOPEN; what is missing is the file (or its folder).
            !create && !existsSync(filename)
              ? new DatabaseMissing({ database: resolvePath(filename) })
              : new DatabaseUnusable({ database: filename, reason: reasonOf(cause) })
        }),
        ({ driver: d, walSync: sync }) =>
          Effect.sync(() => {
            d.close()
            sync?.close()
          })
      )
      const reads = makeReadBatching(driver)
      const sql = yield* makeSqliteSqlClient(driver, reads)
      // A database already current (every start but the first) skips the migrator.
      if (applied < latestMigrationId) {
        yield* Effect.provideService(migrate, SqlClient.SqlClient, sql).pipe(
          Effect.mapError((cause) => new StorageError({ operation: "migrate", cause, unavailable: sqliteUnavailable(cause) }))
        )
      }
      const storage = yield* makeSqliteStorage(driver, reads, {
        ...(options.maxBatch === undefined ? {} : { maxBatch: options.maxBatch }),
        ...(options.readCache === undefined ? {} : { readCache: options.readCache }),
        ...(options.eventCacheSize === undefined ? {} : { eventCacheSize: options.eventCacheSize }),
        ...(walSync === undefined ? {} : { walSync })
      })
      return Context.make(Storage, storage).pipe(
        Context.add(SqlClient.SqlClient, sql),
        Context.add(DatabaseAdmin, sqliteAdmin(driver, reads, filename, open))
      )
    })
  )

/**
 * Syncs the WAL file (`fsync`) on its own descriptor, opened once on first use: the WAL stays the
 * same file while the connection is open. `sync` runs on the runtime's thread pool, so the event
 * loop serves requests meanwhile; an `fsync` covers every write made to the file before it began.
 */
const walSyncFor = (walPath: string): WalSync & { readonly close: () => void } => {
  let fd: number | undefined
  const descriptor = () => (fd ??= openSync(walPath, "r"))
  return {
    sync: () =>
      new Promise<void>((resolve, reject) => {
        let f: number
        try {
          f = descriptor()
        } catch (e) {
          return reject(e)
        }
        fsync(f, (err) => (err === null ? resolve() : reject(err)))
      }),
    syncNow: () => fsyncSync(descriptor()),
    close: () => {
      if (fd !== undefined) closeSync(fd)
      fd = undefined
    }
  }
}
