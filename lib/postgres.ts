import { Layer } from "effect"
import { type PostgresOptions, postgresStorageOn } from "./adapters/sql/postgres-setup.js"
import { liveServices } from "./layers.js"

export { isPostgresUrl } from "./db-url.js"

/**
 * The service on PostgreSQL (`@effect/sql-pg`): the SQL adapter written on `@effect/sql`'s SqlClient,
 * migrated at build under an advisory lock, so that several instances may share one database.
 * Also provides the SqlClient.
 */
export const postgresLayer = (url: string, options: PostgresOptions = {}) =>
  Layer.merge(postgresStorageLayer(url, options), liveServices)

/** Storage (and its SqlClient) alone, for callers that bring their own clock and ids. */
export const postgresStorageLayer = (url: string, options: PostgresOptions = {}) => postgresStorageOn(url, options)

export type { PostgresOptions }
