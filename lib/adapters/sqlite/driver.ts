/**
 * The few calls the SQLite adapter makes of a SQLite library: bun:sqlite (`bun-driver.ts`) and
 * better-sqlite3 (`node-driver.ts`) both have them, synchronous and with prepared statements.
 */
import type { Row, SqlValue } from "../sql/dialect.js"

export type SqliteValue = SqlValue
export type SqliteRow = Row

export interface SqliteStatement {
  /** Runs a statement that answers no rows; answers how many rows it changed. */
  readonly run: (...params: ReadonlyArray<SqliteValue>) => number
  readonly get: (...params: ReadonlyArray<SqliteValue>) => SqliteRow | undefined
  readonly all: (...params: ReadonlyArray<SqliteValue>) => ReadonlyArray<SqliteRow>
  /** Whether the statement answers rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean
}

/** How a driver opens its file. */
export interface SqliteOpenOptions {
  /** Create the file when it is missing (the default); false makes a missing file an error instead (SQLITE_CANTOPEN). */
  readonly create?: boolean
}

/** Opens a connection on a file (or `:memory:`). */
export type OpenSqlite = (filename: string, options?: SqliteOpenOptions) => SqliteDriver

export interface SqliteDriver {
  /** A prepared statement, compiled once per SQL text and kept for the connection's life. */
  readonly prepare: (sql: string) => SqliteStatement
  /** Runs one or more statements without parameters (pragmas, DDL, BEGIN/COMMIT). */
  readonly exec: (sql: string) => void
  readonly inTransaction: () => boolean
  readonly close: () => void
}

/**
 * Reads of one turn of the event loop share one read transaction. On a file database every
 * transaction takes and releases locks with system calls; batching the turn's reads (the key
 * lookup and the read of one request, and those of the other requests that arrived with it)
 * pays that once. The transaction ends before the turn is over (`setImmediate`), and before any
 * write or any statement of the SqlClient (`end`), so writes of other processes are seen from
 * the next turn on.
 */
export interface ReadBatching {
  /** Opens the turn's read transaction if none is open. */
  readonly ensure: () => void
  /** Ends it now, if open. */
  readonly end: () => void
}

export const makeReadBatching = (driver: SqliteDriver): ReadBatching => {
  const begin = driver.prepare("BEGIN")
  const commit = driver.prepare("COMMIT")
  let open = false
  const end = () => {
    if (!open) return
    open = false
    if (driver.inTransaction()) commit.run()
  }
  return {
    ensure: () => {
      if (open || driver.inTransaction()) return
      begin.run()
      open = true
      setImmediate(end)
    },
    end
  }
}
