import { Database } from "bun:sqlite"
import type { OpenSqlite, SqliteRow, SqliteStatement, SqliteValue } from "./driver.js"

/** A bun:sqlite connection as a SqliteDriver (statements prepared once and cached per SQL text). */
export const openBunDriver: OpenSqlite = (filename, options = {}) => {
  const db = new Database(filename, { create: options.create ?? true, readwrite: true })
  const cache = new Map<string, SqliteStatement>()
  const statements: Array<{ finalize: () => void }> = []
  return {
    prepare: (sql) => {
      const cached = cache.get(sql)
      if (cached !== undefined) return cached
      const stmt = db.prepare<SqliteRow, Array<SqliteValue>>(sql)
      statements.push(stmt)
      const wrapped: SqliteStatement = {
        run: (...params) => stmt.run(...params).changes,
        get: (...params) => stmt.get(...params) ?? undefined,
        all: (...params) => stmt.all(...params),
        // bun:sqlite answers `[]` from `all` on a statement without rows, so every statement can read.
        reader: stmt.columnNames.length > 0
      }
      cache.set(sql, wrapped)
      return wrapped
    },
    exec: (sql) => void db.exec(sql),
    inTransaction: () => db.inTransaction,
    close: () => {
      for (const stmt of statements) stmt.finalize()
      cache.clear()
      db.close()
    }
  }
}
