import { Effect, Option } from "effect"
import { commit } from "./commit.js"
import { type ClearinghouseSettings, decodeClearinghouseSettings } from "../domain/clearinghouse.js"
import type { StorageError } from "../domain/errors.js"
import type { WorkspaceId } from "../domain/ids.js"
import { ClearinghouseNotConfigured, ClearinghouseSettingsNotFound } from "../domain/x12-exchange-errors.js"
import type { ClearinghouseSettingsRecord } from "../domain/x12-exchange.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, update } from "../ports/write.js"

/**
 * Sets a workspace's clearinghouse settings (every problem listed, with its path, when they break
 * a rule). The control number counter is kept: batches go on numbering upward.
 */
export const putClearinghouseSettings = (workspaceId: WorkspaceId, input: unknown) =>
  Effect.gen(function* () {
    const settings = yield* decodeClearinghouseSettings(input)
    const storage = yield* Storage
    const at = isoTime((yield* Clock).now())
    for (;;) {
      const current = yield* storage.findClearinghouseSettings(workspaceId)
      const result = Option.isSome(current)
        ? yield* commit({
            operation: "putClearinghouseSettings",
            steps: [update("clearinghouse_settings", current.value.id, { workspace_id: workspaceId }, { settings, updated_at: at })]
          })
        : yield* commit({
            operation: "putClearinghouseSettings",
            steps: [
              insert(
                "clearinghouse_settings",
                { id: workspaceId, workspace_id: workspaceId, settings, last_control_number: 0, updated_at: at },
                // Another request created them first: this one updates them on the next turn.
                { unique: "workspace", refuse: () => "raced" as const }
              )
            ]
          })
      if (result._tag === "Written") return settings
    }
  })

/** The settings, or `ClearinghouseSettingsNotFound` while unset. */
export const getClearinghouseSettings = (workspaceId: WorkspaceId): Effect.Effect<ClearinghouseSettings, ClearinghouseSettingsNotFound | StorageError, Storage> =>
  Effect.flatMap(Storage, (storage) =>
    Effect.flatMap(storage.findClearinghouseSettings(workspaceId), (found) =>
      Option.match(found, { onNone: () => Effect.fail(new ClearinghouseSettingsNotFound()), onSome: (r) => Effect.succeed(r.settings) })
    )
  )

/** The settings row an export needs, or `ClearinghouseNotConfigured`. */
export const requireClearinghouse = (workspaceId: WorkspaceId) =>
  Effect.flatMap(Storage, (storage) =>
    Effect.flatMap(
      storage.findClearinghouseSettings(workspaceId),
      (found): Effect.Effect<ClearinghouseSettingsRecord, ClearinghouseNotConfigured> =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new ClearinghouseNotConfigured())
    )
  )
