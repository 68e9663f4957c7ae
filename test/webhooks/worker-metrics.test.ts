import { describe, expect, test } from "bun:test"
import { Effect, Fiber, Layer, Option } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { liveServices } from "../../lib/layers.js"
import { type DeliveryOutcome, Metrics, type MetricsSink } from "../../lib/ports/metrics.js"
import { Storage } from "../../lib/ports/storage.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { createWebhookEndpoint, updateWebhookEndpoint } from "../../lib/rules/webhook-endpoints.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { newSecretBoxKey } from "../../lib/webhooks/secret-box.js"
import { WebhookSettings } from "../../lib/webhooks/settings.js"
import { runDeliveryWorker } from "../../lib/webhooks/worker.js"
import { validPayload } from "../support/payloads.js"

/**
 * The worker reports the outbox's depth and each attempt's outcome to the metrics sink. No
 * network: the target is a loopback address that delivery refuses (creation allowed it).
 */
describe("delivery worker metrics", () => {
  test("queue depth and attempt outcomes reach the sink; an abandoned delivery is not counted as an attempt", async () => {
    const depths: Array<number> = []
    const outcomes: Array<DeliveryOutcome> = []
    const sink: MetricsSink = {
      observeCommit: () => undefined,
      observeFsync: () => undefined,
      setWebhookQueueDepth: (n) => void depths.push(n),
      observeDelivery: (outcome) => void outcomes.push(outcome)
    }
    const key = newSecretBoxKey()
    const settings = (allowPrivate: boolean) =>
      Layer.succeed(WebhookSettings, { key: Option.some(key), allowPrivate, schedule: [0, 60_000], timeoutMs: 500, version: "test" })
    const program = Effect.gen(function* () {
      const ws = (yield* createWorkspace("metrics", "M")).id
      const live = yield* Effect.provide(createWebhookEndpoint(ws, { url: "http://127.0.0.1:9/a" }), settings(true))
      const off = yield* Effect.provide(createWebhookEndpoint(ws, { url: "http://127.0.0.1:9/b" }), settings(true))
      yield* createEncounter(ws, validPayload("metrics-1"))
      // Disabled after its delivery was queued: the worker ends that one without an attempt.
      yield* Effect.provide(updateWebhookEndpoint(ws, off.id, { status: "disabled" }), settings(true))
      expect(depths).toEqual([])
      const worker = yield* Effect.fork(Effect.provide(runDeliveryWorker({ pollMs: 20 }), Layer.merge(settings(false), Layer.succeed(Metrics, sink))))
      const storage = yield* Storage
      for (let i = 0; i < 200 && (outcomes.length === 0 || depths.length < 2); i++) yield* Effect.sleep(10)
      yield* Fiber.interrupt(worker)
      expect(depths[0]).toBe(2)
      expect(outcomes).toEqual(["retry"])
      expect(yield* storage.pendingWebhookDeliveries()).toBe(1)
      expect(depths.at(-1)).toBe(1)
      return live.id
    })
    await Effect.runPromise(Effect.provide(program, Layer.merge(MemoryStorage.layer, liveServices)))
  })
})
