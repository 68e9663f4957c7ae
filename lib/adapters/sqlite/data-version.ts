import type { SqliteDriver } from "./driver.js"

/**
 * Whether another connection (the CLI, another process) has committed since the last look:
 * `PRAGMA data_version` changes only for other connections' commits. Read inside a transaction
 * (a read's, or the write lock's), so what it says holds for that transaction. What this
 * connection keeps of what it read is dropped when it answers true.
 */
export const watchDataVersion = (driver: SqliteDriver): { readonly changedElsewhere: () => boolean } => {
  const dataVersion = driver.prepare("PRAGMA data_version")
  let seen: unknown
  return {
    changedElsewhere: () => {
      const version = dataVersion.get()?.data_version
      if (version === seen) return false
      seen = version
      return true
    }
  }
}
