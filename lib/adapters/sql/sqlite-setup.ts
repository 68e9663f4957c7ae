import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { migrate } from "./migrations/index.js"
import { SqlStorage } from "./storage.js"

/**
 * SQLite durability. WAL mode (set by the client) with `synchronous = FULL`: a transaction that
 * returned has been fsynced, so it survives a process kill and a power loss. `NORMAL` would survive
 * a process kill only (the last transactions may roll back on power loss).
 */
export type SqliteSynchronous = "FULL" | "NORMAL"

export interface SqliteOptions {
  readonly synchronous?: SqliteSynchronous
}

/** Connection settings and migrations, for any SQLite SqlClient. */
export const setupSqlite = (options: SqliteOptions = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const synchronous = options.synchronous ?? "FULL"
    yield* sql.unsafe(`PRAGMA synchronous = ${synchronous}`)
    yield* sql.unsafe("PRAGMA busy_timeout = 5000")
    yield* sql.unsafe("PRAGMA foreign_keys = ON")
    yield* migrate
  })

/**
 * Storage on a SQLite client layer (either driver): settings and migrations applied at build.
 * The SqlClient stays available, for operations such as backups.
 */
export const sqliteStorageOn = <E>(client: Layer.Layer<SqlClient.SqlClient, E>, options: SqliteOptions = {}) =>
  SqlStorage.layer.pipe(Layer.provideMerge(Layer.effectDiscard(setupSqlite(options))), Layer.provideMerge(client))

/** Creates the folder of a database file (not for `:memory:`). */
export const ensureFolder = (filename: string): string => {
  if (filename !== ":memory:") mkdirSync(dirname(filename), { recursive: true })
  return filename
}
