import { Effect, Option } from "effect"
import { commit } from "./commit.js"
import { Unauthorized } from "../domain/errors.js"
import type { Principal } from "../domain/workspace.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { update } from "../ports/write.js"

const TOUCH_INTERVAL_MS = 60_000

/**
 * The workspace and scopes of the key with this SHA-256, for callers that keep a key's hash
 * instead of the key (the console's sessions). Unknown and revoked keys are Unauthorized, so a
 * revocation takes effect on the next request. `last_used_at` is refreshed at most once a minute.
 */
export const authenticateKeyHash = (hash: string) => Effect.gen(() => principalOfKeyHash(hash, "The API key has been revoked"))

/**
 * The principal of the stored key with this hash (the key check of `authenticate` too): unknown
 * keys are Unauthorized as not valid, revoked ones with `revokedReason`; `last_used_at` is
 * refreshed at most once a minute.
 */
export function* principalOfKeyHash(hash: string, revokedReason: string) {
  const storage = yield* Storage
  const clock = yield* Clock
  const found = yield* storage.findApiKeyByHash(hash)
  if (Option.isNone(found)) return yield* new Unauthorized({ reason: "The API key is not valid" })
  const { key, workspace } = found.value
  if (key.revoked_at !== null) return yield* new Unauthorized({ reason: revokedReason })
  const now = clock.now()
  if (key.last_used_at === null || now - Date.parse(key.last_used_at) > TOUCH_INTERVAL_MS) {
    yield* commit({
      operation: "touchApiKey",
      steps: [update("api_keys", key.id, { workspace_id: key.workspace_id }, { last_used_at: isoTime(now) })]
    })
  }
  const principal: Principal = { workspace, keyId: key.id, keyPrefix: key.prefix, scopes: key.scopes }
  return principal
}
