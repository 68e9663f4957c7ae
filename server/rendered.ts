import { makeBoundedMap } from "../lib/bounded-map.js"
import type { EncounterWithClaim } from "../lib/domain/encounter.js"

/**
 * Renders kept per shape: the most recently read encounters (a page of 100 is 100 of them; each
 * render is 2 to 3 KB of text). What recurs is a list's first pages and an encounter being worked;
 * a random read misses, and a miss costs one map lookup.
 */
export const RENDERS_KEPT = 256

interface Rendered {
  readonly revision: number
  readonly salt: string
  readonly json: Uint8Array<ArrayBuffer>
}

const utf8 = new TextEncoder()

/**
 * The JSON of encounters, rendered once per revision of each encounter's row rather than on every
 * read. Not a response cache: every read still reads the row, and a render is reused only for the
 * same id at the same revision (`EncounterWithClaim.revision`), which always reads the same. `salt`
 * is whatever else the text depends on (the compat shape's base URL). A read without a revision
 * (built by an embedder) is rendered each time.
 *
 * Renders are kept as UTF-8, as they are sent: an answer made of them (a page is a hundred) is
 * one copy of their bytes (`pageBytes`), not a joined string that is copied again and transcoded
 * when the response is written.
 */
export const makeRenderCache = (capacity: number, render: (row: EncounterWithClaim, salt: string) => string) => {
  // Set again on every read, so the least recently read go first.
  const renders = makeBoundedMap<string, Rendered>(capacity)
  return (row: EncounterWithClaim, salt = ""): Uint8Array<ArrayBuffer> => {
    const revision = row.revision
    if (revision === undefined) return utf8.encode(render(row, salt))
    const id = row.encounter.id
    const known = renders.get(id)
    const rendered = known !== undefined && known.revision === revision && known.salt === salt ? known : { revision, salt, json: utf8.encode(render(row, salt)) }
    renders.set(id, rendered)
    return rendered.json
  }
}
