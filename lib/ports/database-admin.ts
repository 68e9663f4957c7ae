import { Context, type Effect } from "effect"
import type { BackupFailed, StorageError } from "../domain/errors.js"

export interface BackupResult {
  readonly backup: string
  readonly db: string
  /** The copy passed `PRAGMA integrity_check`. */
  readonly integrity: "ok"
  readonly bytes: number
}

export interface AppliedMigration {
  readonly id: number
  readonly name: string
}

/**
 * Operations on the database itself, for the operator CLI: a consistent, checked copy, and the
 * schema migrations applied. Each adapter layer provides its own.
 */
export interface DatabaseAdminShape {
  /** The database, fit for logs (a file path, or a PostgreSQL URL without credentials). */
  readonly description: string
  readonly backup: (out: string) => Effect.Effect<BackupResult, BackupFailed | StorageError>
  readonly migrations: () => Effect.Effect<ReadonlyArray<AppliedMigration>, StorageError>
}

export class DatabaseAdmin extends Context.Tag("encounters/DatabaseAdmin")<DatabaseAdmin, DatabaseAdminShape>() {}
