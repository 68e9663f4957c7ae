import { makeBoundedMap } from "../lib/bounded-map.js"
import { makeSeenBefore } from "../lib/seen-before.js"
import type { HeldRecords } from "../lib/ports/storage.js"
import { type EncounterWithClaim, type HeldEncounters, isKnownEncounter, type ListedEncounter } from "../lib/domain/encounter.js"

/**
 * Renders kept per shape: the most recently read encounters (a page of 100 is 100 of them; each
 * render is 2 to 3 KB of text, so some 3 MB when full), each from its second read. What recurs is
 * a list's first pages, of each workspace, and an encounter being worked; a random read misses,
 * and a miss costs one map lookup and a fingerprint. At 256, the first pages of three workspaces
 * (300 renders) pushed one another out between two reads of each: the 3-workspace mixed soak ran
 * at 2,000 requests a second peaking at 168 to 172 MiB, against 2,436 to 2,506 and 145 to 152 at
 * 1,024 (bench/RESULTS.md, "Renders kept for several workspaces' first pages").
 */
export const RENDERS_KEPT = 1024

/** Pages assembled from kept renders, remembered per shape (`makePageAssembler`): a few first pages (of a few workspaces, or filters) at some 250 KB each. */
export const PAGES_KEPT = 8

interface Rendered {
  readonly revision: number
  readonly salt: string
  readonly json: Uint8Array<ArrayBuffer>
}

const utf8 = new TextEncoder()

/**
 * A render as answered: the kept one's UTF-8 bytes, or the text of one made now and not kept. A
 * response sends text as it is, encoding it once as it writes; bytes encoded first would be
 * copied again by the response (`new Response(bytes)` copies, so the bytes must not change after).
 */
export type Render = Uint8Array<ArrayBuffer> | string

/** The renders of one shape of encounters, kept per revision (`makeRenderCache`). */
export interface RenderCache {
  /** The render of `row`: the one kept for its id at its revision and `salt`, else made now and kept. */
  readonly json: (row: EncounterWithClaim, salt?: string) => Render
  /**
   * The renders kept with `salt`, as what a read of a list's first page holds (`HeldEncounters`):
   * the page then reads only the rows of the encounters whose render is not kept at their
   * revision. A render taken so is kept as most recently read. A page further in (`pageToken`
   * given) holds nothing: a first page is what is read again and again (a list polled, the
   * console's first view), a page further in mostly once, in a walk through the list, where its
   * keys read first cost more than they save (bench/RESULTS.md, "A page of renders held").
   */
  readonly held: (pageToken: string | undefined, salt?: string) => HeldEncounters<Uint8Array<ArrayBuffer>> | undefined
  /** The render of an item of a page read with `held`: the render it carries, else its row's (`json`). */
  readonly item: (item: ListedEncounter<Uint8Array<ArrayBuffer>>, salt?: string) => Render
  /** How many renders were answered and not kept so far (`RevisionRenders.unkept`). */
  readonly unkept: () => number
}

/**
 * The JSON of encounters, rendered once per revision of each encounter's row rather than on every
 * read. Not a response cache: every read still reads the row (a page, at least its keys: id and
 * revision), and a render is reused only for the same id at the same revision
 * (`EncounterWithClaim.revision`), which always reads the same. `salt` is whatever else the text
 * depends on (the compat shape's base URL). A read without a revision (built by an embedder) is
 * rendered each time.
 *
 * Renders are kept as UTF-8, as they are sent: an answer made of them (a page is a hundred) is
 * one copy of their bytes into a blob the response shares (`makePageAssembler`), not a joined
 * string that is copied again and transcoded when the response is written.
 */
export const makeRenderCache = (capacity: number, render: (row: EncounterWithClaim, salt: string) => string): RenderCache => {
  const renders = makeRevisionRenders(capacity)
  const json = (row: EncounterWithClaim, salt = ""): Render => {
    const revision = row.revision
    if (revision === undefined) return renders.unkeptText(render(row, salt))
    return renders.kept(row.encounter.id, revision, salt) ?? renders.keep(row.encounter.id, revision, render(row, salt), salt)
  }
  return {
    json,
    held: renders.held,
    item: (item, salt) => (isKnownEncounter(item) ? item.value : json(item, salt)),
    unkept: renders.unkept
  }
}

/** Renders of a table's records kept per revision (`makeRevisionRenders`). */
export interface RevisionRenders {
  /** The render kept for record `id` at `revision` and `salt`, marked as most recently read. */
  readonly kept: (id: string, revision: number, salt?: string) => Uint8Array<ArrayBuffer> | undefined
  /**
   * Keeps `text` as the render of record `id` at `revision` and `salt`, if `id` was read lately
   * (one of about `4 × capacity` ids) or a render of it is kept; answers its bytes. A render
   * kept on a record's first read outlived the engine's young collections and was freed only by
   * a full one: under random reads of 100,000 encounters, 36 to 41 full collections in 10 s
   * against 16, and a peak 12 MiB higher (bench/RESULTS.md, "Renders kept from the second read").
   * A render not kept is answered as `text` itself.
   */
  readonly keep: (id: string, revision: number, text: string, salt?: string) => Render
  /** The render of record `id` at `revision` and `salt`: the one kept, else `text()` made now (and kept as `keep` says). */
  readonly json: (id: string, revision: number, text: () => string, salt?: string) => Render
  /**
   * The renders kept with `salt`, as what a read of a list's first page holds (`HeldRecords`): the
   * page then reads the rows of only the records whose render is not kept at their revision. A page
   * further in holds nothing (see `RenderCache.held`).
   */
  readonly held: (pageToken: string | undefined, salt?: string) => HeldRecords<Uint8Array<ArrayBuffer>> | undefined
  /**
   * How many renders were answered and not kept so far (`keep` not admitting them, `unkeptText`):
   * a page assembler given it remembers no page made of one (`makePageAssembler`).
   */
  readonly unkept: () => number
  /** `text`, counted as a render answered and not kept. */
  readonly unkeptText: (text: string) => string
}

/**
 * The JSON of a table's records (an encounter's, a task's), rendered once per revision of each
 * record rather than on every read, kept as UTF-8 (every update of a record with a revision
 * column adds one to it, so the same id at the same revision always reads the same). `salt` is
 * whatever else the text depends on. `makeRenderCache` is this for encounters.
 */
export const makeRevisionRenders = (capacity: number): RevisionRenders => {
  // Set again on every read, so the least recently read go first.
  const renders = makeBoundedMap<string, Rendered>(capacity)
  // A record is kept from its second read on (or, kept before, at its new revision): see `RevisionRenders.keep`.
  const seen = makeSeenBefore(capacity * 4)
  let unkept = 0
  const kept = (id: string, revision: number, salt = ""): Uint8Array<ArrayBuffer> | undefined => {
    const known = renders.get(id)
    if (known === undefined || known.revision !== revision || known.salt !== salt) return undefined
    renders.set(id, known)
    return known.json
  }
  const keep = (id: string, revision: number, text: string, salt = ""): Render => {
    if (renders.get(id) === undefined && !seen.again(id)) {
      unkept++
      return text
    }
    const json = utf8.encode(text)
    renders.set(id, { revision, salt, json })
    return json
  }
  return {
    kept,
    keep,
    json: (id, revision, text, salt = "") => kept(id, revision, salt) ?? keep(id, revision, text(), salt),
    held: (pageToken, salt = "") => (pageToken !== undefined ? undefined : (id, revision) => kept(id, revision, salt)),
    unkept: () => unkept,
    unkeptText: (text) => {
      unkept++
      return text
    }
  }
}
