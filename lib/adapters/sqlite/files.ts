import { chmodSync, closeSync, openSync } from "node:fs"
import { dirname } from "node:path"
import { createPrivateFile, ensurePrivateFolder, FILE_MODE } from "../../private-files.js"

/**
 * Database files hold patient data, so they are owner-only whatever the process umask: folders
 * this service creates are 0700 (`lib/private-files.ts`), the database, its -wal/-shm/-journal and
 * backups 0600.
 */
export { createPrivateFile, ensurePrivateFolder }

/** The files SQLite keeps beside a database; it creates the -wal and -shm with the database's own mode. */
const companions = (filename: string): ReadonlyArray<string> => [filename, `${filename}-wal`, `${filename}-shm`, `${filename}-journal`]

/** Nothing to do: the file is not there, or another user owns it (its mode is that owner's choice). */
const isMissingOrNotOurs = (e: unknown): boolean => e instanceof Error && "code" in e && (e.code === "ENOENT" || e.code === "EPERM")

/** Sets a file this process owns to 0600; a missing file is nothing to do. Backups call it once written. */
export const makePrivate = (file: string): void => {
  try {
    chmodSync(file, FILE_MODE)
  } catch (e) {
    if (!isMissingOrNotOurs(e)) throw e
  }
}

/** `:memory:`, an empty name (a temporary database) or a URI: nothing on disk to prepare. */
export const inMemory = (filename: string): boolean => filename === "" || filename === ":memory:" || filename.startsWith("file:")

/**
 * Before SQLite opens `filename`: its folder created 0700 when missing, the database file created
 * empty as 0600 (SQLite takes an empty file as a new database) or an existing one and its companions
 * set to 0600. SQLite then creates the -wal and -shm with the database's mode, 0600.
 */
export const preparePrivateDatabase = (filename: string): void => {
  if (inMemory(filename)) return
  ensurePrivateFolder(dirname(filename))
  closeSync(openSync(filename, "a", FILE_MODE))
  for (const file of companions(filename)) makePrivate(file)
}

/** After SQLite has opened `filename`: the database and the companions it made are 0600. */
export const makeDatabasePrivate = (filename: string): void => {
  if (!inMemory(filename)) for (const file of companions(filename)) makePrivate(file)
}
