import { Effect, Layer, ManagedRuntime, Option } from "effect"
import type { WorkspaceId } from "../../lib/domain/ids.js"
import { Clock, Ids } from "../../lib/ports/clock.js"
import type { Storage } from "../../lib/ports/storage.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { putStatusCheckSettings } from "../../lib/rules/status-check-settings.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { newSecretBoxKey } from "../../lib/webhooks/secret-box.js"
import { WebhookSettings } from "../../lib/webhooks/settings.js"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"

export const T0 = Date.parse("2026-11-01T00:00:00.000Z")
export const DAY = 86_400_000

export const key = newSecretBoxKey()
/** Webhook settings with a key (the core password is sealed with it) and private targets allowed. */
export const webhookSettings = Layer.succeed(WebhookSettings, { key: Option.some(key), allowPrivate: true, schedule: [0, 60_000], timeoutMs: 1000, version: "test" })

export type Services = Storage | Clock | Ids | WebhookSettings

/** A runner over one storage layer built once (kept across runs: `dispose` ends it), with a clock the test moves. */
export const runner = (storage: Layer.Layer<Storage, unknown>) => {
  const clock = Clock.manual(T0)
  const runtime = ManagedRuntime.make(Layer.mergeAll(storage, clock.layer, Ids.live, webhookSettings))
  return {
    clock: clock.control,
    run: <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect),
    dispose: () => runtime.dispose()
  }
}

/** A workspace with clearinghouse and follow-up settings, and claims submitted to the payer now. */
export const workspaceWithClaims = (slug: string, pcns: ReadonlyArray<string>, followUp: Record<string, unknown>) =>
  Effect.gen(function* () {
    const ws: WorkspaceId = (yield* createWorkspace(slug, slug)).id
    yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
    yield* putStatusCheckSettings(ws, followUp)
    const claims: Array<string> = []
    for (const pcn of pcns) {
      const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
      const claimId = (yield* getEncounter(ws, created.encounter_id)).claim.id
      yield* changeClaimStatus(ws, claimId, "submitted_to_payer")
      claims.push(claimId)
    }
    return { ws, claims }
  })
