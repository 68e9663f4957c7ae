import { Context, Effect, Layer } from "effect"
import { DeliverySignal, type DeliverySignalShape } from "../webhooks/signal.js"

/**
 * The in-process nudge from a queued `core` check to the status check worker, so a check asked
 * for is sent at once rather than at the next poll (the same mechanism as webhook deliveries').
 */
export class StatusCheckSignal extends Context.Tag("encounters/StatusCheckSignal")<StatusCheckSignal, DeliverySignalShape>() {
  static readonly live = Layer.effect(StatusCheckSignal, Effect.provide(DeliverySignal, DeliverySignal.live))
}

/** Nudges the worker when one runs in this process. */
export const notifyStatusChecks = Effect.serviceOption(StatusCheckSignal).pipe(
  Effect.map((signal) => {
    if (signal._tag === "Some") signal.value.notify()
  })
)
