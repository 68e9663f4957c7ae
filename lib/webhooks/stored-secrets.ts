import { Effect, Option } from "effect"
import type { StorageError } from "../domain/errors.js"
import { Storage } from "../ports/storage.js"
import { keyId, sealedKeyId, type SecretBoxKey } from "./secret-box.js"

/**
 * The ids of the keys the database's signing secrets (and clearinghouse connections' secrets) are
 * sealed under, read from the newest endpoint and connection of each workspace (indexed reads per
 * workspace): empty when none exists, that is, when any key may be made for the database.
 * The ids of the keys the database's signing secrets are sealed under, read from the newest
 * endpoint of each workspace and its status check settings' core password (indexed reads per
 * workspace): empty when no sealed secret exists, that is, when any key may be made for the database.
 */
export const sealedSecretKeyIds: Effect.Effect<ReadonlySet<string>, StorageError, Storage> = Effect.gen(
  function* () {
    const storage = yield* Storage
    const ids = new Set<string>()
    for (const ws of yield* storage.listWorkspaces()) {
      const [newest] = yield* storage.page("webhook_endpoints", ws.id, { limit: 1 })
      if (newest !== undefined) ids.add(sealedKeyId(newest.secret) ?? "")
      // Clearinghouse connections' passwords and keys are sealed under the same key.
      const [connection] = yield* storage.page("clearinghouse_connections", ws.id, { limit: 1 })
      if (connection !== undefined) ids.add(sealedKeyId(connection.secret) ?? "")
      // The status checks' core password is sealed under the same key.
      const checks = yield* storage.get("status_check_settings", ws.id, ws.id)
      const password = Option.isSome(checks) ? checks.value.settings.core?.password : undefined
      if (password !== undefined) ids.add(sealedKeyId(password) ?? "")
    }
    return ids
  }
)

/**
 * Whether some workspace's newest endpoint has its secret sealed under another key than `key`
 * (a database put back without its key file, with another one in its place): deliveries to it
 * fail. False without a key (PostgreSQL without a key file).
 */
export const sealedUnderAnotherKey = (key: Option.Option<SecretBoxKey>): Effect.Effect<boolean, StorageError, Storage> =>
  Effect.gen(function* () {
    if (Option.isNone(key)) return false
    const own = keyId(key.value)
    for (const id of yield* sealedSecretKeyIds) if (id !== own) return true
    return false
  })
