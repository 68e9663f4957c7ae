import { Cause, type Effect, Exit, type Layer, ManagedRuntime, Option, Runtime } from "effect"
import { DatabaseMissing } from "../lib/domain/errors.js"
import type { CommandSpec, Parsed } from "./args.js"
import { str } from "./args.js"
import { databaseLayer, storageDefaults } from "./database.js"

/** What every CLI command shares: the database flag and running one effect against it. */

export const dbOption = { type: "string", env: "ENCOUNTERD_DB", help: `SQLite file or postgres:// URL (default ${storageDefaults.db})` } as const

export const dbPath = (p: Parsed): string => str(p, "db") ?? storageDefaults.db

/** A command that needs an existing database was given a path where there is none. */
export class NoDatabase extends Error {
  override readonly name = "NoDatabase"
  constructor(readonly database: string) {
    super(
      `No database at ${database}; nothing was created. Check --db (or ENCOUNTERD_DB); ` +
        `a new database is made by "encounterd serve" or "encounterd migrate" (also "workspaces create")`
    )
  }
}

export interface DbCommandOptions {
  /**
   * The command may create a new database (`migrate`, `workspaces create`). Every other command
   * reads or changes an existing one, and refuses a missing file rather than making an empty one.
   */
  readonly create?: boolean
}

/** Runs one effect against the database and disposes of it (the connection is closed). */
export const withDb = async <A, E>(
  db: string,
  effect: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof databaseLayer>>>,
  options: DbCommandOptions = {}
): Promise<A> => {
  const runtime = ManagedRuntime.make(databaseLayer({ db, synchronous: storageDefaults.synchronous }, { mustExist: options.create !== true }))
  try {
    const exit = await runtime.runPromiseExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    // The layer turns what makes a database unusable into a defect; a missing one gets the CLI's advice.
    const died = Cause.dieOption(exit.cause)
    if (Option.isSome(died) && died.value instanceof DatabaseMissing) throw new NoDatabase(died.value.database)
    throw Runtime.makeFiberFailure(exit.cause)
  } finally {
    await runtime.dispose()
  }
}

export interface Command {
  readonly spec: CommandSpec
  readonly run: (p: Parsed) => Promise<unknown>
}
