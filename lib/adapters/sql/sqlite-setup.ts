import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { migrate } from "./migrations/index.js"

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
