import { Either } from "effect"
import { X12ReadError } from "../errors.js"

/**
 * A read that pauses: a generator that yields nothing every `PACE` segments. Reading a 10 MiB
 * interchange takes some hundreds of milliseconds; a server reads it chunk by chunk, letting
 * other requests run between chunks, where a library caller runs it through at once
 * (`runPaced`). Every step is linear in the segments it walks, so the pauses only split the work.
 */
export type Paced<A> = Generator<void, A, void>

/** Segments walked between pauses (about 5 ms of reading). */
export const PACE = 4096

/** Runs a paced read to its end, without pausing. */
export const runPaced = <A>(paced: Paced<A>): A => {
  for (;;) {
    const step = paced.next()
    if (step.done === true) return step.value
  }
}

/**
 * A paced read whose steps throw `X12ReadError` at the first unreadable element (see
 * `fields.ts`), as an `Either`. Any other exception is a defect and propagates.
 */
export function* attemptPaced<A>(paced: Paced<A>): Paced<Either.Either<A, X12ReadError>> {
  try {
    return Either.right(yield* paced)
  } catch (e) {
    if (e instanceof X12ReadError) return Either.left(e)
    throw e
  }
}
