import { Layer } from "effect"
import { openBunDriver } from "./adapters/sqlite/bun-driver.js"
import { type SqliteOptions, sqliteStorageWith } from "./adapters/sqlite/layer.js"
import { liveServices } from "./layers.js"

/**
 * Storage (and a SqlClient on the same connection) on a SQLite file under Bun, through
 * `bun:sqlite`: WAL, `synchronous = FULL` unless told otherwise, group commit, migrations applied
 * when the layer is built. `:memory:` works too. For callers that bring their own clock and ids.
 */
export const sqliteStorageLayer = sqliteStorageWith(openBunDriver)

/** The whole service on a SQLite file under Bun (storage, SqlClient, clock, ids). */
export const sqliteLayer = (filename: string, options: SqliteOptions = {}) =>
  Layer.merge(sqliteStorageLayer(filename, options), liveServices)

export type { SqliteOptions }
