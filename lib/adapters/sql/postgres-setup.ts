import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { describePostgresUrl } from "../../db-url.js"
import { BackupFailed, StorageError } from "../../domain/errors.js"
import { DatabaseAdmin } from "../../ports/database-admin.js"
import { migrate } from "./migrations/index.js"
import { appliedMigrations, toAppliedMigration } from "./statements.js"
import { SqlStorage } from "./storage.js"
import { postgresUnavailable } from "./unavailable.js"

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

/** On PostgreSQL, backups are the engine's own (pg_dump, base backups); migrations are read from the record table. */
const postgresAdmin = (url: string) =>
  Layer.effect(
    DatabaseAdmin,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return {
        description: describePostgresUrl(url),
        backup: (out: string) =>
          Effect.fail(new BackupFailed({ out, reason: "on PostgreSQL, back up with the engine's own tools (pg_dump, base backups)" })),
        migrations: () =>
          sql.unsafe<Readonly<Record<string, unknown>>>(appliedMigrations.sql).pipe(
            Effect.map((rows) => rows.map(toAppliedMigration)),
            Effect.mapError((cause) => new StorageError({ operation: "migrations", cause, unavailable: postgresUnavailable(cause) }))
          )
      }
    })
  )

/** Storage on PostgreSQL, migrated when built; the pool's SqlClient stays available. */
export const postgresStorageOn = (url: string, options: PostgresOptions = {}) =>
  Layer.merge(SqlStorage.layer, postgresAdmin(url)).pipe(
    Layer.provideMerge(
      PgClient.layer({
        url: Redacted.make(url),
        maxConnections: options.maxConnections ?? 10,
        applicationName: "encounterd",
        // While the server is down or restarting, a request fails fast (503) instead of waiting for
        // a connection indefinitely; the pool reconnects by itself once the server answers again.
        connectTimeout: "3 seconds"
      })
    ),
    Layer.provide(Layer.effectDiscard(migratePostgres(url)))
  )
