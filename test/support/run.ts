import { Effect, Layer } from "effect"

/** The one place tests run effects: provide the layer, scope it, run to a promise. */
export const runWith = <A, E, R, LE>(layer: Layer.Layer<R, LE>, effect: Effect.Effect<A, E, R>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.provide(effect, layer)))

/** A runner-neutral test harness, so one suite runs under `bun test` and under `node --test`. */
export interface Harness {
  readonly describe: (name: string, body: () => void) => void
  readonly test: (name: string, body: () => Promise<void>) => void
}
