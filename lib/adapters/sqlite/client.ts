import * as Reactivity from "@effect/experimental/Reactivity"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { Effect, Scope } from "effect"
import { toSqlValue } from "../sql/dialect.js"
import type { ReadBatching, SqliteDriver, SqliteRow } from "./driver.js"

/**
 * An `@effect/sql` SqlClient on the adapter's own connection: migrations, backups and embedders'
 * own queries go through it, on the same database (also `:memory:`) as the storage. Its
 * transactions hold a one-permit semaphore; the storage's batched writes wait for them to end.
 */
export const makeSqliteSqlClient = (driver: SqliteDriver, reads: ReadBatching): Effect.Effect<Client.SqlClient, never, Scope.Scope> =>
  Effect.gen(function* () {
    const rows = (sql: string, params: ReadonlyArray<unknown>) =>
      Effect.try({
        try: (): Array<SqliteRow> => {
          reads.end()
          const stmt = driver.prepare(sql)
          const values = params.map(toSqlValue)
          if (stmt.reader) return [...stmt.all(...values)]
          stmt.run(...values)
          return []
        },
        catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
      })
    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        transformRows === undefined ? rows(sql, params) : Effect.map(rows(sql, params), (r) => transformRows(r)),
      executeRaw: (sql, params) => rows(sql, params),
      executeValues: (sql, params) => Effect.map(rows(sql, params), (r) => r.map((row) => Object.values(row))),
      executeUnprepared: (sql, params, transformRows) =>
        transformRows === undefined ? rows(sql, params) : Effect.map(rows(sql, params), (r) => transformRows(r)),
      executeStream: () => Effect.dieMessage("executeStream is not supported on SQLite")
    }
    const semaphore = yield* Effect.makeSemaphore(1)
    const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))
        ),
        connection
      )
    )
    return yield* Client.make({
      acquirer,
      compiler: Statement.makeCompilerSqlite(),
      transactionAcquirer,
      spanAttributes: [["db.system.name", "sqlite"]]
    }).pipe(Effect.provide(Reactivity.layer))
  })
