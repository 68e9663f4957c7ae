/**
 * The few calls the SQLite adapter makes of a SQLite library: bun:sqlite (`bun-driver.ts`) and
 * better-sqlite3 (`node-driver.ts`) both have them, synchronous and with prepared statements.
 */
export type SqliteValue = string | number | bigint | null | Uint8Array
export type SqliteRow = Readonly<Record<string, unknown>>

export interface SqliteStatement {
  /** Runs a statement that answers no rows; answers how many rows it changed. */
  readonly run: (...params: ReadonlyArray<SqliteValue>) => number
  readonly get: (...params: ReadonlyArray<SqliteValue>) => SqliteRow | undefined
  readonly all: (...params: ReadonlyArray<SqliteValue>) => ReadonlyArray<SqliteRow>
  /** Whether the statement answers rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean
}

export interface SqliteDriver {
  /** A prepared statement, compiled once per SQL text and kept for the connection's life. */
  readonly prepare: (sql: string) => SqliteStatement
  /** Runs one or more statements without parameters (pragmas, DDL, BEGIN/COMMIT). */
  readonly exec: (sql: string) => void
  readonly inTransaction: () => boolean
  readonly close: () => void
}

/** Binds what the SQL layers hand over: booleans as 0/1, undefined as NULL, Buffers as bytes. */
export const toSqliteValue = (u: unknown): SqliteValue => {
  if (u === undefined || u === null) return null
  if (typeof u === "boolean") return u ? 1 : 0
  if (typeof u === "string" || typeof u === "number" || typeof u === "bigint" || u instanceof Uint8Array) return u
  if (u instanceof Date) return u.toISOString()
  return JSON.stringify(u)
}
