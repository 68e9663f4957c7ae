import { SqliteClient } from "@effect/sql-sqlite-node"
import { Layer } from "effect"
import { ensureFolder, type SqliteOptions, sqliteStorageOn } from "./adapters/sql/sqlite-setup.js"
import { liveServices } from "./layers.js"

/**
 * The service on a SQLite file under Node (better-sqlite3 through `@effect/sql-sqlite-node`): WAL, `synchronous = FULL` unless told otherwise,
 * migrations applied when the layer is built. `:memory:` works too. Also provides the SqlClient.
 */
export const sqliteLayer = (filename: string, options: SqliteOptions = {}) =>
  Layer.merge(sqliteStorageLayer(filename, options), liveServices)

/** Storage (and its SqlClient) alone, for callers that bring their own clock and ids. */
export const sqliteStorageLayer = (filename: string, options: SqliteOptions = {}) =>
  sqliteStorageOn(SqliteClient.layer({ filename: ensureFolder(filename) }), options)

export type { SqliteOptions }
