import { describe, expect, test } from "bun:test"
import { fullGC } from "bun:jsc"
import { heapUsed as heapSize, makeHeapPacer } from "../../server/heap-pacer.js"

const MiB = 1024 * 1024

/**
 * A heap whose size the test sets; a collection brings it down to `live`. The pacer's factor is 2
 * unless given ("default": the pacer's own).
 */
const fakeHeap = (start: number, factorOption: number | "default" = 2) => {
  const factor = factorOption === "default" ? undefined : factorOption
  const heap = { size: start, live: start, collections: 0, pauses: [] as number[] }
  let clock = 0
  const pacer = makeHeapPacer({
    ...(factor === undefined ? {} : { factor }),
    heapSize: () => heap.size,
    collect: () => {
      heap.collections++
      clock += 12
      heap.size = heap.live
      return heap.size
    },
    now: () => clock,
    onCollect: (s) => heap.pauses.push(s)
  })
  return { heap, pacer }
}

describe("heap pacer", () => {
  test("collects once the heap has doubled since the last full collection, not before", () => {
    const { heap, pacer } = fakeHeap(20 * MiB)
    for (const size of [22, 30, 39, 40]) {
      heap.size = size * MiB
      expect(pacer.tick()).toBe(false)
    }
    heap.size = 41 * MiB
    heap.live = 21 * MiB
    expect(pacer.tick()).toBe(true)
    expect(heap.collections).toBe(1)
    expect(heap.pauses).toEqual([0.012])
    // The base is now what the collection left: the next is due past 42 MiB.
    heap.size = 41 * MiB
    expect(pacer.tick()).toBe(false)
    heap.size = 43 * MiB
    expect(pacer.tick()).toBe(true)
    expect(heap.collections).toBe(2)
  })

  test("a full collection the engine made by itself sets the base", () => {
    const { heap, pacer } = fakeHeap(20 * MiB)
    heap.size = 38 * MiB
    expect(pacer.tick()).toBe(false)
    // The engine collected: the size dropped to 24 MiB, which becomes the base.
    heap.size = 24 * MiB
    expect(pacer.tick()).toBe(false)
    heap.size = 44 * MiB
    expect(pacer.tick()).toBe(false)
    expect(heap.collections).toBe(0)
    heap.size = 49 * MiB
    expect(pacer.tick()).toBe(true)
  })

  test("by default, due once the heap has grown by half", () => {
    const { heap, pacer } = fakeHeap(40 * MiB, "default")
    heap.size = 60 * MiB
    expect(pacer.tick()).toBe(false)
    heap.size = 61 * MiB
    expect(pacer.tick()).toBe(true)
    expect(heap.collections).toBe(1)
  })

  test("a small heap is left to the engine: growth under the minimum never collects", () => {
    const { heap, pacer } = fakeHeap(2 * MiB)
    heap.size = 9 * MiB
    expect(pacer.tick()).toBe(false)
    heap.size = 10.5 * MiB
    expect(pacer.tick()).toBe(true)
  })

  test("on the real engine, a paced collection frees what is no longer referenced", () => {
    // Twenty separate chunks, built and dropped in functions of their own: a stale pointer the
    // collector finds on the stack can keep one chunk, not the rest.
    let held: Array<Array<{ n: number; s: string }>> = []
    const fill = () => {
      held = Array.from({ length: 20 }, (_, c) => Array.from({ length: 10_000 }, (_, n) => ({ n, s: `item ${c}-${n}` })))
    }
    const drop = () => {
      held = []
    }
    fullGC()
    const before = heapSize()
    // Due on growth alone (2 MiB), whatever else the test process holds.
    const pacer = makeHeapPacer({ heapSize, collect: fullGC, factor: 1, minGrowthBytes: 2 * MiB })
    fill()
    // Survives a collection while referenced, then is dropped: only a full collection frees it.
    fullGC()
    const grown = heapSize()
    expect(grown - before).toBeGreaterThan(4 * MiB)
    drop()
    expect(pacer.tick()).toBe(true)
    expect(heapSize() - before).toBeLessThan((grown - before) / 2)
    expect(held).toHaveLength(0)
  })
})
