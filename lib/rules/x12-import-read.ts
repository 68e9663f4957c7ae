import { Effect, Either } from "effect"
import type { InboundKind } from "../domain/x12-exchange.js"
import { X12ReadError } from "../x12/errors.js"
import { type Ack277CA, read277CAPaced } from "../x12/read/ack-277ca.js"
import { type Ack999, read999Paced } from "../x12/read/ack-999.js"
import { detectKind, type Interchange, readInterchangePaced } from "../x12/read/interchange.js"
import type { Paced } from "../x12/read/paced.js"
import { read835Paced, type Remittance835 } from "../x12/read/remit-835.js"
import { readStatus277Paced, type Status277Response } from "../x12/read/status-277.js"
import { beyondBounds } from "./x12-import-bounds.js"

/**
 * Reading an uploaded file for the import: the interchange and its 999, 277CA or 835, read in
 * chunks that let other requests run, then checked against what one file may do
 * (`x12-import-bounds.ts`).
 */

export type Parsed = Ack999 | Ack277CA | Remittance835 | Status277Response

/** Reads the bytes as one 999, 277CA or 835 interchange; anything else is an `X12ReadError`. */
export interface ParsedFile {
  readonly interchange: Interchange
  readonly parsed: Parsed
  readonly kind: InboundKind
}

export function* parsePaced(text: string): Paced<Either.Either<ParsedFile, X12ReadError>> {
  const read = yield* readInterchangePaced(text)
  if (Either.isLeft(read)) return Either.left(read.left)
  const interchange = read.right
  const kind = detectKind(interchange)
  const st = interchange.groups[0]?.transaction_sets[0]
  const at = { segment_id: "ST", position: st?.position ?? 1 }
  let parsed: Either.Either<Parsed, X12ReadError>
  switch (kind) {
    case "999":
      parsed = yield* read999Paced(interchange)
      break
    case "277CA":
      parsed = yield* read277CAPaced(interchange)
      break
    case "835":
      parsed = yield* read835Paced(interchange)
      break
    case "277":
      parsed = yield* readStatus277Paced(interchange)
      break
    case "837P":
      return Either.left(new X12ReadError({ ...at, reason: "an 837P is what this service sends; import takes a 999, 277CA, 277 or 835" }))
    case "unknown":
      return Either.left(new X12ReadError({ ...at, reason: "expected a 999, 277CA (005010X214), 277 (005010X212) or 835 transaction set" }))
  }
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const beyond = beyondBounds(interchange, parsed.right)
  return beyond === undefined ? Either.right({ interchange, parsed: parsed.right, kind }) : Either.left(beyond)
}

/**
 * Claims (or statuses, or remittances) decided between pauses while a file's import is planned.
 * A decision takes some tens of microseconds (reads of the claim and its encounter): 128 of them
 * hold the event loop a few milliseconds, so other requests are answered during a big file's
 * import rather than after it.
 */
export const DECIDE_PACE = 128

/**
 * Lets the event loop run (timers, sockets, other requests) before going on. `Effect.yieldNow`
 * would not: Effect resumes a yielding fiber on the microtask queue, ahead of any I/O.
 */
export const pause: Effect.Effect<void> = Effect.async<void>((resume) => {
  const timer = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(timer))
})

/** How long work between two `paceBy` pauses may hold the event loop. */
export const PACE_MS = 8

/**
 * Pauses by the time worked rather than by a count: `yield* pace` pauses once `ms` have passed
 * since its last pause, else goes on at once. Reads of claims that exist take milliseconds per
 * hundred; of claims no one has (a file from another workspace), next to nothing: a pause after
 * every hundred of those made an 835 of 130,000 unknown claims wait for 1,300 turns of a busy loop.
 */
export const paceBy = (ms = PACE_MS): Effect.Effect<void> => {
  let last = performance.now()
  return Effect.suspend(() => {
    if (performance.now() - last < ms) return Effect.void
    return Effect.map(pause, () => {
      last = performance.now()
    })
  })
}

/** Runs a paced read, pausing between its chunks: a 10 MiB file takes some hundreds of milliseconds. */
export const runWithPauses = <A>(paced: Paced<A>): Effect.Effect<A> =>
  Effect.gen(function* () {
    for (;;) {
      const step = paced.next()
      if (step.done === true) return step.value
      yield* pause
    }
  })
