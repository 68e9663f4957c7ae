import { describe, expect, test } from "bun:test"
import { makeBoundedMap } from "../../lib/bounded-map.js"

describe("bounded map", () => {
  test("past its capacity the least recently set keys go first; setting a key again makes it the newest", () => {
    const m = makeBoundedMap<string, number>(3)
    m.set("a", 1)
    m.set("b", 2)
    m.set("c", 3)
    m.set("a", 10)
    m.set("d", 4)
    expect([m.get("a"), m.get("b"), m.get("c"), m.get("d")]).toEqual([10, undefined, 3, 4])
    expect(m.size()).toBe(3)
  })

  test("never holds more than its capacity; trims an eighth at a time, oldest first", () => {
    const m = makeBoundedMap<number, number>(64)
    for (let i = 0; i < 64; i++) m.set(i, i)
    expect(m.size()).toBe(64)
    m.set(64, 64)
    // 65 > 64: trimmed to 64 - 64/8 = 56, the nine oldest gone.
    expect(m.size()).toBe(56)
    expect(m.get(8)).toBeUndefined()
    expect(m.get(9)).toBe(9)
    expect(m.get(64)).toBe(64)
    for (let i = 0; i < 10_000; i++) {
      m.set(1000 + i, i)
      expect(m.size()).toBeLessThanOrEqual(64)
    }
    // The newest 56 or more are there, in full.
    for (let i = 10_000 - 56; i < 10_000; i++) expect(m.get(1000 + i)).toBe(i)
  })

  test("a capacity under one keeps nothing", () => {
    const m = makeBoundedMap<string, number>(0)
    m.set("a", 1)
    expect([m.get("a"), m.size()]).toEqual([undefined, 0])
  })
})
