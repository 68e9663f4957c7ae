import { Either } from "effect"
import { X12WriteError } from "./errors.js"

/** The four delimiters of an interchange, as announced by its ISA. */
export interface Delimiters {
  readonly element: string
  readonly component: string
  readonly repetition: string
  readonly segment: string
}

/** What this service writes: `*` elements, `:` components, `^` repetitions, `~` segments. */
export const WRITE_DELIMITERS: Delimiters = { element: "*", component: ":", repetition: "^", segment: "~" }

/** A simple element is a string; a composite is its list of components. */
export type Element = string | ReadonlyArray<string>

export interface Segment {
  readonly id: string
  readonly elements: ReadonlyArray<Element>
}

/** A segment; `undefined` elements are written empty (trailing empty ones are dropped). */
export const segment = (id: string, ...elements: ReadonlyArray<Element | undefined>): Segment => ({
  id,
  elements: elements.map((e) => e ?? "")
})

const SEGMENT_ID = /^[A-Z][A-Z0-9]{1,2}$/
const PRINTABLE = /^[\x20-\x7E]*$/

const dropTrailingEmpty = <A>(items: ReadonlyArray<A>, isEmpty: (a: A) => boolean): ReadonlyArray<A> => {
  let end = items.length
  while (end > 0 && isEmpty(items[end - 1]!)) end--
  return items.slice(0, end)
}

/**
 * Why `value` cannot be written, if it cannot. X12 005010 has no release (escape) character, so
 * a delimiter inside a value would silently split it: such values are refused, never mangled.
 */
const unsafe = (value: string, d: Delimiters): string | undefined => {
  if (!PRINTABLE.test(value)) return "holds a character outside printable ASCII"
  for (const c of [d.element, d.component, d.repetition, d.segment]) {
    if (value.includes(c)) return `holds the delimiter ${c}`
  }
  return undefined
}

export interface SerializeOptions {
  readonly delimiters?: Delimiters
  /**
   * A line break after each segment terminator (the default): one segment per line, which every
   * clearinghouse we know of accepts and people can read. `false` writes one long line.
   */
  readonly lineBreaks?: boolean
}

/** Writes segments as X12 text, refusing any value that holds a delimiter or control character. */
export const serialize = (
  segments: ReadonlyArray<Segment>,
  options: SerializeOptions = {}
): Either.Either<string, X12WriteError> => {
  const d = options.delimiters ?? WRITE_DELIMITERS
  const terminator = d.segment + (options.lineBreaks === false ? "" : "\n")
  const out: Array<string> = []
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!
    const fail = (element: number, reason: string) =>
      Either.left(new X12WriteError({ segment_id: s.id, position: i + 1, element, reason }))
    if (!SEGMENT_ID.test(s.id)) return fail(0, "is not a segment id")
    const texts: Array<string> = []
    for (let e = 0; e < s.elements.length; e++) {
      const element = s.elements[e]!
      // ISA11 and ISA16 carry the repetition and component delimiters themselves.
      const isDelimiterSlot =
        s.id === "ISA" && ((e === 10 && element === d.repetition) || (e === 15 && element === d.component))
      const components = typeof element === "string" ? [element] : dropTrailingEmpty(element, (c) => c === "")
      for (const c of components) {
        const reason = isDelimiterSlot ? undefined : unsafe(c, d)
        if (reason !== undefined) return fail(e + 1, reason)
      }
      texts.push(components.join(d.component))
    }
    const kept = s.id === "ISA" ? texts : dropTrailingEmpty(texts, (t) => t === "")
    out.push([s.id, ...kept].join(d.element) + terminator)
  }
  return Either.right(out.join(""))
}
