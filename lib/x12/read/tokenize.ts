import { Either } from "effect"
import { X12ReadError } from "../errors.js"
import type { Delimiters } from "../segment.js"

/** A segment as read: its id, its elements as text (element 1 first), and its 1-based position. */
export interface ReadSegment {
  readonly id: string
  readonly position: number
  readonly elements: ReadonlyArray<string>
  /** The interchange's component separator, so a segment can split its own composites. */
  readonly componentSeparator: string
}

/** Element `n` (1-based, as in `CLP04`), or "" when absent. */
export const element = (s: ReadSegment, n: number): string => s.elements[n - 1] ?? ""

/** The components of element `n` (`SVC01` `HC:99213:25` → `["HC", "99213", "25"]`). */
export const components = (s: ReadSegment, n: number): ReadonlyArray<string> => element(s, n).split(s.componentSeparator)

export interface Tokens {
  readonly delimiters: Delimiters
  readonly segments: ReadonlyArray<ReadSegment>
}

/** ISA is fixed width: 16 elements of these lengths, 106 characters with its terminator. */
const ISA_WIDTHS = [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1]
export const ISA_LENGTH = 106
const SEGMENT_ID = /^[A-Z][A-Z0-9]{1,2}$/

const fail = (segment_id: string, position: number, reason: string) =>
  Either.left(new X12ReadError({ segment_id, position, reason }))

/** What is at the start of `text`, for an error that names what it found instead of ISA. */
const found = (text: string) => /^[A-Za-z0-9]{0,3}/.exec(text)?.[0] || "(empty)"

/** The delimiters, read from where the fixed-width ISA puts them. */
const readDelimiters = (text: string): Either.Either<Delimiters, X12ReadError> => {
  const element = text.charAt(3)
  let at = 3
  for (let i = 0; i < ISA_WIDTHS.length; i++) {
    if (text.charAt(at) !== element) {
      return fail("ISA", 1, `ISA is not fixed width: element separator '${element}' expected at character ${at + 1}`)
    }
    at += 1 + ISA_WIDTHS[i]!
  }
  const repetitionField = text.charAt(82)
  const delimiters: Delimiters = {
    element,
    component: text.charAt(104),
    // Before version 00402 ISA11 was a standards identifier (a letter), not a separator.
    repetition: /[A-Za-z0-9]/.test(repetitionField) ? "" : repetitionField,
    segment: text.charAt(105)
  }
  const all = [delimiters.element, delimiters.component, delimiters.segment, delimiters.repetition].filter((d) => d !== "")
  if (all.some((d) => /[A-Za-z0-9 ]/.test(d))) return fail("ISA", 1, "ISA names a letter, digit or space as a delimiter")
  if (new Set(all).size !== all.length) return fail("ISA", 1, "ISA names the same character for two delimiters")
  return Either.right(delimiters)
}

/**
 * Splits an interchange into segments, with the delimiters its ISA announces. Line breaks around
 * segment terminators are ignored; anything else malformed is an error naming the segment.
 */
export const tokenize = (input: string): Either.Either<Tokens, X12ReadError> => {
  const text = input.replace(/^\uFEFF/, "").trimStart()
  if (!text.startsWith("ISA")) return fail(found(text), 1, "missing ISA")
  if (text.length < ISA_LENGTH) return fail("ISA", 1, `ISA is ${text.length} characters, shorter than its fixed ${ISA_LENGTH}`)
  return Either.flatMap(readDelimiters(text), (delimiters) => {
    const pieces = text.split(delimiters.segment)
    const segments: Array<ReadSegment> = []
    for (let i = 0; i < pieces.length; i++) {
      const raw = pieces[i]!.replace(/^[\r\n]+/, "").replace(/[\r\n]+$/, "")
      const position = segments.length + 1
      if (raw.trim() === "") {
        if (i === pieces.length - 1) break
        return fail("(empty)", position, "empty segment")
      }
      const [id = "", ...elements] = raw.split(delimiters.element)
      if (!SEGMENT_ID.test(id)) return fail(id.slice(0, 12), position, "not a segment id: wrong delimiters or a broken segment")
      if (i === pieces.length - 1) return fail(id, position, "segment without terminator: the file is truncated")
      segments.push({ id, position, elements, componentSeparator: delimiters.component })
    }
    return Either.right({ delimiters, segments })
  })
}
