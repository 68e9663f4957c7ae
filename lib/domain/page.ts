import { createHash } from "node:crypto"
import { Either, Schema } from "effect"
import { registerYoungMemo } from "../young-memos.js"
import { FieldIssue, InvalidQuery } from "./errors.js"

/** A page of a list: opaque cursors both ways, null at either end. */
export const Page = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({
    items: Schema.Array(item),
    next_page_token: Schema.NullOr(Schema.String),
    prev_page_token: Schema.NullOr(Schema.String)
  })
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly next_page_token: string | null
  readonly prev_page_token: string | null
}

const utf8 = new TextEncoder()
const ITEMS = utf8.encode('{"items":[')
const COMMA = utf8.encode(",")

/** What follows a page's items in its JSON: both tokens and the closing brace. */
const tail = (tokens: Omit<Page<unknown>, "items">): string =>
  `],"next_page_token":${JSON.stringify(tokens.next_page_token)},"prev_page_token":${JSON.stringify(tokens.prev_page_token)}}`

/**
 * A page as UTF-8 JSON (`JSON.stringify` of the page) with each item's JSON (its UTF-8 bytes, or its
 * text) spliced in, as a `Blob`: the bytes are copied once, from the items' own bytes (text
 * encoded) into the blob, which a response then shares. Spliced into a `Uint8Array` instead, the
 * page was copied again by the response (`new Response(bytes)` copies): two buffers of some 250 KB
 * per page made instead of one, and 20 to 60 µs more a page.
 */
const splicedBlob = (items: ReadonlyArray<Uint8Array<ArrayBuffer> | string>, tokens: Omit<Page<unknown>, "items">): Blob => {
  const parts: Array<Uint8Array<ArrayBuffer> | string> = [ITEMS]
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA)
    parts.push(item)
  })
  parts.push(tail(tokens))
  return new Blob(parts)
}

/**
 * The last `slots` pages answered, each by the objects it was made of and its tokens: the same
 * objects in the same order with the same tokens make the same bytes, so the remembered page is
 * answered again instead of a new one (`make`). A first page read over and over (a list polled,
 * the console's first view, the event feed's head) then costs no new buffer per answer, which the
 * engine frees only when it collects. A page made as text is answered again as one `Blob` of it,
 * made on its first repeat: a response made of a blob shares its bytes.
 * Objects made anew on each read never match; a miss costs a comparison of first items. What
 * `make` answers is read-only once answered. Pages are forgotten before each paced young collection
 * (`registerYoungMemo`): a page replaced under creates then dies young instead of waiting for a
 * full collection.
 */
const recentPages = <B extends Blob | string>(slots: number) => {
  interface Assembled {
    readonly items: ReadonlyArray<unknown>
    /** Both tokens, as one key. */
    readonly tokens: string
    body: B | Blob
  }
  const recent: Array<Assembled> = []
  registerYoungMemo(() => {
    recent.length = 0
  })
  const same = (a: Assembled, items: ReadonlyArray<unknown>, tokens: string): boolean =>
    a.tokens === tokens && a.items.length === items.length && a.items.every((item, i) => item === items[i])
  return (items: ReadonlyArray<unknown>, page: Omit<Page<unknown>, "items">, make: () => B, remember = true): B | Blob => {
    const tokens = JSON.stringify([page.next_page_token, page.prev_page_token])
    const found = recent.findIndex((a) => same(a, items, tokens))
    if (found >= 0) {
      const hit = recent[found]!
      if (found > 0) recent.unshift(...recent.splice(found, 1))
      if (!(hit.body instanceof Blob)) hit.body = new Blob([hit.body])
      return hit.body
    }
    const body = make()
    if (!remember) return body
    recent.unshift({ items, tokens, body })
    if (recent.length > slots) recent.pop()
    return body
  }
}

/**
 * Pages spliced from their items' bytes, each made once as a `Blob` (one copy of the bytes, which
 * the response shares), and the same blob answered again (`recentPages`) when every item's bytes
 * are the same object as in one of the last `slots` pages it assembled (renders kept per revision
 * are), and the tokens are the same. Items whose bytes are made anew each time never match.
 * `unkept` counts the items' bytes made and not kept (`RevisionRenders.unkept`): a page that made
 * one is answered and not remembered, since it can never be answered again. Remembered, such a
 * page (some 250 KB) outlived a young collection and waited for a full one: under mixed traffic,
 * where creates change a list's first page many times a second, most pages were.
 */
export const makePageAssembler = (slots: number, unkept?: () => number) => {
  const recall = recentPages<Blob>(slots)
  return <A>(page: Page<A>, itemBytes: (a: A) => Uint8Array<ArrayBuffer> | string): Blob => {
    const before = unkept?.()
    const items = page.items.map(itemBytes)
    return recall(items, page, () => splicedBlob(items, page), before === unkept?.())
  }
}

