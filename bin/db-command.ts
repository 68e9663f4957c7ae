import { Effect, type Layer, ManagedRuntime } from "effect"
import type { CommandSpec, Parsed } from "./args.js"
import { str } from "./args.js"
import { databaseLayer, storageDefaults } from "./database.js"

/** What every CLI command shares: the database flag and running one effect against it. */

export const dbOption = { type: "string", env: "ENCOUNTERD_DB", help: `SQLite file or postgres:// URL (default ${storageDefaults.db})` } as const

export const dbPath = (p: Parsed): string => str(p, "db") ?? storageDefaults.db

/** Runs one effect against the database and disposes of it (the connection is closed). */
export const withDb = async <A, E>(
  db: string,
  effect: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof databaseLayer>>>
): Promise<A> => {
  const runtime = ManagedRuntime.make(databaseLayer({ db, synchronous: storageDefaults.synchronous }))
  try {
    return await runtime.runPromise(effect)
  } finally {
    await runtime.dispose()
  }
}

export interface Command {
  readonly spec: CommandSpec
  readonly run: (p: Parsed) => Promise<unknown>
}

