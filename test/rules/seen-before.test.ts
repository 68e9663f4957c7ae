import { describe, expect, test } from "bun:test"
import { makeSeenBefore } from "../../lib/seen-before.js"
import { makeRevisionRenders } from "../../server/rendered.js"

describe("seen before", () => {
  test("a key is seen again from its second look on", () => {
    const seen = makeSeenBefore(64)
    expect(seen.again("a")).toBe(false)
    expect(seen.again("a")).toBe(true)
    expect(seen.again("a")).toBe(true)
    expect(seen.again("b")).toBe(false)
    expect(seen.again("b")).toBe(true)
  })

  test("a key is forgotten once four later keys came to its bucket", () => {
    // One bucket of four.
    const seen = makeSeenBefore(1)
    expect(seen.again("a")).toBe(false)
    for (const k of ["b", "c", "d"]) expect(seen.again(k)).toBe(false)
    expect(seen.again("a")).toBe(true)
    // Seen again, a key keeps its place: the fifth key pushes it out.
    expect(seen.again("e")).toBe(false)
    expect(seen.again("a")).toBe(false)
    expect(seen.again("a")).toBe(true)
  })

  test("keys of one bucket read in turn are seen from their second turn on", () => {
    const seen = makeSeenBefore(1)
    const keys = ["p", "q", "r", "s"]
    expect(keys.map((k) => seen.again(k))).toEqual([false, false, false, false])
    for (let turn = 0; turn < 3; turn++) expect(keys.map((k) => seen.again(k))).toEqual([true, true, true, true])
  })

  test("the first page's hundred ids are all seen on their second read, whatever came between", () => {
    for (let trial = 0; trial < 50; trial++) {
      const seen = makeSeenBefore(4096)
      const page = Array.from({ length: 100 }, () => crypto.randomUUID())
      for (const id of page) seen.again(id)
      // A walk through the pages after it.
      for (let i = 0; i < 3900; i++) seen.again(crypto.randomUUID())
      for (const id of page) seen.again(id)
      expect(page.filter((id) => !seen.again(id))).toEqual([])
    }
  })

  test("keys that differ in one character are told apart; the last slots' worth are remembered", () => {
    const slots = 4096
    const seen = makeSeenBefore(slots)
    const ids = Array.from({ length: 1000 }, (_, i) => `0190b6c4-8f1e-7000-8000-${String(i).padStart(12, "0")}`)
    for (const id of ids) expect(seen.again(id)).toBe(false)
    // 1,000 keys in 1,024 buckets of four: a key is pushed out only by four later keys of its bucket.
    const remembered = ids.filter((id) => seen.again(id)).length
    expect(remembered).toBeGreaterThan(970)
    // Keys never looked at are not taken as seen.
    const fresh = Array.from({ length: 1000 }, (_, i) => `0190b6c4-8f1e-7000-8000-${String(i + 5000).padStart(12, "0")}`)
    expect(fresh.filter((id) => seen.again(id)).length).toBe(0)
  })
})

describe("renders kept from the second read", () => {
  test("a record read once is rendered and not kept (answered as its text); read again, it is kept at its revision (as UTF-8)", () => {
    const renders = makeRevisionRenders(8)
    let made = 0
    const text = () => {
      made++
      return `{"n":${made}}`
    }
    const first = renders.json("r1", 0, text)
    expect(first).toBe('{"n":1}')
    expect(renders.kept("r1", 0)).toBeUndefined()
    expect(renders.unkept()).toBe(1)
    const second = renders.json("r1", 0, text)
    if (typeof second === "string") throw new Error("a render kept is its UTF-8 bytes")
    expect(new TextDecoder().decode(second)).toBe('{"n":2}')
    expect(made).toBe(2)
    expect(renders.unkept()).toBe(1)
    expect(renders.kept("r1", 0)).toBe(second)
    expect(renders.json("r1", 0, text)).toBe(second)
    expect(made).toBe(2)
  })

  test("a record kept is kept again at its next revision on its first read there", () => {
    const renders = makeRevisionRenders(8)
    renders.json("r1", 0, () => "a")
    renders.json("r1", 0, () => "a")
    const next = renders.json("r1", 1, () => "b")
    if (typeof next === "string") throw new Error("a render kept at its new revision is its UTF-8 bytes")
    expect(renders.kept("r1", 1)).toBe(next)
    expect(renders.kept("r1", 0)).toBeUndefined()
  })

  test("a first page's held renders start on its second read", () => {
    const renders = makeRevisionRenders(8)
    const held = renders.held(undefined)
    if (held === undefined) throw new Error("a first page holds renders")
    for (const id of ["a", "b"]) renders.json(id, 3, () => id)
    expect([held("a", 3), held("b", 3)]).toEqual([undefined, undefined])
    for (const id of ["a", "b"]) renders.json(id, 3, () => id)
    expect(held("a", 3)).toBeDefined()
    expect(held("b", 3)).toBeDefined()
    expect(renders.held("token")).toBeUndefined()
  })
})
