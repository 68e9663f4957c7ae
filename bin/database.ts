import { Effect, Layer } from "effect"
import { describePostgresUrl, isPostgresUrl } from "../lib/db-url.js"
import { sqliteLayer } from "../lib/sqlite-bun.js"

/** Where the data lives and how it is kept: `--db`, `--synchronous`, `--pool-size`. */
export interface StorageConfig {
  /** A SQLite file, or a `postgres://` URL. */
  readonly db: string
  /** SQLite `synchronous`: FULL survives power loss; NORMAL a process crash only. */
  readonly synchronous: "FULL" | "NORMAL"
  /** PostgreSQL connections per instance. */
  readonly poolSize?: number
}

export const storageDefaults = { db: "./data/encounterd.sqlite", synchronous: "FULL" } as const

/**
 * The service on the database `db` names: a `postgres://` URL selects PostgreSQL, anything else is
 * a SQLite file. Both provide the storage, clock, ids, the SqlClient and the database operations.
 * `mustExist`: a missing SQLite file is refused (`DatabaseMissing`), never created; PostgreSQL
 * databases are never created anyway.
 */
export const databaseLayer = (config: StorageConfig, open: { readonly mustExist?: boolean } = {}) =>
  isPostgresUrl(config.db)
    ? // Loaded only when asked for: the PostgreSQL client stays out of a SQLite server's start-up.
      Layer.orDie(
        Layer.unwrapEffect(
          Effect.map(Effect.promise(() => import("../lib/postgres.js")), ({ postgresLayer }) =>
            postgresLayer(config.db, config.poolSize !== undefined ? { maxConnections: config.poolSize } : {})
          )
        )
      )
    : Layer.orDie(sqliteLayer(config.db, { synchronous: config.synchronous, ...(open.mustExist === true ? { mustExist: true } : {}) }))

/** A database name fit for logs: a PostgreSQL URL without its credentials. */
export const describeDb = (db: string): string => (isPostgresUrl(db) ? describePostgresUrl(db) : db)
