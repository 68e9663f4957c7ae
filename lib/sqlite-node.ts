import { Layer } from "effect"
import { type SqliteOptions, sqliteStorageWith } from "./adapters/sqlite/layer.js"
import { openNodeDriver } from "./adapters/sqlite/node-driver.js"
import { liveServices } from "./layers.js"

/**
 * Storage (and a SqlClient on the same connection) on a SQLite file under Node, through
 * better-sqlite3: WAL, `synchronous = FULL` unless told otherwise, group commit, migrations
 * applied when the layer is built. `:memory:` works too. For callers that bring their own clock and ids.
 */
export const sqliteStorageLayer = sqliteStorageWith(openNodeDriver)

/** The whole service on a SQLite file under Node (storage, SqlClient, clock, ids). */
export const sqliteLayer = (filename: string, options: SqliteOptions = {}) =>
  Layer.merge(sqliteStorageLayer(filename, options), liveServices)

export type { SqliteOptions }
