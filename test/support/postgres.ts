import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, test } from "bun:test"
import { Effect, Layer, Redacted } from "effect"

/**
 * PostgreSQL for tests: `ENCOUNTERD_TEST_PG_URL` names a server (and a database to connect to for
 * admin work, e.g. postgres://postgres@127.0.0.1:5432/postgres). CI always sets it (`.ci/run`
 * starts a server when none answers); where it is unset the PostgreSQL suites say so and are skipped.
 */
export const pgAdminUrl = process.env.ENCOUNTERD_TEST_PG_URL

export const requirePg = (): string => {
  if (pgAdminUrl !== undefined && pgAdminUrl !== "") return pgAdminUrl
  if (process.env.CI !== undefined) throw new Error("ENCOUNTERD_TEST_PG_URL must be set in CI")
  console.warn("PostgreSQL suites skipped: set ENCOUNTERD_TEST_PG_URL=postgres://user@host:port/postgres to run them")
  return ""
}

const admin = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })

export const databaseUrl = (adminUrl: string, name: string): string => {
  const u = new URL(adminUrl)
  u.pathname = `/${name}`
  return u.toString()
}

/** Creates an empty database; dropping it is the release. Yields its URL. */
export const scratchDatabase = (adminUrl: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const name = `enc_test_${randomBytes(6).toString("hex")}`
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)).pipe(
        Effect.provide(admin(adminUrl)),
        Effect.scoped
      )
      return name
    }),
    (name) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).pipe(
        Effect.provide(admin(adminUrl)),
        Effect.scoped,
        Effect.orDie
      )
  ).pipe(Effect.map((name) => databaseUrl(adminUrl, name)), Effect.orDie)

/** A layer on a fresh database of its own, dropped when the layer is released. */
export const freshPgLayer = <A, E>(adminUrl: string, build: (url: string) => Layer.Layer<A, E>) =>
  Layer.unwrapScoped(Effect.map(scratchDatabase(adminUrl), build))

/**
 * A fresh empty database for suites without Effect plumbing (the compiled-binary suites):
 * `drop()` removes it (forcing off any connections left behind).
 */
export const createScratchDb = async (
  adminUrl: string
): Promise<{
  readonly url: string
  readonly drop: () => Promise<void>
  /** Ends every connection to this database (`pg_terminate_backend`, what a fast shutdown does to them); resolves with how many. */
  readonly terminateConnections: () => Promise<number>
}> => {
  const name = `enc_test_${randomBytes(6).toString("hex")}`
  const exec = (statement: string) =>
    Effect.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(admin(adminUrl)), Effect.scoped, Effect.orDie)
    )
  await exec(`CREATE DATABASE ${name}`)
  return {
    url: databaseUrl(adminUrl, name),
    drop: () => exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined),
    terminateConnections: () =>
      exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`).then(
        (rows) => rows.length
      )
  }
}

/**
 * A suite that needs PostgreSQL: run with the admin URL, or, where none is configured outside CI,
 * shown as one skipped entry that names the variable to set.
 */
export const describePg = (name: string, body: (adminUrl: string) => void) => {
  const adminUrl = requirePg()
  if (adminUrl === "") test.skip(`${name} (needs ENCOUNTERD_TEST_PG_URL)`, () => undefined)
  else describe(name, () => body(adminUrl))
}
