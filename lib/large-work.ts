import { Effect } from "effect"

/**
 * Jobs that hold a large live set while they run and let it go when they end: an import of an X12
 * file (its parsed interchange, the claims it names, its plan). A host that paces the engine's
 * collections (the server's heap pacer) reads `largeWorkRunning` to put off a full collection while
 * one runs: marking the job's objects then frees none of them and pauses every request for it
 * (25 to 34 ms in an 835 of 1,000 claims, bench/RESULTS.md), while one right after the job frees
 * them all. Process-wide, as the heap is.
 */
let running = 0

/** How many such jobs are running now. */
export const largeWorkRunning = (): number => running

/** Runs `effect` counted as such a job, until it ends (failed or interrupted included). */
export const asLargeWork = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      running++
    }),
    () => effect,
    () =>
      Effect.sync(() => {
        running--
      })
  )
