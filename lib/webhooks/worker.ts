import { randomUUID } from "node:crypto"
import { Duration, Effect, FiberSet, Layer, Option } from "effect"
import type { WebhookDeliveryRecord } from "../domain/webhook.js"
import { Clock, isoTime } from "../ports/clock.js"
import { type DeliveryOutcome, Metrics } from "../ports/metrics.js"
import { Storage } from "../ports/storage.js"
import { deliverOne, type DeliveryRun } from "./deliver.js"
import type { SecretBoxKey } from "./secret-box.js"
import { WebhookSettings } from "./settings.js"
import { DeliverySignal } from "./signal.js"

export interface WorkerOptions {
  /** Attempts under way at once, over all endpoints (default 16). */
  readonly concurrency?: number
  /** Attempts under way at once to one endpoint (default 4): a slow or dead one takes no more. */
  readonly perEndpoint?: number
  /**
   * Attempts under way at once for one workspace, at most (default half of `concurrency`). A
   * workspace gets less while others have attempts under way: see `workspaceShare`.
   */
  readonly perWorkspace?: number
  /** How often the outbox is read when nothing nudges the worker (default 500 ms). */
  readonly pollMs?: number
  /** Told of every delivery run (for metrics and tests). */
  readonly onRun?: (run: DeliveryRun) => void
}

export const DEFAULT_POLL_MS = 500

/**
 * How many attempts one workspace may have under way, when `others` other workspaces have some:
 * an equal share of the slots with one share kept free for a workspace that has none yet, so
 * that one workspace's slow or dead endpoints never hold every slot. Attempts are never cut
 * short: a share that shrinks takes effect as attempts end. Past `concurrency - 1` busy
 * workspaces each still gets one.
 */
export const workspaceShare = (concurrency: number, perWorkspace: number, others: number): number =>
  Math.max(1, Math.min(perWorkspace, Math.floor(concurrency / (others + 2))))

/** A run as the delivery counter names it; a delivery claimed elsewhere was not attempted here. */
const outcomes: Readonly<Record<DeliveryRun, DeliveryOutcome | undefined>> = {
  "claimed-elsewhere": undefined,
  abandoned: undefined,
  succeeded: "succeeded",
  retrying: "retry",
  failed: "failed"
}

/**
 * The delivery worker: reads due pending deliveries from the outbox, claims each with a lease
 * (a compare-and-set, so several instances on one database attempt each delivery from one of
 * them at a time), attempts it and records the outcome. At least once: a delivery whose attempt
 * was cut short (a crash, a shutdown) is due again when its lease expires, and pending rows
 * survive restarts. Runs until interrupted; its attempts are interrupted with it.
 */
