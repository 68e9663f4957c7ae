import { describe, expect, test } from "bun:test"
import { postgresUnavailable, sqliteUnavailable } from "../../lib/adapters/sql/unavailable.js"

/** A driver error as the SQL clients wrap it: `SqlError` with the driver's error as its cause. */
const wrapped = (cause: object) => ({ message: "Failed to execute statement", cause })
const coded = (code: string, message = "") => Object.assign(new Error(message), { code })

describe("which driver failures mean the database is unavailable (adapters decide, 503)", () => {
  test("PostgreSQL: shutdown, restart and terminated backends, lost and refused connections", () => {
    for (const cause of [
      coded("57P01", "terminating connection due to administrator command"),
      coded("57P02", "terminating connection due to crash of another server process"),
      coded("57P03", "the database system is shutting down"),
      coded("08006", "connection failure"),
      coded("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
      coded("ECONNRESET"),
      new Error("Connection terminated unexpectedly"),
      new Error("Client has encountered a connection error and is not queryable"),
      new Error("timeout exceeded when trying to connect")
    ]) {
      expect(postgresUnavailable(wrapped(cause))).toBe("unreachable")
    }
    expect(postgresUnavailable(wrapped(coded("53100", "could not extend file: No space left on device")))).toBe("full")
  })

  test("PostgreSQL: errors of the statement itself are not unavailability", () => {
    expect(postgresUnavailable(wrapped(coded("23505", "duplicate key value violates unique constraint")))).toBeUndefined()
    expect(postgresUnavailable(wrapped(coded("42P01", 'relation "x" does not exist')))).toBeUndefined()
    expect(postgresUnavailable(new Error("boom"))).toBeUndefined()
    expect(postgresUnavailable(undefined)).toBeUndefined()
  })

  test("SQLite: full disk and held locks; its codes mean nothing on PostgreSQL and the reverse", () => {
    expect(sqliteUnavailable(coded("SQLITE_FULL", "database or disk is full"))).toBe("full")
    expect(sqliteUnavailable(coded("SQLITE_IOERR_WRITE"))).toBe("full")
    expect(sqliteUnavailable(coded("SQLITE_BUSY", "database is locked"))).toBe("busy")
    expect(sqliteUnavailable(wrapped(coded("SQLITE_CONSTRAINT_UNIQUE")))).toBeUndefined()
    expect(sqliteUnavailable(coded("57P01"))).toBeUndefined()
    expect(postgresUnavailable(coded("SQLITE_BUSY"))).toBeUndefined()
  })
})
