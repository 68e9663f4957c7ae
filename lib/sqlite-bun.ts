import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { SqliteClient } from "@effect/sql-sqlite-bun"
import { Layer } from "effect"
import { setupSqlite, type SqliteOptions } from "./adapters/sql/sqlite-setup.js"
import { SqlStorage } from "./adapters/sql/storage.js"
import { liveServices } from "./layers.js"

/**
 * The service on a SQLite file under Bun (`bun:sqlite` through `@effect/sql-sqlite-bun`): WAL,
 * `synchronous = FULL` unless told otherwise, migrations applied at build. `:memory:` works too.
 * Also provides the SqlClient, for operations such as backups.
 */
export const sqliteLayer = (filename: string, options: SqliteOptions = {}) =>
  Layer.merge(sqliteStorageLayer(filename, options), liveServices)

/** Storage (and its SqlClient) alone, for callers that bring their own clock and ids. */
export const sqliteStorageLayer = (filename: string, options: SqliteOptions = {}) => {
  if (filename !== ":memory:") mkdirSync(dirname(filename), { recursive: true })
  const client = SqliteClient.layer({ filename })
  return SqlStorage.layer.pipe(Layer.provideMerge(Layer.effectDiscard(setupSqlite(options))), Layer.provideMerge(client))
}

export type { SqliteOptions }