export const runDeliveryWorker = (options: WorkerOptions = {}) =>
  Effect.gen(function* () {
    const settings = yield* WebhookSettings
    // Without a key no endpoint can exist: nothing to deliver.
    if (Option.isNone(settings.key)) return yield* Effect.never
    const key: SecretBoxKey = settings.key.value
    const storage = yield* Storage
    const clock = yield* Clock
    const signal = yield* Effect.serviceOption(DeliverySignal)
    const local = Option.isSome(signal) ? signal.value : yield* Effect.provide(DeliverySignal, DeliverySignal.live)
    const concurrency = options.concurrency ?? 16
    const perEndpoint = options.perEndpoint ?? 4
    const perWorkspace = options.perWorkspace ?? Math.max(1, Math.floor(concurrency / 2))
    const pollMs = options.pollMs ?? DEFAULT_POLL_MS
    const metrics = yield* Metrics
    const owner = randomUUID()
    const fibers = yield* FiberSet.make<void, never>()
    const inFlight = new Set<string>()
    const byEndpoint = new Map<string, number>()
    const byWorkspace = new Map<string, number>()
    const up = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)
    const down = (counts: Map<string, number>, key: string) => {
      const n = (counts.get(key) ?? 1) - 1
      if (n <= 0) counts.delete(key)
      else counts.set(key, n)
    }
    /** The workspace's share now: the other workspaces with attempts under way shrink it. */
    const share = (ws: string) => workspaceShare(concurrency, perWorkspace, byWorkspace.size - (byWorkspace.has(ws) ? 1 : 0))
    const fits = (d: WebhookDeliveryRecord) =>
      !inFlight.has(d.id) && (byEndpoint.get(d.endpoint_id) ?? 0) < perEndpoint && (byWorkspace.get(d.workspace_id) ?? 0) < share(d.workspace_id)

    const start = (d: WebhookDeliveryRecord) => {
      inFlight.add(d.id)
      up(byEndpoint, d.endpoint_id)
      up(byWorkspace, d.workspace_id)
      return FiberSet.run(fibers)(
        deliverOne(d, owner, key).pipe(
          Effect.timed,
          Effect.tap(([took, run]) =>
            Effect.sync(() => {
              options.onRun?.(run)
              const outcome = outcomes[run]
              if (outcome !== undefined) metrics.observeDelivery(outcome, Duration.toMillis(took) / 1000)
            })
          ),
          // A storage failure leaves the lease to expire: the delivery is attempted again later.
          Effect.catchAll(() => Effect.void),
          Effect.asVoid,
          Effect.ensuring(
            Effect.sync(() => {
              inFlight.delete(d.id)
              down(byEndpoint, d.endpoint_id)
              down(byWorkspace, d.workspace_id)
              // A free slot may let a waiting delivery start now.
              local.notify()
            })
          )
        )
      )
    }

    /**
     * Starts what is due and fits the limits; true when it started anything. Of the rows read, the
     * one whose workspace has the fewest attempts under way starts first (then the soonest due),
     * so the free slots go round the workspaces rather than to the longest backlog.
     */
    const fill = Effect.gen(function* () {
      const fullEndpoints = [...byEndpoint].filter(([, n]) => n >= perEndpoint).map(([id]) => id)
      const fullWorkspaces = [...byWorkspace].filter(([ws, n]) => n >= share(ws)).map(([ws]) => ws)
      // As many as there are free slots: rows of an endpoint or workspace beyond its limit are
      // left for the next round, which leaves that endpoint or workspace out.
      const waiting = [...(yield* storage.dueWebhookDeliveries(isoTime(clock.now()), concurrency - inFlight.size, fullEndpoints, fullWorkspaces))]
      let started = false
      while (inFlight.size < concurrency) {
        let next = -1
        for (const [i, d] of waiting.entries()) {
          if (!fits(d)) continue
          const chosen = waiting[next]
          if (chosen === undefined || (byWorkspace.get(d.workspace_id) ?? 0) < (byWorkspace.get(chosen.workspace_id) ?? 0)) next = i
        }
        const d = waiting[next]
        if (d === undefined) break
        waiting.splice(next, 1)
        yield* start(d)
        started = true
      }
      return started
    }).pipe(Effect.catchAll(() => Effect.succeed(false)))

    let countedAt = 0
    /** The outbox's depth for /metrics, counted at most once per poll interval. */
    const count = Effect.gen(function* () {
      const now = clock.now()
      if (now - countedAt < pollMs) return
      countedAt = now
      metrics.setWebhookQueueDepth(yield* storage.pendingWebhookDeliveries())
    }).pipe(Effect.catchAll(() => Effect.void))

    for (;;) {
      yield* count
      // Read again at once while reads start something: an endpoint or workspace filled up this
      // round is left out of the next read, so deliveries of others behind its backlog come into view.
      for (let round = 0; round < 8 && inFlight.size < concurrency; round++) {
        if (!(yield* fill)) break
      }
      yield* local.wait(pollMs)
    }
  }).pipe(Effect.scoped)

/** The worker as a layer: it runs while the layer is alive (an embedder's, or the server's). */
export const DeliveryWorker = {
  layer: (options: WorkerOptions = {}) => Layer.scopedDiscard(Effect.forkScoped(runDeliveryWorker(options)))
}
