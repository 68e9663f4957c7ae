import { Effect, Layer } from "effect"
import { isPostgresUrl } from "../lib/db-url.js"
import { sqliteLayer } from "../lib/sqlite-bun.js"

export interface DatabaseOptions {
  readonly synchronous?: "FULL" | "NORMAL"
  readonly poolSize?: number
}

/**
 * The service on the database `--db` names: a `postgres://` URL selects PostgreSQL, anything else is
 * a SQLite file. Both provide the storage, clock, ids and the SqlClient.
 */
export const databaseLayer = (db: string, options: DatabaseOptions = {}) =>
  isPostgresUrl(db)
    ? // Loaded only when asked for: the PostgreSQL client stays out of a SQLite server's start-up.
      Layer.orDie(
        Layer.unwrapEffect(
          Effect.map(Effect.promise(() => import("../lib/postgres.js")), ({ postgresLayer }) =>
            postgresLayer(db, options.poolSize !== undefined ? { maxConnections: options.poolSize } : {})
          )
        )
      )
    : Layer.orDie(sqliteLayer(db, options.synchronous !== undefined ? { synchronous: options.synchronous } : {}))

/** A database name fit for logs: a PostgreSQL URL without its credentials. */
export const describeDb = (db: string): string => {
  if (!isPostgresUrl(db)) return db
  try {
    const u = new URL(db)
    return `postgres://${u.host}${u.pathname}`
  } catch {
    return "postgres://(unparsable URL)"
  }
}
