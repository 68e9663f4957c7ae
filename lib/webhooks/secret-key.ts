import { closeSync, fsyncSync, readFileSync, statSync, writeSync } from "node:fs"
import { dirname, join } from "node:path"
import { Data, Effect, Either, Option } from "effect"
import { ensurePrivateFolder, openNewPrivateFile } from "../private-files.js"
import { newSecretBoxKey, secretBoxKey, type SecretBoxKey } from "./secret-box.js"

/**
 * Where the key that seals signing secrets lives. It is kept out of the database on purpose: a
 * copy of the database file alone reveals no signing secret. (`encounterd backup` writes the key
 * beside its copy, `BACKUP_KEY_SUFFIX`, since a copy restored without it cannot sign.)
 *
 * - SQLite: `webhook-secret.key` in the database's folder (created 0700 when missing), created with
 *   mode 0600 while the database holds no endpoint (`loadStoreKey`).
 * - PostgreSQL: no default; every instance must be given the same key file, since each one signs.
 * - In-memory databases: a fresh key per process (nothing outlives it anyway).
 */

export class SecretKeyError extends Data.TaggedError("SecretKeyError")<{ readonly path: string; readonly reason: string }> {
  override get message() {
    return `Webhook secret key ${this.path}: ${this.reason}`
  }
}

export const KEY_FILE_NAME = "webhook-secret.key"

/** The default key file for a database setting, or undefined when there is none (PostgreSQL, memory). */
export const defaultKeyFile = (db: string): string | undefined => {
  if (/^postgres(ql)?:\/\//.test(db)) return undefined
  if (db === ":memory:" || db === "") return undefined
  return join(dirname(db), KEY_FILE_NAME)
}

/** Key file contents: standard or URL-safe base64 of 32 bytes, surrounding whitespace ignored. */
export const parseSecretBoxKey = (text: string): Either.Either<SecretBoxKey, string> => {
  const trimmed = text.trim()
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return Either.left("must hold base64 of 32 bytes")
  return Either.mapLeft(secretBoxKey(new Uint8Array(Buffer.from(trimmed, "base64"))), () => "must hold base64 of 32 bytes")
}

const errnoCode = (e: unknown): string | undefined =>
  e instanceof Error && "code" in e && typeof e.code === "string" ? e.code : undefined

const readKey = (path: string): Either.Either<SecretBoxKey, SecretKeyError> => {
  // Like ssh with its private keys: a key others may read is refused rather than used.
  if (process.platform !== "win32" && (statSync(path).mode & 0o077) !== 0) {
    return Either.left(new SecretKeyError({ path, reason: "is readable by group or others; chmod 600 it" }))
  }
  return Either.mapLeft(parseSecretBoxKey(readFileSync(path, "utf8")), (reason) => new SecretKeyError({ path, reason }))
}

const createKey = (path: string): SecretBoxKey => {
  // The database's folder, when the key is made before the database (serve): 0700 like the database makes it.
  ensurePrivateFolder(dirname(path))
  const key = newSecretBoxKey()
  // Created new (`wx`): two processes starting at once cannot both write a key; the loser reads the winner's.
  const fd = openNewPrivateFile(path)
  try {
    writeSync(fd, `${Buffer.from(key).toString("base64")}\n`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  return key
}

/** Reads the key file; `None` when there is none. */
export const readKeyFile = (path: string): Effect.Effect<Option.Option<SecretBoxKey>, SecretKeyError> =>
  Effect.suspend(() => {
    try {
      return Either.match(readKey(path), { onLeft: Effect.fail, onRight: (key) => Effect.succeed(Option.some(key)) })
    } catch (e) {
      if (errnoCode(e) === "ENOENT") return Effect.succeed(Option.none())
      return Effect.fail(new SecretKeyError({ path, reason: `cannot be read (${errnoCode(e) ?? "unknown error"})` }))
    }
  })

/** Reads the key file, creating it (mode 0600) with a random key when it does not exist yet. */
export const loadOrCreateKeyFile = (path: string): Effect.Effect<SecretBoxKey, SecretKeyError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(createKey(path))
    } catch (e) {
      if (errnoCode(e) !== "EEXIST") {
        return Effect.fail(new SecretKeyError({ path, reason: `cannot be created (${errnoCode(e) ?? "unknown error"})` }))
      }
    }
    try {
      return readKey(path)
    } catch (e) {
      return Effect.fail(new SecretKeyError({ path, reason: `cannot be read (${errnoCode(e) ?? "unknown error"})` }))
    }
  })

/**
 * The key that opens a database's sealed signing secrets, from `path`. A missing file is created
 * only while the database holds no sealed secret (`sealed` answers whether it does): a new key
 * would open none of them, so every delivery would fail. Then the missing file is refused, naming
 * where the key is expected and where a backup keeps it.
 */
export const loadStoreKey = <E, R>(path: string, sealed: Effect.Effect<boolean, E, R>): Effect.Effect<SecretBoxKey, SecretKeyError | E, R> =>
  Effect.gen(function* () {
    const found = yield* readKeyFile(path)
    if (Option.isSome(found)) return found.value
    if (yield* sealed) {
      return yield* new SecretKeyError({
        path,
        reason:
          "is missing, and the database holds webhook signing secrets sealed under it (a new key would open none of them, so none was made). " +
          `Put back this database's key file: encounterd backup writes it beside the copy, as <copy>${BACKUP_KEY_SUFFIX}. ` +
          "If it is lost for good, write a new key there by hand and rotate every endpoint's secret twice (see docs/operations.md)"
      })
    }
    return yield* loadOrCreateKeyFile(path)
  })

/** What `encounterd backup` appends to the copy's name for the copy of the key file. */
export const BACKUP_KEY_SUFFIX = `.${KEY_FILE_NAME}`
