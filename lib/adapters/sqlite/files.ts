import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"

/**
 * Database files hold patient data, so they are owner-only whatever the process umask: folders
 * this service creates are 0700, the database, its -wal/-shm/-journal and backups 0600.
 */
const FOLDER_MODE = 0o700
const FILE_MODE = 0o600

/** The files SQLite keeps beside a database; it creates the -wal and -shm with the database's own mode. */
const companions = (filename: string): ReadonlyArray<string> => [filename, `${filename}-wal`, `${filename}-shm`, `${filename}-journal`]

/** Nothing to do: the file is not there, or another user owns it (its mode is that owner's choice). */
const isMissingOrNotOurs = (e: unknown): boolean => e instanceof Error && "code" in e && (e.code === "ENOENT" || e.code === "EPERM")

/**
 * Creates `folder` and its missing parents as 0700. Folders that already exist are left as they
 * are: the database may sit in a shared place (the working directory, /var/lib) whose mode is the
 * operator's choice.
 */
export const ensurePrivateFolder = (folder: string): void => {
  const target = resolve(folder)
  const first = mkdirSync(target, { recursive: true, mode: FOLDER_MODE })
  if (first === undefined) return
  // mkdir's mode passes through the umask, which may take owner bits away too: set it exactly.
  let current = resolve(first)
  chmodSync(current, FOLDER_MODE)
  for (const part of relative(current, target).split(sep).filter((p) => p !== "")) {
    current = join(current, part)
    chmodSync(current, FOLDER_MODE)
  }
}

/** Sets a file this process owns to 0600; a missing file is nothing to do. Backups call it once written. */
export const makePrivate = (file: string): void => {
  try {
    chmodSync(file, FILE_MODE)
  } catch (e) {
    if (!isMissingOrNotOurs(e)) throw e
  }
}

/**
 * Creates an empty file as 0600, failing when it exists (EEXIST): for a backup target, so the copy
 * is never readable by others, not even while it is written (`VACUUM INTO` accepts an empty file).
 */
export const createPrivateFile = (file: string): void => {
  closeSync(openSync(file, "wx", FILE_MODE))
  chmodSync(file, FILE_MODE)
}

const inMemory = (filename: string): boolean => filename === "" || filename === ":memory:" || filename.startsWith("file:")

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
