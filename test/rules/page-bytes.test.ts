import { describe, expect, test } from "bun:test"
import { makeItemPageAssembler, makePageAssembler, type Page } from "../../lib/domain/page.js"

const utf8 = new TextEncoder()
/** The text of a page as answered: bytes, text, or a blob of its bytes. */
const text = async (body: Uint8Array | string | Blob): Promise<string> =>
  typeof body === "string" ? body : new TextDecoder().decode(body instanceof Blob ? await body.bytes() : body)

/** Items as their kept renders: one bytes object per item, as a render cache answers them. */
const renders = (...values: ReadonlyArray<unknown>) => values.map((v) => utf8.encode(JSON.stringify(v)))
const pageOf = (items: ReadonlyArray<Uint8Array<ArrayBuffer>>, next: string | null = null, prev: string | null = null): Page<Uint8Array<ArrayBuffer>> => ({
  items,
  next_page_token: next,
  prev_page_token: prev
})
const asIs = (item: Uint8Array<ArrayBuffer>) => item

describe("a page as UTF-8 JSON", () => {
  test("a page is JSON.stringify of the page, items spliced; an empty page too", async () => {
    const items = [{ id: "a", n: 1 }, { id: "é", s: 'q"\\' }, { id: "😀" }]
    expect(await text(makePageAssembler(1)(pageOf(renders(...items), "n1", null), asIs))).toBe(
      JSON.stringify({ items, next_page_token: "n1", prev_page_token: null })
    )
    expect(await text(makePageAssembler(1)(pageOf([]), asIs))).toBe(JSON.stringify({ items: [], next_page_token: null, prev_page_token: null }))
  })

  test("the assembler makes a page as one blob and answers that blob again for the same item bytes and tokens, with the right bytes every time", async () => {
    const pages = makePageAssembler(2)
    const items = renders({ id: 1 }, { id: 2 }, { id: "é" })
    const first = pages(pageOf(items, "t"), asIs)
    expect(first).toBeInstanceOf(Blob)
    expect(await text(first)).toBe(JSON.stringify({ items: [{ id: 1 }, { id: 2 }, { id: "é" }], next_page_token: "t", prev_page_token: null }))
    // The blob holds a copy: bytes changed after the page was made do not change it.
    const scratch = renders({ id: 9 })
    const copied = pages(pageOf(scratch), asIs)
    scratch[0]![2] = "x".charCodeAt(0)
    expect(await text(copied)).toBe(JSON.stringify({ items: [{ id: 9 }], next_page_token: null, prev_page_token: null }))
    // The same renders (the same objects) and tokens: the same blob again.
    const repeat = pages(pageOf([...items], "t"), asIs)
    expect(repeat).toBe(first)
    expect(pages(pageOf([...items], "t"), asIs)).toBe(repeat)
    // Another token, or no token where there was one: another page, its own text.
    const other = pages(pageOf(items, "u"), asIs)
    expect(other).not.toBe(first)
    expect(await text(other)).toBe(JSON.stringify({ items: [{ id: 1 }, { id: 2 }, { id: "é" }], next_page_token: "u", prev_page_token: null }))
    expect(await text(pages(pageOf(items, null, "t"), asIs))).toBe(
      JSON.stringify({ items: [{ id: 1 }, { id: 2 }, { id: "é" }], next_page_token: null, prev_page_token: "t" })
    )
  })

  test("items answered as text (renders made now and not kept) are spliced in beside bytes, encoded as UTF-8", async () => {
    const pages = makePageAssembler(2)
    const values = [{ id: "é😀", s: 'q"\\' }, { id: 2 }, { id: "\u2028" }]
    const [kept] = renders(values[0])
    const items: ReadonlyArray<Uint8Array<ArrayBuffer> | string> = [kept!, JSON.stringify(values[1]), JSON.stringify(values[2])]
    const page = pages({ items, next_page_token: null, prev_page_token: "p" }, (item) => item)
    expect(page).toBeInstanceOf(Blob)
    expect(await text(page)).toBe(JSON.stringify({ items: values, next_page_token: null, prev_page_token: "p" }))
    expect(page.size).toBe(utf8.encode(JSON.stringify({ items: values, next_page_token: null, prev_page_token: "p" })).length)
  })

  test("equal bytes in another object (a new render, a new revision) are assembled again", async () => {
    const pages = makePageAssembler(4)
    const items = renders({ id: 1, rev: 1 }, { id: 2 })
    const first = pages(pageOf(items), asIs)
    const again = [utf8.encode(JSON.stringify({ id: 1, rev: 1 })), items[1]!]
    const second = pages(pageOf(again), asIs)
    expect(second).not.toBe(first)
    expect(await text(second)).toBe(await text(first))
    const changed = [utf8.encode(JSON.stringify({ id: 1, rev: 2 })), items[1]!]
    expect(await text(pages(pageOf(changed), asIs))).toBe(JSON.stringify({ items: [{ id: 1, rev: 2 }, { id: 2 }], next_page_token: null, prev_page_token: null }))
    // A page of fewer items is another page, even when they are the first ones.
    expect(await text(pages(pageOf(items.slice(0, 1)), asIs))).toBe(JSON.stringify({ items: [{ id: 1, rev: 1 }], next_page_token: null, prev_page_token: null }))
  })

  test("a page that made an item's bytes and kept them not is answered and not remembered", async () => {
    let unkept = 0
    const pages = makePageAssembler(4, () => unkept)
    const items = renders({ id: 1 }, { id: 2 })
    // The second item's bytes made now and not kept: the page is right, and not remembered.
    const made = (item: Uint8Array<ArrayBuffer>) => {
      if (item === items[1]) unkept++
      return item
    }
    const first = pages(pageOf(items), made)
    expect(await text(first)).toBe(JSON.stringify({ items: [{ id: 1 }, { id: 2 }], next_page_token: null, prev_page_token: null }))
    const again = pages(pageOf([...items]), asIs)
    expect(again).not.toBe(first)
    // Made of kept bytes alone, it is remembered: the next read is the same blob.
    expect(pages(pageOf([...items]), asIs)).toBe(again)
    expect(pages(pageOf([...items]), made)).toBe(again)
  })

  test("it remembers the last `slots` pages, the most recently answered kept longest", async () => {
    const pages = makePageAssembler(2)
    const a = renders({ a: 1 })
    const b = renders({ b: 1 })
    const c = renders({ c: 1 })
    const bytesA = pages(pageOf(a), asIs)
    const bytesB = pages(pageOf(b), asIs)
    const blobA = pages(pageOf(a), asIs) // a is now the most recent, b the oldest
    expect(blobA).toBe(bytesA)
    pages(pageOf(c), asIs) // b goes
    expect(pages(pageOf(a), asIs)).toBe(blobA)
    const bAgain = pages(pageOf(b), asIs)
    expect(bAgain).not.toBe(bytesB)
    expect(await text(bAgain)).toBe(await text(bytesB))
    expect(await text(blobA)).toBe(await text(bytesA))
  })

  test("a page of unchanging items: its text when made, one blob of it for the same item objects and tokens", async () => {
    const pages = makeItemPageAssembler(2)
    let made = 0
    const render = (page: Page<{ readonly id: number | string }>) => {
      made++
      return JSON.stringify(page)
    }
    const one = { id: 1 }
    const two = { id: "é😀" }
    const page = { items: [one, two], next_page_token: "n", prev_page_token: null }
    const first = pages(page, render)
    expect(first).toBe(JSON.stringify(page))
    // The same objects in a new page (a new array, as each read makes): a blob of its UTF-8, then that blob again; not rendered again.
    const repeat = pages({ ...page, items: [one, two] }, render)
    expect(repeat).toBeInstanceOf(Blob)
    expect(await text(repeat)).toBe(JSON.stringify(page))
    expect(pages({ ...page, items: [one, two] }, render)).toBe(repeat)
    expect(made).toBe(1)
    // Equal items in other objects (an adapter that keeps nothing), another token, another order: rendered anew.
    const copies = pages({ ...page, items: [{ id: 1 }, { id: "é😀" }] }, render)
    expect(copies).toBe(JSON.stringify(page))
    expect(await text(pages({ ...page, next_page_token: null }, render))).toBe(JSON.stringify({ ...page, next_page_token: null }))
    expect(await text(pages({ ...page, items: [two, one] }, render))).toBe(JSON.stringify({ ...page, items: [two, one] }))
    expect(made).toBe(4)
    // Two slots: the first page went when the later ones came.
    expect(pages({ ...page, items: [one, two] }, render)).not.toBe(repeat)
    expect(made).toBe(5)
  })
})
