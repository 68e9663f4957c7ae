import type { KeyWithWorkspace } from "../../domain/workspace.js"
import { watchDataVersion } from "./data-version.js"
import type { SqliteDriver } from "./driver.js"

export interface KeyCache {
  /** The cached key for this hash, if the database has not changed since it was cached. Call inside the turn's read transaction. */
  readonly get: (hash: string) => KeyWithWorkspace | undefined
  readonly set: (hash: string, found: KeyWithWorkspace) => void
  /** Forgets every key (a key was written on this connection). */
  readonly clear: () => void
}

const MAX_KEYS = 10_000

/**
 * Keys by hash, kept between requests: a key is checked on every request, and its row changes
 * rarely. The cache is dropped whenever another connection (the CLI, another process) has committed
 * anything (`PRAGMA data_version`, read inside the turn's read transaction) and on every key write
 * of this one, so a revocation applies from the next request on.
 */
export const makeKeyCache = (driver: SqliteDriver): KeyCache => {
  const keys = new Map<string, KeyWithWorkspace>()
  const others = watchDataVersion(driver)
  return {
    get: (hash) => {
      if (others.changedElsewhere()) keys.clear()
      return keys.get(hash)
    },
    set: (hash, found) => {
      if (keys.size >= MAX_KEYS) keys.clear()
      keys.set(hash, found)
    },
    clear: () => keys.clear()
  }
}
