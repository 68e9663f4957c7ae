import { Either } from "effect"
import { X12ReadError } from "../errors.js"
import type { Delimiters } from "../segment.js"
import { PACE, type Paced, runPaced } from "./paced.js"

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
/**
 * The longest element read, with its components. The longest elements of the 999, 277CA and 835
 * are 264 characters (STC12, MSG01); what a file says is kept on claims and remittances and read
 * back with them, so a longer one is refused rather than stored.
 */
export const MAX_ELEMENT_LENGTH = 1000

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

const isLineBreak = (code: number) => code === 10 || code === 13
/** White space or Ctrl-Z (SUB, the DOS end of file): what may trail an interchange. */
const isTrailing = (code: number) => code === 26 || code === 32 || (code >= 9 && code <= 13)

/**
 * Splits an interchange into segments, with the delimiters its ISA announces. Line breaks around
 * segment terminators are ignored; anything else malformed is an error naming the segment.
 * One pass over the text: each segment is found with `indexOf` and its line breaks skipped by
 * hand (a `/[\r\n]+$/` would try every run of line breaks inside a segment, quadratic in them).
 */
export function* tokenizePaced(input: string): Paced<Either.Either<Tokens, X12ReadError>> {
  const whole = input.replace(/^\uFEFF/, "").trimStart()
  if (!whole.startsWith("ISA")) return fail(found(whole), 1, "missing ISA")
  if (whole.length < ISA_LENGTH) return fail("ISA", 1, `ISA is ${whole.length} characters, shorter than its fixed ${ISA_LENGTH}`)
  const read = readDelimiters(whole)
  if (Either.isLeft(read)) return Either.left(read.left)
  const first = read.right
  let delimiters = first
  // What some systems leave after the last segment: an end-of-file Ctrl-Z (DOS), white space.
  let length = whole.length
  while (length > 0 && isTrailing(whole.charCodeAt(length - 1)) && whole.charAt(length - 1) !== first.segment) length--
  const text = length === whole.length ? whole : whole.slice(0, length)
  const segments: Array<ReadSegment> = []
  let from = 0
  for (;;) {
    if (segments.length > 0 && segments[segments.length - 1]!.id === "IEA") {
      // Another interchange may follow (several envelopes in one file), after white space or a
      // Ctrl-Z; it announces its own delimiters.
      while (from < text.length && isTrailing(text.charCodeAt(from))) from++
      if (from === text.length) break
      if (text.startsWith("ISA", from)) {
        const next = readDelimiters(text.slice(from, from + ISA_LENGTH))
        if (Either.isLeft(next)) return fail("ISA", segments.length + 1, next.left.reason)
        delimiters = next.right
      }
    }
    const terminator = text.indexOf(delimiters.segment, from)
    const last = terminator === -1
    let start = from
    let end = last ? text.length : terminator
    while (start < end && isLineBreak(text.charCodeAt(start))) start++
    while (end > start && isLineBreak(text.charCodeAt(end - 1))) end--
    const position = segments.length + 1
    const first = text.charCodeAt(start)
    // Only a piece that starts with white space can be blank (`trim` knows every kind of it).
    if (start === end || ((first <= 32 || first > 126) && text.slice(start, end).trim() === "")) {
      if (last) break
      return fail("(empty)", position, "empty segment")
    }
    // The id, then the elements cut from the text itself (no copy of the whole segment first).
    const cut = text.indexOf(delimiters.element, start)
    const idEnd = cut === -1 || cut > end ? end : cut
    const id = text.slice(start, idEnd)
    if (!SEGMENT_ID.test(id)) return fail(id.slice(0, 12), position, "not a segment id: wrong delimiters or a broken segment")
    if (last) return fail(id, position, "segment without terminator: the file is truncated")
    const elements = idEnd === end ? [] : text.slice(idEnd + 1, end).split(delimiters.element)
    // No element is longer than its segment: the check is needed only for long segments.
    if (end - start > MAX_ELEMENT_LENGTH) {
      for (let n = 0; n < elements.length; n++) {
        const length = elements[n]!.length
        if (length > MAX_ELEMENT_LENGTH) {
          return fail(id, position, `${id}${String(n + 1).padStart(2, "0")} is ${length} characters, longer than any X12 element (at most ${MAX_ELEMENT_LENGTH} are read)`)
        }
      }
    }
    segments.push({ id, position, elements, componentSeparator: delimiters.component })
    from = terminator + 1
    if (segments.length % PACE === 0) yield
  }
  return Either.right({ delimiters: first, segments })
}

/** `tokenizePaced` run through at once. */
export const tokenize = (input: string): Either.Either<Tokens, X12ReadError> => runPaced(tokenizePaced(input))
