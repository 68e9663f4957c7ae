import type { UnavailableReason } from "../../domain/errors.js"
import { postgresUnavailable, sqliteUnavailable } from "./unavailable.js"

/**
 * What the SQL adapters share: statements as text with `?` placeholders and their parameters, run
 * by a driver (SQLite's own, or `@effect/sql` on PostgreSQL). Where the two databases differ, the
 * difference is named here and nowhere else.
 */
export type SqlValue = string | number | bigint | null | Uint8Array
export type Row = Readonly<Record<string, unknown>>

/** Binds a value as the drivers take it: booleans as 0/1, undefined as NULL, dates as ISO text, objects as JSON. */
export const toSqlValue = (u: unknown): SqlValue => {
  if (u === undefined || u === null) return null
  if (typeof u === "boolean") return u ? 1 : 0
  if (typeof u === "string" || typeof u === "number" || typeof u === "bigint" || u instanceof Uint8Array) return u
  if (u instanceof Date) return u.toISOString()
  return JSON.stringify(u)
}

export interface Query {
  readonly sql: string
  readonly params: ReadonlyArray<SqlValue>
  /**
   * What the program is resumed with: `rows` the rows the statement answers; `count` as many
   * (empty) rows as the write changed; `none` no rows.
   */
  readonly kind: "rows" | "count" | "none"
}

/**
 * A storage operation as a sequence of statements: it yields each query and is resumed with the
 * rows it answered. One definition serves both databases: SQLite runs it synchronously inside its
 * group commit, PostgreSQL statement by statement inside an `@effect/sql` transaction.
 */
export type Program<A> = Generator<Query, A, ReadonlyArray<Row>>

export const query = (sql: string, params: ReadonlyArray<SqlValue>): Query => ({ sql, params, kind: "rows" })
export const command = (sql: string, params: ReadonlyArray<SqlValue>): Query => ({ sql, params, kind: "none" })
/** A write whose number of changed rows the program needs (an insert that may conflict, a compare-and-set). */
export const counted = (sql: string, params: ReadonlyArray<SqlValue>): Query => ({ sql, params, kind: "count" })

/** Runs one query inside a program and answers its rows. */
export function* rows(q: Query): Program<ReadonlyArray<Row>> {
  return yield q
}

/** Runs a counted write inside a program and answers how many rows it changed. */
export function* changes(q: Query): Program<number> {
  return (yield q).length
}

export interface Dialect {
  readonly name: "sqlite" | "pg"
  /**
   * Taken first by every transaction that appends events (PostgreSQL: a transaction-scoped
   * advisory lock per workspace), so that transactions commit in the order their feed sequence
   * numbers were drawn, and a poller reading forward by sequence never passes a number whose
   * transaction commits later. SQLite serializes writers already.
   */
  readonly feedLock: ((workspaceId: string) => Query) | undefined
  /**
   * The statement text as the driver takes it: `?` on SQLite, `$1, $2, ...` on PostgreSQL, where
   * a counted write also answers a row per change (`@effect/sql` hands back rows, not counts).
   */
  readonly text: (q: Query) => string
  /** Whether a driver failure means the database cannot take requests now (`StorageError.unavailable`). */
  readonly unavailable: (cause: unknown) => UnavailableReason | undefined
}

export const sqliteDialect: Dialect = { name: "sqlite", feedLock: undefined, text: (q) => q.sql, unavailable: sqliteUnavailable }

const numbered = new Map<string, string>()
export const pgDialect: Dialect = {
  name: "pg",
  unavailable: postgresUnavailable,
  feedLock: (ws) => query("SELECT pg_advisory_xact_lock(hashtext(?)) AS locked", [ws]),
  text: (q) => {
    const key = q.kind === "count" ? `${q.sql} RETURNING 1` : q.sql
    let out = numbered.get(key)
    if (out === undefined) {
      let n = 0
      // Statements here never hold a `?` inside a literal: every value is a parameter.
      out = key.replace(/\?/g, () => `$${++n}`)
      numbered.set(key, out)
    }
    return out
  }
}