/**
 * A page of items that never change (the event feed's: an adapter that keeps the events it read
 * hands back the same objects) as JSON text, `text`'s, answered again (as a `Blob`) when the page
 * holds the same item objects as one of the last `slots` (`recentPages`). A page made now is
 * answered as its text: a response sends it as it is, without a copy encoded first.
 */
export const makeItemPageAssembler = (slots: number) => {
  const recall = recentPages<string>(slots)
  return <A extends object>(page: Page<A>, text: (page: Page<A>) => string): string | Blob => recall(page.items, page, () => text(page))
}

export const MAX_LIMIT = 100
export const DEFAULT_LIMIT = 100

/** A keyset position: the sort key of the item a page starts after, in the list's own order. */
export type Key = ReadonlyArray<string | number>
export type Direction = "next" | "prev"
export interface Position {
  readonly dir: Direction
  readonly key: Key
}

const CursorJson = Schema.parseJson(
  Schema.Struct({
    d: Schema.Literal("n", "p"),
    k: Schema.Array(Schema.Union(Schema.String, Schema.Number)).pipe(Schema.minItems(1), Schema.maxItems(4)),
    s: Schema.String
  })
)
const decodeCursor = Schema.decodeUnknownEither(CursorJson)

/**
 * The scope a token is bound to: the workspace, the list and its filters. A token used with
 * other filters (or in another workspace) is rejected instead of silently skipping items.
 */
export const tokenScope = (parts: ReadonlyArray<unknown>): string =>
  createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 16)

export const encodeToken = (p: Position, scope: string): string =>
  Buffer.from(JSON.stringify({ d: p.dir === "next" ? "n" : "p", k: p.key, s: scope })).toString("base64url")

const invalidToken = (message: string) =>
  new InvalidQuery({ errors: [new FieldIssue({ path: "page_token", message })] })

export const decodeToken = (token: string, scope: string): Either.Either<Position, InvalidQuery> => {
  if (token.length > 512 || !/^[A-Za-z0-9_-]+$/.test(token)) return Either.left(invalidToken("is not a valid page token"))
  const decoded = decodeCursor(Buffer.from(token, "base64url").toString("utf8"))
  if (Either.isLeft(decoded)) return Either.left(invalidToken("is not a valid page token"))
  if (decoded.right.s !== scope) return Either.left(invalidToken("was issued for other filters"))
  return Either.right({ dir: decoded.right.d === "n" ? "next" : "prev", key: decoded.right.k })
}

/**
 * Turns rows fetched in scan direction (at most `limit + 1`) into a page in list order.
 * A "next" scan reads forward from the position, a "prev" scan backward; the extra row tells
 * whether more lie beyond.
 */
export const toPage = <A, B>(
  rows: ReadonlyArray<A>,
  limit: number,
  position: Position | undefined,
  keyOf: (a: A) => Key,
  scope: string,
  view: (a: A) => B
): Page<B> => {
  const more = rows.length > limit
  const taken = rows.slice(0, limit)
  const backward = position?.dir === "prev"
  const ordered = backward ? taken.reverse() : taken
  const first = ordered[0]
  const last = ordered[ordered.length - 1]
  const hasNext = backward ? position !== undefined : more
  const hasPrev = backward ? more : position !== undefined
  return {
    items: ordered.map(view),
    next_page_token: hasNext && last !== undefined ? encodeToken({ dir: "next", key: keyOf(last) }, scope) : null,
    prev_page_token: hasPrev && first !== undefined ? encodeToken({ dir: "prev", key: keyOf(first) }, scope) : null
  }
}

/** `limit`: 1 to 100, default 100. */
export const checkLimit = (limit: number | undefined): Either.Either<number, InvalidQuery> => {
  if (limit === undefined) return Either.right(DEFAULT_LIMIT)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return Either.left(
      new InvalidQuery({ errors: [new FieldIssue({ path: "limit", message: `must be an integer from 1 to ${MAX_LIMIT}` })] })
    )
  }
  return Either.right(limit)
}

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/**
 * A list's inclusive time bound, normalized to the stored format (UTC, milliseconds, Z) so that
 * bounds compare exactly; the problem at `path` when it is not an ISO 8601 time.
 */
export const timeBound = (path: string, value: string | undefined): Array<FieldIssue> | string | undefined => {
  if (value === undefined) return undefined
  const ms = ISO.test(value) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(ms)) return [new FieldIssue({ path, message: "must be an ISO 8601 timestamp" })]
  return new Date(ms).toISOString()
}
