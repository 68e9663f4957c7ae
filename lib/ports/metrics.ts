import { Context } from "effect"

/** What a webhook delivery attempt came to, for the delivery counter. */
export type DeliveryOutcome = "succeeded" | "retry" | "failed"

/**
 * Where the library reports how storage and delivery are doing, for the server's `/metrics`.
 * Calls are synchronous and cheap (a few additions); adapters call them on their hot paths.
 * Values are durations, sizes and closed outcomes: never ids, payloads or patient data.
 */
export interface MetricsSink {
  /** One database commit: its duration (from BEGIN to COMMIT) and how many writes it carried. */
  readonly observeCommit: (seconds: number, batchSize: number) => void
  /** One fsync of the database or its WAL, as the adapter waited for it. */
  readonly observeFsync: (seconds: number) => void
  /** Deliveries waiting in the webhook outbox. */
  readonly setWebhookQueueDepth: (depth: number) => void
  /** One webhook delivery attempt and its outcome. */
  readonly observeDelivery: (outcome: DeliveryOutcome, seconds: number) => void
}

/** A sink that records nothing: the default when the embedder provides none. */
export const noMetrics: MetricsSink = {
  observeCommit: () => undefined,
  observeFsync: () => undefined,
  setWebhookQueueDepth: () => undefined,
  observeDelivery: () => undefined
}

/**
 * The metrics sink as a service with a default: adapters `yield* Metrics` when their layer is
 * built and keep the sink; without a provided one they get `noMetrics`.
 */
export class Metrics extends Context.Reference<Metrics>()("encounters/Metrics", { defaultValue: (): MetricsSink => noMetrics }) {}
