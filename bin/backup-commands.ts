import { existsSync, rmSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { Data, Effect, Option } from "effect"
import { copyProblem } from "../lib/adapters/sqlite/admin.js"
import { openBunDriver } from "../lib/adapters/sqlite/bun-driver.js"
import { isPostgresUrl } from "../lib/db-url.js"
import { reasonOf } from "../lib/domain/errors.js"
import { DatabaseAdmin } from "../lib/ports/database-admin.js"
import { discardStagedFile, ensurePrivateFolder, publishStagedFile, stagePrivateCopy, stagePrivateFile, writeNewPrivateFile } from "../lib/private-files.js"
import { BACKUP_KEY_SUFFIX, defaultKeyFile, readKeyFile } from "../lib/webhooks/secret-key.js"
import { type Parsed, required, str, UsageError } from "./args.js"
import { type Command, dbOption, dbPath, withDb } from "./db-command.js"
import { webhookFlagSpecs } from "./webhook-flags.js"

/**
 * `backup` and `restore` keep a database and its webhook secret key together. The key seals the
 * endpoints' signing secrets and lives outside the database (SECURITY.md): a copy without it
 * restores endpoints whose deliveries all fail. So `backup --out COPY` also writes the key as
 * `COPY.webhook-secret.key` (0600), and `restore --from COPY` puts both in place.
 */

const keyFileOption = { "webhook-secret-key-file": webhookFlagSpecs["webhook-secret-key-file"] }

/** The key file a command's database uses: the flag, else beside a SQLite file. */
const keyFileOf = (p: Parsed): string | undefined => {
  const file = str(p, "webhook-secret-key-file") ?? defaultKeyFile(dbPath(p))
  return file === undefined ? undefined : resolve(file)
}

/** Backup or restore could not be done; what was written for it is removed. */
export class CopyFailed extends Data.TaggedError("CopyFailed")<{ readonly message: string }> {}

const keyText = (key: Uint8Array): string => `${Buffer.from(key).toString("base64")}\n`

export const backupCommand: Command = {
  spec: {
    usage: "encounterd backup --out FILE [--db FILE] [--webhook-secret-key-file FILE]",
    summary:
      "Write a consistent copy of the database (also while the server runs), with VACUUM INTO, owner-only, checked with PRAGMA integrity_check. " +
      `The webhook secret key, when there is one, is copied beside it as FILE${BACKUP_KEY_SUFFIX} (0600): keep the two together, and as safe as the database.`,
    options: { out: { type: "string", help: "Destination file (must not exist; its folder must)" }, db: dbOption, ...keyFileOption }
  },
  run: (p) => {
    // What the arguments themselves get wrong is a usage error (exit 2); what the system refuses is not.
    if (isPostgresUrl(dbPath(p))) throw new UsageError("on PostgreSQL, back up with the engine's own tools (pg_dump, base backups)")
    const out = resolve(required(p, "out"))
    const keyOut = `${out}${BACKUP_KEY_SUFFIX}`
    for (const taken of [out, keyOut]) if (existsSync(taken)) throw new UsageError(`${taken} already exists`)
    const keyFile = keyFileOf(p)
    return withDb(
      dbPath(p),
      Effect.gen(function* () {
        // The key is read (and checked: owner-only, a key) before anything is written.
        const key = keyFile === undefined ? Option.none() : yield* readKeyFile(keyFile)
        const b = yield* Effect.flatMap(DatabaseAdmin, (admin) => admin.backup(out))
        if (Option.isSome(key)) {
          yield* Effect.try({
            try: () => writeNewPrivateFile(keyOut, keyText(key.value)),
            catch: (cause) => {
              // A copy without its key is what this command exists to prevent: none is left.
              rmSync(out, { force: true })
              return new CopyFailed({ message: `Cannot write ${keyOut}: ${reasonOf(cause)}; no backup was kept` })
            }
          })
        }
        return { backup: b.backup, db: b.db, integrity: b.integrity, webhook_secret_key: Option.isSome(key) ? keyOut : null }
      })
    )
  }
}

/** The database files SQLite keeps beside `db`: a restore must find none of them. */
const databaseFiles = (db: string): ReadonlyArray<string> => [db, `${db}-wal`, `${db}-shm`, `${db}-journal`]

export const restoreCommand: Command = {
  spec: {
    usage: "encounterd restore --from COPY [--db FILE] [--webhook-secret-key-file FILE]",
    summary:
      `Put a copy made by encounterd backup in place as the database, with its webhook secret key (COPY${BACKUP_KEY_SUFFIX}, when there is one). ` +
      "The copy is checked (PRAGMA integrity_check) first. Never replaces anything: stop the server and move the database, its -wal and -shm files and its key file aside first.",
    options: {
      from: { type: "string", help: "The copy written by encounterd backup --out" },
      db: { ...dbOption, help: "Where to put it: the SQLite file the server uses (must not exist)" },
      ...keyFileOption
    }
  },
  run: (p) => {
    const db = dbPath(p)
    if (isPostgresUrl(db)) throw new UsageError("on PostgreSQL, restore with the engine's own tools (pg_restore)")
    const from = resolve(required(p, "from"))
    if (!existsSync(from)) throw new UsageError(`${from} does not exist`)
    return Effect.runPromise(restore(from, resolve(db), keyFileOf(p)))
  }
}

const restore = (from: string, target: string, keyTarget: string | undefined) =>
  Effect.gen(function* () {
    const present = databaseFiles(target).filter((f) => existsSync(f))
    if (present.length > 0) {
      return yield* new CopyFailed({
        message: `${present.join(", ")}: already there, and restore never replaces a database. Stop the server and move the database and its -wal and -shm files aside first`
      })
    }
    const keyFrom = `${from}${BACKUP_KEY_SUFFIX}`
    const key = Option.getOrUndefined(yield* readKeyFile(keyFrom))
    // A key file in place stays when it is the copy's own; another key belongs to another database.
    const current = keyTarget === undefined ? undefined : Option.getOrUndefined(yield* readKeyFile(keyTarget))
    if (key !== undefined && current !== undefined && !Buffer.from(current).equals(Buffer.from(key))) {
      return yield* new CopyFailed({ message: `${keyTarget} holds another key than the copy's (${keyFrom}): move it aside with the database it belongs to first` })
    }
    const placeKey = key !== undefined && keyTarget !== undefined && current === undefined ? { key, file: keyTarget } : undefined

    // The key is named first and the database last: a server started meanwhile finds no database, or both.
    yield* Effect.try({
      try: () => {
        ensurePrivateFolder(dirname(target))
        const staged = stagePrivateCopy(from, target)
        let keyPlaced = false
        try {
          const problem = copyProblem(staged.temp, openBunDriver)
          if (problem !== undefined) throw new Error(`the copy ${problem}`)
          if (placeKey !== undefined) {
            ensurePrivateFolder(dirname(placeKey.file))
            const stagedKey = stagePrivateFile(placeKey.file, keyText(placeKey.key))
            try {
              publishStagedFile(stagedKey)
            } catch (e) {
              discardStagedFile(stagedKey)
              throw e
            }
            keyPlaced = true
          }
          publishStagedFile(staged)
        } catch (e) {
          discardStagedFile(staged)
          if (keyPlaced && placeKey !== undefined) rmSync(placeKey.file, { force: true })
          throw e
        }
      },
      catch: (cause) => new CopyFailed({ message: `Cannot restore ${from} to ${target}: ${reasonOf(cause)}; nothing was restored` })
    })
    return { restored: target, from, integrity: "ok" as const, webhook_secret_key: key !== undefined && keyTarget !== undefined ? keyTarget : null }
  })

