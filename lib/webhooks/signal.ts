import { Context, Effect, Layer } from "effect"

/**
 * The in-process nudge from a committed write that queued deliveries to the delivery worker, so
 * that a delivery starts at once rather than at the next poll. Losing a nudge costs only latency
 * (the worker polls anyway), and another instance's writes are found by its poll.
 */
export interface DeliverySignalShape {
  readonly notify: () => void
  /** Resolves at the next notify, or after `ms`; at once when a notify came since the last wait. */
  readonly wait: (ms: number) => Effect.Effect<void>
}

export class DeliverySignal extends Context.Tag("encounters/DeliverySignal")<DeliverySignal, DeliverySignalShape>() {
  static readonly live = Layer.sync(DeliverySignal, (): DeliverySignalShape => {
    let waiters: Array<() => void> = []
    let pending = false
    return {
      notify: () => {
        if (waiters.length === 0) {
          pending = true
          return
        }
        const woken = waiters
        waiters = []
        for (const w of woken) w()
      },
      wait: (ms) =>
        Effect.async<void>((resume) => {
          if (pending) {
            pending = false
            resume(Effect.void)
            return
          }
          const done = () => {
            clearTimeout(timer)
            waiters = waiters.filter((w) => w !== done)
            resume(Effect.void)
          }
          const timer = setTimeout(done, ms)
          waiters.push(done)
          return Effect.sync(() => {
            clearTimeout(timer)
            waiters = waiters.filter((w) => w !== done)
          })
        })
    }
  })
}

/** Nudges the worker when one runs in this process (rules stay usable without it). */
export const notifyDeliveries = Effect.serviceOption(DeliverySignal).pipe(
  Effect.map((signal) => {
    if (signal._tag === "Some") signal.value.notify()
  })
)
