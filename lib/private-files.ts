import { chmodSync, closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs"
import { join, relative, resolve, sep } from "node:path"
import { Data } from "effect"

/**
 * Files that hold patient data or secrets are owner-only whatever the process umask: folders this
 * service creates are 0700, the files 0600 from the moment they exist (never written first and
 * tightened after). Every folder or file the server or the CLI creates goes through here.
 */
export const FOLDER_MODE = 0o700
export const FILE_MODE = 0o600

/**
 * Creates `folder` and its missing parents as 0700, whichever caller runs first. Folders that
 * already exist are left as they are: the database may sit in a shared place (the working
 * directory, /var/lib) whose mode is the operator's choice.
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

/**
 * Opens a new file as 0600, failing when it exists (EEXIST). The mode is given at creation (the
 * umask can only take bits away) and set exactly on the open descriptor, before any byte is written.
 */
export const openNewPrivateFile = (file: string): number => {
  const fd = openSync(file, "wx", FILE_MODE)
  try {
    fchmodSync(fd, FILE_MODE)
  } catch (e) {
    closeSync(fd)
    throw e
  }
  return fd
}

/** Creates an empty file as 0600, failing when it exists (a backup target that SQLite then fills). */
export const createPrivateFile = (file: string): void => closeSync(openNewPrivateFile(file))

/** Writes a new file (failing when it exists) that is 0600 from its creation, synced before it is closed. */
export const writeNewPrivateFile = (file: string, data: string | Uint8Array): void => {
  const fd = openNewPrivateFile(file)
  try {
    const bytes = typeof data === "string" ? Buffer.from(data) : data
    let written = 0
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** A file the CLI was asked to write could not be (it exists, its folder is missing, ...). */
export class FileNotWritten extends Data.TaggedError("FileNotWritten")<{ readonly file: string; readonly reason: string }> {
  override get message() {
    return `Cannot write ${this.file}: ${this.reason}`
  }
}
