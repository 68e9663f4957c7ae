import { createRequire } from "node:module"
import type { OpenSqlite, SqliteRow, SqliteStatement, SqliteValue } from "./driver.js"

/** The part of better-sqlite3's API used here (the package ships no types of its own). */
interface BetterStatement {
  readonly reader: boolean
  run(...params: ReadonlyArray<SqliteValue>): { readonly changes: number }
  get(...params: ReadonlyArray<SqliteValue>): SqliteRow | undefined
  all(...params: ReadonlyArray<SqliteValue>): Array<SqliteRow>
}
interface BetterDatabase {
  readonly inTransaction: boolean
  prepare(sql: string): BetterStatement
  exec(sql: string): void
  close(): void
}
type BetterSqlite = new (filename: string, options?: { readonly fileMustExist?: boolean }) => BetterDatabase

const load = (): BetterSqlite => createRequire(import.meta.url)("better-sqlite3") as BetterSqlite

/** A better-sqlite3 connection as a SqliteDriver (statements prepared once and cached per SQL text). */
export const openNodeDriver: OpenSqlite = (filename, options = {}) => {
  const Sqlite = load()
  const db = new Sqlite(filename, { fileMustExist: options.create === false })
  const cache = new Map<string, SqliteStatement>()
  return {
    prepare: (sql) => {
      const cached = cache.get(sql)
      if (cached !== undefined) return cached
      const stmt = db.prepare(sql)
      const wrapped: SqliteStatement = {
        run: (...params) => stmt.run(...params).changes,
        get: (...params) => stmt.get(...params),
        all: (...params) => stmt.all(...params),
        reader: stmt.reader
      }
      cache.set(sql, wrapped)
      return wrapped
    },
    exec: (sql) => db.exec(sql),
    inTransaction: () => db.inTransaction,
    close: () => {
      cache.clear()
      db.close()
    }
  }
}
