import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { migrate } from "./migrations/index.js"
import { SqlStorage } from "./storage.js"

/** An arbitrary, fixed advisory lock key for schema migrations. */
const MIGRATION_LOCK = 727_001

/**
 * Migrations on PostgreSQL, safe when several instances start at once: on one dedicated connection,
 * a session advisory lock is taken first, so the others wait and then find nothing left to apply.
 */
export const migratePostgres = (url: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`
    return yield* migrate.pipe(Effect.ensuring(Effect.orDie(sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`)))
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })), Effect.scoped)

export interface PostgresOptions {
  /** Connections in this process's pool (default 10). */
  readonly maxConnections?: number
}

/** Storage on PostgreSQL, migrated when built; the pool's SqlClient stays available. */
export const postgresStorageOn = (url: string, options: PostgresOptions = {}) =>
  SqlStorage.layer.pipe(
    Layer.provideMerge(
      PgClient.layer({ url: Redacted.make(url), maxConnections: options.maxConnections ?? 10, applicationName: "encounterd" })
    ),
    Layer.provide(Layer.effectDiscard(migratePostgres(url)))
  )
