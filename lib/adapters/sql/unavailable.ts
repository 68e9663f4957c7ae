import type { UnavailableReason } from "../../domain/errors.js"

/**
 * Which driver failures mean "the store cannot take the request now" (`StorageError.unavailable`):
 * the adapters decide it here, from their drivers' codes and messages, so that nothing outside
 * `lib/adapters` knows a driver's error vocabulary.
 */

/** SQLite result codes (better-sqlite3 and bun:sqlite name them in `code`). */
const SQLITE_FULL = /^SQLITE_(FULL|IOERR_WRITE|IOERR_FSYNC|IOERR_SHMSIZE)/
const SQLITE_BUSY = /^SQLITE_(BUSY|LOCKED)/
/** PostgreSQL SQLSTATEs: 53xxx insufficient resources (53100 disk full); 08xxx connection; 57P0x shutdown, restart, cannot connect now. */
const PG_FULL = /^53/
const PG_UNREACHABLE = /^(08|57P0[1-4])/
/** Socket errors, and the codes PostgreSQL clients give a connection that ended. */
const SOCKET_UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT"
])
const NO_SPACE = new Set(["ENOSPC", "EDQUOT"])

/**
 * What node-postgres (under `@effect/sql-pg`) says of a connection that the server ended (shut
 * down, restarted, `pg_terminate_backend`) or that broke: these errors carry no code.
 */
const PG_CONNECTION_LOST =
  /connection (terminated|closed|refused|ended|error)|terminating connection|not queryable|the database system is (starting up|shutting down|in recovery mode)|timeout expired|timeout exceeded when trying to connect/i

type Classify = (code: string | undefined, message: string) => UnavailableReason | undefined

/** Looks through wrapped causes (`SqlError` → the driver's error), a few levels at most. */
const through = (classify: Classify) => (cause: unknown): UnavailableReason | undefined => {
  let current: unknown = cause
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const code = "code" in current && typeof current.code === "string" ? current.code : undefined
    const message = "message" in current && typeof current.message === "string" ? current.message : ""
    const reason = classify(code, message)
    if (reason !== undefined) return reason
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

export const sqliteUnavailable = through((code, message) => {
  if (code !== undefined) {
    if (SQLITE_FULL.test(code) || NO_SPACE.has(code)) return "full"
    if (SQLITE_BUSY.test(code)) return "busy"
  }
  if (/database or disk is full|no space left on device/i.test(message)) return "full"
  if (/database is locked|database is busy/i.test(message)) return "busy"
  return undefined
})

export const postgresUnavailable = through((code, message) => {
  if (code !== undefined) {
    if (PG_FULL.test(code) || NO_SPACE.has(code)) return "full"
    if (PG_UNREACHABLE.test(code) || SOCKET_UNREACHABLE.has(code)) return "unreachable"
  }
  if (/no space left on device/i.test(message)) return "full"
  if (PG_CONNECTION_LOST.test(message)) return "unreachable"
  return undefined
})
