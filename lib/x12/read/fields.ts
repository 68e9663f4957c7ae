import { Either, Option } from "effect"
import { X12ReadError } from "../errors.js"
import { parseCents, parseDate8 } from "../values.js"
import { element, type ReadSegment } from "./tokenize.js"

/**
 * Typed element reads for the interpreters. An interpreter walks its segments and stops at the
 * first unreadable element by throwing an `X12ReadError`; `attemptPaced` (`paced.ts`) turns that
 * back into a value at the interpreter's boundary, so callers only ever see `Either`. Any other
 * exception is a defect and propagates.
 */

export const readFailure = (s: ReadSegment, reason: string) =>
  new X12ReadError({ segment_id: s.id, position: s.position, reason })

const name = (s: ReadSegment, n: number) => `${s.id}${String(n).padStart(2, "0")}`

/** A required element. */
export const required = (s: ReadSegment, n: number): string => {
  const v = element(s, n)
  if (v === "") throw readFailure(s, `${name(s, n)} is required`)
  return v
}

/** An optional element: `undefined` when empty. */
export const optional = (s: ReadSegment, n: number): string | undefined => {
  const v = element(s, n)
  return v === "" ? undefined : v
}

export const count = (s: ReadSegment, n: number): number => {
  const v = element(s, n)
  if (!/^\d{1,9}$/.test(v)) throw readFailure(s, `${name(s, n)} '${v}' is not a count`)
  return Number(v)
}

/** A required amount, as integer cents. */
export const cents = (s: ReadSegment, n: number): number =>
  Either.getOrThrowWith(parseCents(element(s, n)), (reason) => readFailure(s, `${name(s, n)} ${reason}`))

export const optionalCents = (s: ReadSegment, n: number): number | undefined =>
  element(s, n) === "" ? undefined : cents(s, n)

/** A CCYYMMDD date as `YYYY-MM-DD`. */
export const date8 = (s: ReadSegment, n: number): string =>
  Option.getOrThrowWith(parseDate8(element(s, n)), () => readFailure(s, `${name(s, n)} '${element(s, n)}' is not a CCYYMMDD date`))

export const optionalDate8 = (s: ReadSegment, n: number): string | undefined =>
  element(s, n) === "" ? undefined : date8(s, n)
