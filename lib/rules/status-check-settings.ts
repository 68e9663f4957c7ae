import { Effect, Either, Option } from "effect"
import type { WorkspaceId } from "../domain/ids.js"
import { requestDecoder } from "../domain/field-issues.js"
import { FieldIssue } from "../domain/errors.js"
import type { StoredStatusCheckSettings } from "../domain/status-check.js"
import {
  InvalidStatusCheckSettings,
  type StatusCheckSettings,
  StatusCheckSettingsInput,
  StatusCheckSettingsNotFound
} from "../domain/status-check-settings.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, update } from "../ports/write.js"
import { seal } from "../webhooks/secret-box.js"
import { requireKey, WebhookSettings } from "../webhooks/settings.js"
import { commit } from "./commit.js"

const decode = requestDecoder(StatusCheckSettingsInput)

/** What a sealed `core` password is bound to: a sealed value copied to another workspace does not open. */
export const passwordContext = (ws: WorkspaceId) => `status-checks:${ws}`

export const toStatusCheckSettings = (s: StoredStatusCheckSettings): StatusCheckSettings => ({
  enabled: s.enabled,
  first_after_days: s.first_after_days,
  every_days: s.every_days,
  max_checks: s.max_checks,
  window_days: s.window_days,
  transport: s.transport,
  core: s.core === null ? null : { url: s.core.url, sender_id: s.core.sender_id, receiver_id: s.core.receiver_id, username: s.core.username }
})

/**
 * Sets a workspace's follow-up settings (defaults for what is left out). The `core` password is
 * sealed with the server's secret key, as webhook signing secrets are, and never shown again;
 * left out, the stored one is kept.
 */
export const putStatusCheckSettings = (ws: WorkspaceId, body: unknown) =>
  Effect.gen(function* () {
    const decoded = decode(body)
    if (Either.isLeft(decoded)) return yield* new InvalidStatusCheckSettings({ errors: decoded.left })
    const input = decoded.right
    const storage = yield* Storage
    const at = isoTime((yield* Clock).now())
    for (;;) {
      const current = yield* storage.get("status_check_settings", ws, ws)
      let core: StoredStatusCheckSettings["core"] = null
      if (input.core !== null) {
        const { password, ...connection } = input.core
        const kept = Option.isSome(current) ? current.value.settings.core?.password : undefined
        if (password === undefined && kept === undefined) {
          return yield* new InvalidStatusCheckSettings({ errors: [new FieldIssue({ path: "core.password", message: "is required (none is stored yet)" })] })
        }
        const sealed = password === undefined ? kept! : seal(password, yield* requireKey(yield* WebhookSettings), passwordContext(ws))
        core = { ...connection, password: sealed }
      }
      const settings: StoredStatusCheckSettings = { ...input, core }
      const result = Option.isSome(current)
        ? yield* commit({ operation: "putStatusCheckSettings", steps: [update("status_check_settings", ws, { workspace_id: ws }, { settings, updated_at: at })] })
        : yield* commit({
            operation: "putStatusCheckSettings",
            steps: [insert("status_check_settings", { id: ws, workspace_id: ws, settings, updated_at: at }, { unique: "workspace", refuse: () => "raced" as const })]
          })
      if (result._tag === "Written") return toStatusCheckSettings(settings)
    }
  })

/** The settings, or `StatusCheckSettingsNotFound` while unset. */
export const getStatusCheckSettings = (ws: WorkspaceId) =>
  Effect.gen(function* () {
    const found = yield* (yield* Storage).get("status_check_settings", ws, ws)
    if (Option.isNone(found)) return yield* new StatusCheckSettingsNotFound()
    return toStatusCheckSettings(found.value.settings)
  })
