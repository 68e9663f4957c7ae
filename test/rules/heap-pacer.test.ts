import { describe, expect, test } from "bun:test"
import { fullGC } from "bun:jsc"
import { type HeapPacerOptions, heapUsed as heapSize, makeHeapPacer } from "../../server/heap-pacer.js"

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

/** A heap as above whose process has used `cpu.ms` of CPU time; young collections are counted. */
const busyHeap = (start: number, more: Partial<HeapPacerOptions> = {}) => {
  const heap = { size: start, live: start, full: 0, young: 0, youngPauses: [] as number[] }
  const cpu = { ms: 1_000 }
  let clock = 0
  const pacer = makeHeapPacer({
    factor: 2,
    heapSize: () => heap.size,
    collect: () => {
      heap.full++
      heap.size = heap.live
      return heap.size
    },
    cpuTimeMs: () => cpu.ms,
    collectYoung: () => {
      heap.young++
      clock += 2
    },
    now: () => clock,
    onCollectYoung: (s) => heap.youngPauses.push(s),
    ...more
  })
  return { heap, cpu, pacer }
}

describe("heap pacer", () => {
  test("collects once the heap has doubled since the last full collection, not before", () => {
    const { heap, pacer } = fakeHeap(20 * MiB)
    for (const size of [22, 30, 39, 40]) {
      heap.size = size * MiB
      expect(pacer.tick()).toBeUndefined()
    }
    heap.size = 41 * MiB
    heap.live = 21 * MiB
    expect(pacer.tick()).toBe("full")
    expect(heap.collections).toBe(1)
    expect(heap.pauses).toEqual([0.012])
    // The base is now what the collection left: the next is due past 42 MiB.
    heap.size = 41 * MiB
    expect(pacer.tick()).toBeUndefined()
    heap.size = 43 * MiB
    expect(pacer.tick()).toBe("full")
    expect(heap.collections).toBe(2)
  })

  test("a full collection the engine made by itself sets the base", () => {
    const { heap, pacer } = fakeHeap(20 * MiB)
    heap.size = 38 * MiB
    expect(pacer.tick()).toBeUndefined()
    // The engine collected: the size dropped to 24 MiB, which becomes the base.
    heap.size = 24 * MiB
    expect(pacer.tick()).toBeUndefined()
    heap.size = 44 * MiB
    expect(pacer.tick()).toBeUndefined()
    expect(heap.collections).toBe(0)
    heap.size = 49 * MiB
    expect(pacer.tick()).toBe("full")
  })

  test("by default, due once the heap has grown by half", () => {
    const { heap, pacer } = fakeHeap(40 * MiB, "default")
    heap.size = 60 * MiB
    expect(pacer.tick()).toBeUndefined()
    heap.size = 61 * MiB
    expect(pacer.tick()).toBe("full")
    expect(heap.collections).toBe(1)
  })

  test("a small heap is left to the engine: growth under the minimum never collects", () => {
    const { heap, pacer } = fakeHeap(2 * MiB)
    heap.size = 9 * MiB
    expect(pacer.tick()).toBeUndefined()
    heap.size = 10.5 * MiB
    expect(pacer.tick()).toBe("full")
  })

  test("collects the young generation after each 8 ms of CPU time the process used, and never while it is idle", () => {
    const { heap, cpu, pacer } = busyHeap(20 * MiB)
    // Idle: the CPU time does not move, however often the pacer looks.
    for (let i = 0; i < 100; i++) expect(pacer.tick()).toBeUndefined()
    cpu.ms += 7
    expect(pacer.tick()).toBeUndefined()
    cpu.ms += 1
    expect(pacer.tick()).toBe("young")
    expect([heap.young, heap.youngPauses]).toEqual([1, [0.002]])
    // Counted again from that collection.
    cpu.ms += 5
    expect(pacer.tick()).toBeUndefined()
    cpu.ms += 5
    expect(pacer.tick()).toBe("young")
    expect([heap.young, heap.full]).toEqual([2, 0])
    // A busy process (25 ms of CPU time between ticks): every tick.
    for (let i = 0; i < 10; i++) {
      cpu.ms += 25
      expect(pacer.tick()).toBe("young")
    }
  })

  test("a full collection, when due, comes first and counts as the young one", () => {
    const { heap, cpu, pacer } = busyHeap(20 * MiB)
    cpu.ms += 30
    heap.size = 41 * MiB
    expect(pacer.tick()).toBe("full")
    expect([heap.full, heap.young]).toEqual([1, 0])
    cpu.ms += 7
    expect(pacer.tick()).toBeUndefined()
    cpu.ms += 1
    expect(pacer.tick()).toBe("young")
  })

  test("without the CPU time, it collects only in full", () => {
    const { heap, pacer } = fakeHeap(20 * MiB)
    for (let i = 0; i < 10; i++) expect(pacer.tick()).toBeUndefined()
    expect(heap.collections).toBe(0)
  })

  test("after a full collection, gives back once, on the first tick 100 ms later, and never without one", () => {
    const heap = { size: 20 * MiB, givenBack: 0 }
    let clock = 0
    const pacer = makeHeapPacer({
      factor: 2,
      heapSize: () => heap.size,
      collect: () => {
        clock += 30
        heap.size = 21 * MiB
        return heap.size
      },
      giveBack: () => heap.givenBack++,
      now: () => clock
    })
    for (let i = 0; i < 10; i++) {
      clock += 25
      expect(pacer.tick()).toBeUndefined()
    }
    heap.size = 41 * MiB
    expect(pacer.tick()).toBe("full")
    // Counted from the collection's end: the engine sweeps after it.
    clock += 99
    expect(pacer.tick()).toBeUndefined()
    clock += 1
    expect(pacer.tick()).toBe("give back")
    for (let i = 0; i < 10; i++) {
      clock += 25
      expect(pacer.tick()).toBeUndefined()
    }
    expect(heap.givenBack).toBe(1)
  })

  test("collects once when the process goes quiet after a second of work, not during work and not again until more", () => {
    const heap = { size: 20 * MiB, idle: 0, young: 0 }
    const cpu = { ms: 5_000 }
    const pacer = makeHeapPacer({
      factor: 2,
      heapSize: () => heap.size,
      collect: () => heap.size,
      cpuTimeMs: () => cpu.ms,
      collectYoung: () => heap.young++,
      collectIdle: () => {
        heap.idle++
        // The collection's own CPU time is not work.
        cpu.ms += 40
        heap.size = 18 * MiB
        return heap.size
      }
    })
    const ticks = (n: number, cpuPerTick: number) =>
      Array.from({ length: n }, () => {
        cpu.ms += cpuPerTick
        return pacer.tick()
      })
    // Quiet from the start: nothing was done since the pacer began.
    expect(ticks(10, 0).every((t) => t === undefined)).toBe(true)
    // A second of work (40 ticks at 25 ms), then quiet: collected on the fourth quiet tick.
    expect(ticks(40, 25).filter((t) => t === "young")).toHaveLength(40)
    expect(ticks(3, 1)).toEqual([undefined, undefined, undefined])
    expect(ticks(1, 1)).toEqual(["idle"])
    expect(heap.idle).toBe(1)
    // Staying quiet, or a trickle of work under a second in all, does not collect again.
    expect(ticks(20, 1).includes("idle")).toBe(false)
    ticks(10, 25)
    expect(ticks(10, 0).includes("idle")).toBe(false)
    // Another second of work, and it is due again.
    ticks(40, 25)
    expect(ticks(4, 0)).toEqual([undefined, undefined, undefined, "idle"])
    expect(heap.idle).toBe(2)
  })

  test("a full collection due on a late tick waits for a tick on time, four late ticks at most", () => {
    const heap = { size: 20 * MiB, collections: 0 }
    let clock = 0
    const pacer = makeHeapPacer({
      factor: 2,
      heapSize: () => heap.size,
      collect: () => {
        heap.collections++
        heap.size = 20 * MiB
        return heap.size
      },
      now: () => clock
    })
    const after = (ms: number) => {
      clock += ms
      return pacer.tick()
    }
    expect(after(25)).toBeUndefined()
    heap.size = 41 * MiB
    // The loop was held 40 ms past the tick (a write): not now.
    expect(after(65)).toBeUndefined()
    expect(after(25)).toBe("full")
    // Held tick after tick: the fifth late tick collects anyway.
    heap.size = 41 * MiB
    expect([after(60), after(60), after(60), after(60)]).toEqual([undefined, undefined, undefined, undefined])
    expect(after(60)).toBe("full")
    expect(heap.collections).toBe(2)
  })

  test("while large work runs, nothing is collected, 40 ticks at a time; the full collection due is made on the first tick after it", () => {
    const work = { running: false }
    const { heap, cpu, pacer } = busyHeap(20 * MiB, { held: () => work.running })
    const tick = () => {
      cpu.ms += 20
      return pacer.tick()
    }
    // Busy without large work: a young collection every tick.
    expect([tick(), tick()]).toEqual(["young", "young"])
    work.running = true
    // Busy with it: none, even once a full collection is due.
    expect([tick(), tick()]).toEqual([undefined, undefined])
    heap.size = 41 * MiB
    expect(Array.from({ length: 10 }, tick).every((made) => made === undefined)).toBe(true)
    work.running = false
    expect(tick()).toBe("full")
    expect(heap).toMatchObject({ full: 1, young: 2 })
    // Held 40 ticks in a row with a full collection due: the 41st collects, then it holds again.
    work.running = true
    heap.size = 41 * MiB
    const made = Array.from({ length: 82 }, tick)
    expect(made.slice(0, 40).every((m) => m === undefined)).toBe(true)
    expect(made[40]).toBe("full")
    expect(made.slice(41, 81).every((m) => m === undefined)).toBe(true)
    // With no full collection due, the 41st tick of the next hold collects the young generation.
    expect(made[81]).toBe("young")
    expect(heap).toMatchObject({ full: 2, young: 3 })
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
    // Ticked by hand, not on a timer: no tick is late.
    const pacer = makeHeapPacer({ heapSize, collect: fullGC, factor: 1, minGrowthBytes: 2 * MiB, lateMs: Number.POSITIVE_INFINITY })
    fill()
    // Survives a collection while referenced, then is dropped: only a full collection frees it.
    fullGC()
    const grown = heapSize()
    expect(grown - before).toBeGreaterThan(4 * MiB)
    drop()
    expect(pacer.tick()).toBe("full")
    expect(heapSize() - before).toBeLessThan((grown - before) / 2)
    expect(held).toHaveLength(0)
  })
})
