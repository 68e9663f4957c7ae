import { describe, expect, test } from "bun:test"
import { makeItemPageAssembler, makePageAssembler, type Page } from "../../lib/domain/page.js"
import { forgetYoungMemos, registerYoungMemo } from "../../lib/young-memos.js"
import { collectYoung } from "../../server/heap-pacer.js"

const utf8 = new TextEncoder()
const pageOf = <A>(items: ReadonlyArray<A>): Page<A> => ({ items, next_page_token: null, prev_page_token: null })

describe("memos forgotten before a young collection", () => {
  test("every registered memo is told, until its registration is removed", () => {
    const told: Array<string> = []
    const removeA = registerYoungMemo(() => told.push("a"))
    const removeB = registerYoungMemo(() => told.push("b"))
    forgetYoungMemos()
    expect(told).toEqual(["a", "b"])
    removeA()
    forgetYoungMemos()
    expect(told).toEqual(["a", "b", "b"])
    removeB()
    forgetYoungMemos()
    expect(told).toEqual(["a", "b", "b"])
  })

  test("the server's paced young collection forgets them first", () => {
    let forgotten = 0
    const remove = registerYoungMemo(() => forgotten++)
    collectYoung()
    expect(forgotten).toBe(1)
    remove()
  })

  test("a remembered page of renders is answered again until forgotten, then made anew with the same bytes", async () => {
    const pages = makePageAssembler(4)
    const items = [utf8.encode('{"id":1}'), utf8.encode('{"id":"é"}')]
    const first = pages(pageOf(items), (b) => b)
    expect(pages(pageOf([...items]), (b) => b)).toBe(first)
    forgetYoungMemos()
    const after = pages(pageOf([...items]), (b) => b)
    expect(after).not.toBe(first)
    expect(await after.text()).toBe(await first.text())
    expect(await after.text()).toBe(JSON.stringify({ items: [{ id: 1 }, { id: "é" }], next_page_token: null, prev_page_token: null }))
    // Remembered again from then on.
    expect(pages(pageOf([...items]), (b) => b)).toBe(after)
  })

  test("a remembered page of unchanging items is forgotten too: rendered again", () => {
    const pages = makeItemPageAssembler(4)
    let made = 0
    const render = (page: Page<{ readonly id: number }>) => {
      made++
      return JSON.stringify(page)
    }
    const one = { id: 1 }
    expect(pages(pageOf([one]), render)).toBe(JSON.stringify(pageOf([one])))
    expect(pages(pageOf([one]), render)).toBeInstanceOf(Blob)
    expect(made).toBe(1)
    forgetYoungMemos()
    expect(pages(pageOf([one]), render)).toBe(JSON.stringify(pageOf([one])))
    expect(made).toBe(2)
  })
})
