import { randomBytes } from "node:crypto"
import { chmodSync, closeSync, existsSync, fchmodSync, fsyncSync, linkSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from "node:fs"
import { basename, dirname, join, relative, resolve, sep } from "node:path"

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

/** A file written in full under a temporary name beside its target, not given its name yet. */
export interface StagedFile {
  readonly temp: string
  readonly target: string
}

/**
 * Writes `data` to a new 0600 file, synced, named `.<target's name>.<random>.partial` in the
 * target's folder (so that giving it its name is a link or rename within one folder). Fails when
 * the folder is missing or not writable; nothing is left behind then.
 */
export const stagePrivateFile = (target: string, data: string | Uint8Array): StagedFile => {
  const temp = tempBeside(target)
  try {
    writeNewPrivateFile(temp, data)
  } catch (e) {
    // A write cut short (a full disk) leaves no part behind; a name taken was not ours to remove.
    if (!(e instanceof Error && "code" in e && e.code === "EEXIST")) rmSync(temp, { force: true })
    throw e
  }
  return { temp, target }
}

/** A new temporary name in `target`'s folder, hidden (a leading dot) and unique. */
const tempBeside = (target: string): string => join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.partial`)

/**
 * Copies `source` into a new 0600 file beside `target` (as `stagePrivateFile`), in 1 MiB chunks,
 * synced: the copy is owner-only from its creation whatever the source's mode.
 */
export const stagePrivateCopy = (source: string, target: string): StagedFile => {
  const temp = tempBeside(target)
  const from = openSync(source, "r")
  try {
    const to = openNewPrivateFile(temp)
    try {
      const chunk = Buffer.alloc(1 << 20)
      for (;;) {
        const read = readSync(from, chunk, 0, chunk.length, null)
        if (read === 0) break
        let written = 0
        while (written < read) written += writeSync(to, chunk, written, read - written)
      }
      fsyncSync(to)
    } catch (e) {
      closeSync(to)
      rmSync(temp, { force: true })
      throw e
    }
    closeSync(to)
  } finally {
    closeSync(from)
  }
  return { temp, target }
}

/** The error codes of a file system without hard links (FAT, some network mounts). */
const noHardLinks = (e: unknown): boolean =>
  e instanceof Error && "code" in e && (e.code === "EPERM" || e.code === "ENOTSUP" || e.code === "EOPNOTSUPP" || e.code === "ENOSYS")

/** Makes a folder's entries durable (a new name survives a power loss); a no-op where folders cannot be synced. */
const syncFolder = (folder: string): void => {
  if (process.platform === "win32") return
  const fd = openSync(folder, "r")
  try {
    fsyncSync(fd)
  } catch (e) {
    // Some file systems refuse to sync a folder; their entries are as durable as they get.
    if (!(e instanceof Error && "code" in e && (e.code === "EINVAL" || e.code === "ENOTSUP"))) throw e
  } finally {
    closeSync(fd)
  }
}

/**
 * Gives a staged file its name, never replacing a file that has it: a hard link to the target
 * name (EEXIST when it is taken), then the temporary name removed, then the folder synced. Where
 * the file system has no hard links, a rename once the name is seen free.
 */
export const publishStagedFile = ({ temp, target }: StagedFile): void => {
  try {
    linkSync(temp, target)
  } catch (e) {
    if (!noHardLinks(e)) throw e
    if (existsSync(target)) throw Object.assign(new Error(`EEXIST: file already exists, '${target}'`), { code: "EEXIST" })
    renameSync(temp, target)
    syncFolder(dirname(target))
    return
  }
  rmSync(temp)
  syncFolder(dirname(target))
}

/** Removes a staged file that will not be given its name; one already gone is nothing to do. */
export const discardStagedFile = ({ temp }: StagedFile): void => rmSync(temp, { force: true })
