import { edenGC, fullGC } from "bun:jsc"
import { forgetYoungMemos } from "../lib/young-memos.js"
/**
 * Collections paced by the heap's growth and by the work done, for a long-running server.
 *
 * Full collections. JavaScriptCore collects the whole heap only once what survived its young
 * collections has grown to about four times the live heap. Under a sustained load of creates,
 * each young collection keeps about 1 MB of requests still under way, so the heap climbs to about
 * six times what is live before it is collected in full, and the resident memory with it. The
 * pacer reads the heap's size (`process.memoryUsage().heapUsed`: what the last collection marked,
 * plus the memory outside the heap's cells, such as large strings' characters, the engine was told
 * of since its last full collection) at each tick and collects in full, synchronously, once that
 * size has grown by half since the last full collection and by `minGrowthBytes` at least. A full
 * collection the engine ran by itself (the size drops) sets the new base as well. The cost is a
 * pause of the event loop while the heap is marked (a few to tens of milliseconds, by the live
 * heap's size and the machine), every second or two under load and never when idle;
 * `encounterd_heap_paced_collections_total` and `encounterd_heap_paced_pause_seconds_total`
 * report it.
 *
 * Young collections. The engine collects the young generation once about 37 MB has been allocated
 * since its last collection (with a live heap of about 20 MB; `BUN_JSC_logGC=1` prints it), and
 * garbage is not only cells: what they own outside the heap (the characters of strings such as a
 * row's JSON or an answer's text, native objects) is freed when they are swept after a collection.
 * Up to that budget of garbage, and what it owns, stays resident between two young collections:
 * 15 to 20 MiB of the binary's peak under a load of creates or of random reads (bench/RESULTS.md,
 * "Peak memory"). Nothing the pacer can read cheaply counts the cells allocated (the heap's size
 * counts cells as of the last collection; its blocks are reused without growing), but allocation
 * follows work: given the process's CPU time, the pacer also collects the young generation (only
 * what was allocated since the last collection is marked: about 1 to 2 ms here) after every
 * `youngCpuMs` (8) of CPU time the process has used. Under load that is every tick, 25 ms apart:
 * at 25 ms of CPU time it was about every other tick, and the young generation held twice the
 * garbage (bench/RESULTS.md, "Young collections every tick under load"). An idle server uses next
 * to no CPU time, so it is not collected.
 * `encounterd_heap_paced_young_collections_total` and
 * `encounterd_heap_paced_young_pause_seconds_total` report it.
 *
 * Memory given back. A full collection marks; what died is swept by the engine afterwards, and
 * what a dead string owned outside the heap goes back to mimalloc, which keeps it. A tick 100 ms
 * after each full collection, when the process holds more than 112 MiB, the pacer has mimalloc
 * give back what is free (`giveBackWhenLarge`, under a millisecond). Sweeping the whole heap
 * within the pause (`Bun.gc(true)`) made full collections 20 to 50 ms longer with the heap an
 * import holds, so it is kept for a process over 160 MiB (`collectInFull`).
 *
 * Quiet after work. A process that has gone quiet (four ticks in a row under 2 ms of CPU time each)
 * after a second or more of CPU time since the last such collection is collected in full, swept
 * and given back (`collectAndSweep`): what a burst of work left resident does not stay until the
 * next burst. Its pause falls when nothing is waiting.
 *
 * Late ticks. A tick that comes more than 10 ms after it was due found the event loop held by
 * other work (a write of an import); a full collection due then waits for a tick on time (four
 * late ticks at most), so its pause does not lengthen that stall.
 *
 * Large work. While a job that holds a large live set until it ends runs (an import of an X12 file:
 * its parsed interchange, the claims it names, its plan; `lib/large-work.ts`), the pacer collects
 * nothing, a second at a time. A collection then marks the job's objects and frees none of them:
 * during 835s of 1,000 claims, full collections paused every request 25 to 34 ms and young ones 4
 * to 13 ms, several in a row; the full collection due is made on the first tick after the job,
 * when what it held is garbage (bench/RESULTS.md, "Collections held during imports").
 */
export interface HeapPacerOptions {
  /**
   * The heap's size in bytes: `process.memoryUsage().heapUsed` (the same figure as bun:jsc
   * `heapSize`, which costs far more under load: about 1.6 ms a call).
   */
  readonly heapSize: () => number
  /** Collects the whole heap now; answers the size left (`collectInFull`). */
  readonly collect: () => number
  /** Collect when the size exceeds the base times this factor. Default 1.5. */
  readonly factor?: number
  /** ...and the base plus this many bytes. Default 8 MiB: a small heap is left to the engine. */
  readonly minGrowthBytes?: number
  /**
   * The CPU time the process has used, in milliseconds (`process.cpuUsage()`, user and system).
   * With `collectYoung`, the pacer also collects the young generation; without them, only in full.
   */
  readonly cpuTimeMs?: () => number
  /** Collects the young generation now (bun:jsc `edenGC`). */
  readonly collectYoung?: () => void
  /** Collect the young generation after this much CPU time since the last collection the pacer made. Default 8 ms. */
  readonly youngCpuMs?: number
  readonly now?: () => number
  /** Told of each paced full collection: its pause in seconds. */
  readonly onCollect?: (pauseSeconds: number) => void
  /** Told of each paced young collection: its pause in seconds. */
  readonly onCollectYoung?: (pauseSeconds: number) => void
  /**
   * Has the allocator give back what is free, when the process holds much (`giveBackWhenLarge`):
   * called on the first tick `giveBackAfterMs` or more after each paced full collection.
   */
  readonly giveBack?: () => void
  /** Default 100 ms: the engine sweeps what a full collection found dead in slices after it. */
  readonly giveBackAfterMs?: number
  /**
   * Collects the whole heap, sweeps it and has the allocator give back what is free
   * (`collectAndSweep`); answers the heap's size after it. With `cpuTimeMs`, the pacer calls it
   * once the process has gone quiet after work: `idleTicks` ticks in a row each used under
   * `idleCpuMs` of CPU time, and `idleAfterCpuMs` of CPU time used since the last such collection.
   * Told to `onCollect` as a full collection.
   */
  readonly collectIdle?: () => number
  /** Default 4 (100 ms at the server's 25 ms ticks). */
  readonly idleTicks?: number
  /** Default 2 ms of CPU time in a tick's interval. */
  readonly idleCpuMs?: number
  /** Default 1,000 ms: a trickle of requests between quiet spells does not collect each time. */
  readonly idleAfterCpuMs?: number
  /**
   * The ticks' interval (default 25 ms). A tick that comes more than `lateMs` (default 10) after
   * it was due found the event loop held by other work (a write of an import): a full collection
   * due then waits for the next tick, up to `maxDeferrals` ticks in a row (default 4), so that its
   * pause does not add to a stall already under way.
   */
  readonly tickMs?: number
  readonly lateMs?: number
  readonly maxDeferrals?: number
  /**
   * Whether a job that holds a large live set until it ends is running (`largeWorkRunning`: an
   * import of an X12 file). Meanwhile the pacer collects nothing (the engine still makes its own
   * young collections): a full collection due waits for the job to end. It holds for
   * `maxHeldTicks` ticks in a row at most (default 40: a second at 25 ms); the next tick collects
   * what is due, full or young, and it holds again.
   */
  readonly held?: () => boolean
  readonly maxHeldTicks?: number
}

export interface HeapPacer {
  /** One look at the heap: collects when it is due. Answers which collection it made, if any. */
  readonly tick: () => "full" | "young" | "give back" | "idle" | undefined
}

/** A drop below this share of the last reading means a full collection ran. */
const DROP = 0.85

export const makeHeapPacer = (o: HeapPacerOptions): HeapPacer => {
  const factor = o.factor ?? 1.5
  const minGrowth = o.minGrowthBytes ?? 8 * 1024 * 1024
  const youngCpuMs = o.youngCpuMs ?? 8
  const now = o.now ?? (() => performance.now())
  const giveBackAfterMs = o.giveBackAfterMs ?? 100
  const idleTicks = o.idleTicks ?? 4
  const idleCpuMs = o.idleCpuMs ?? 2
  const idleAfterCpuMs = o.idleAfterCpuMs ?? 1000
  const tickMs = o.tickMs ?? 25
  const lateMs = o.lateMs ?? 10
  const maxDeferrals = o.maxDeferrals ?? 4
  const maxHeldTicks = o.maxHeldTicks ?? 40
  let heldTicks = 0
  const { cpuTimeMs, collectYoung, giveBack, collectIdle } = o
  let lastTick = now()
  let deferrals = 0
  let base = o.heapSize()
  let last = base
  // The CPU time at the last collection the pacer made (a full one collects the young generation too).
  let cpuAtCollection = cpuTimeMs?.() ?? 0
  // When the allocator is due to give back what the last full collection freed.
  let giveBackAt: number | undefined
  // The CPU time at the last tick and at the last collection made when quiet; quiet ticks in a row.
  let cpuAtTick = cpuAtCollection
  let cpuAtIdle = cpuAtCollection
  let quiet = 0
  const tick = (late: boolean): "full" | "young" | "give back" | "idle" | undefined => {
    if (cpuTimeMs !== undefined && collectIdle !== undefined) {
      const cpu = cpuTimeMs()
      quiet = cpu - cpuAtTick < idleCpuMs ? quiet + 1 : 0
      cpuAtTick = cpu
      if (quiet >= idleTicks && cpu - cpuAtIdle >= idleAfterCpuMs) {
        const started = now()
        base = collectIdle()
        last = base
        o.onCollect?.((now() - started) / 1000)
        giveBackAt = undefined
        // The collection's own CPU time is not work: the next tick starts from after it.
        cpuAtIdle = cpuAtTick = cpuAtCollection = cpuTimeMs()
        return "idle"
      }
    }
    if (giveBackAt !== undefined && giveBack !== undefined && now() >= giveBackAt) {
      giveBackAt = undefined
      giveBack()
      return "give back"
    }
    const size = o.heapSize()
    if (size < last * DROP || size < base) base = size
    last = size
    const due = size > base * factor && size > base + minGrowth
    if (due && late && deferrals < maxDeferrals) {
      deferrals++
      return undefined
    }
    // Held for `maxHeldTicks` ticks in a row at most: the next one collects as usual, then holds again.
    const held = o.held?.() === true && heldTicks < maxHeldTicks
    heldTicks = held ? heldTicks + 1 : 0
    if (due && held) return undefined
    if (due) {
      deferrals = 0
      const started = now()
      base = o.collect()
      last = base
      const ended = now()
      o.onCollect?.((ended - started) / 1000)
      giveBackAt = ended + giveBackAfterMs
      if (cpuTimeMs !== undefined) cpuAtCollection = cpuTimeMs()
      return "full"
    }
    if (cpuTimeMs === undefined || collectYoung === undefined || held) return undefined
    const cpu = cpuTimeMs()
    if (cpu - cpuAtCollection < youngCpuMs) return undefined
    const started = now()
    collectYoung()
    o.onCollectYoung?.((now() - started) / 1000)
    cpuAtCollection = cpuTimeMs()
    return "young"
  }
  return {
    tick: () => {
      // Late by more than the interval allows: something other than the pacer held the loop.
      const late = now() - lastTick > tickMs + lateMs
      const made = tick(late)
      lastTick = now()
      return made
    }
  }
}

/** The heap's size, in bytes. */
export const heapUsed = (): number => process.memoryUsage().heapUsed

/** Above this resident size a paced full collection is followed by the allocator's giving back what is free. */
export const GIVE_BACK_ABOVE_BYTES = 112 * 1024 * 1024

/**
 * Above this resident size, past the service's 150 MiB ceiling, a paced full collection also sweeps
 * the whole heap within its pause and has the allocator give back at once (`Bun.gc(true)`).
 */
export const SWEEP_ABOVE_BYTES = 160 * 1024 * 1024

/**
 * A full collection, synchronous: the heap is marked (bun:jsc `fullGC`) and what died is swept by
 * the engine in slices afterwards, as it allocates. Over `SWEEP_ABOVE_BYTES` resident,
 * `Bun.gc(true)` instead, which sweeps everything within the pause (20 to 50 ms longer under an
 * import, bench/RESULTS.md) and then has mimalloc give back what is free. Answers the heap's size
 * after it.
 */
export const collectInFull = (): number => {
  if (process.memoryUsage.rss() > SWEEP_ABOVE_BYTES) return collectAndSweep()
  fullGC()
  return heapUsed()
}

/**
 * A full collection that also sweeps the whole heap within its pause and then has mimalloc give
 * back what is free (`Bun.gc(true)`): for a process gone quiet, which holds what its last burst of
 * work left resident until something collects, and for one over `SWEEP_ABOVE_BYTES`. Answers the
 * heap's size after it.
 */
export const collectAndSweep = (): number => {
  Bun.gc(true)
  return heapUsed()
}

/**
 * When the process holds more than `GIVE_BACK_ABOVE_BYTES`, has mimalloc give back the memory that
 * is free (`Bun.gc(false)`: the allocator's cleanup, then a request for a concurrent collection,
 * which does not hold the event loop; under a millisecond). The memory cells owned outside the heap
 * (a list page's answer text, some 250 KB) returns to mimalloc when they are swept, and mimalloc
 * keeps it until told: under compat list pages of 100 the peak was 171–174 MiB with full
 * collections alone, 145–146 MiB with memory given back (`bun bench/memory.ts --scenario lists
 * --compare`, bench/RESULTS.md). The pacer calls it a tick after each full collection.
 */
export const giveBackWhenLarge = (): void => {
  if (process.memoryUsage.rss() > GIVE_BACK_ABOVE_BYTES) Bun.gc(false)
}

/**
 * A young collection (bun:jsc `edenGC`), the memos of large values forgotten first
 * (`forgetYoungMemos`: remembered list pages), so that what they held dies in it rather than
 * moving to the old generation. Under mixed traffic, where creates replace a list's first page
 * many times a second, the server's full collections halved (bench/RESULTS.md).
 */
export const collectYoung = (): void => {
  forgetYoungMemos()
  edenGC()
}

/** The CPU time the process has used, user and system, in milliseconds. */
export const cpuTimeMs = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** Ticks `pacer` every `intervalMs` on a timer that does not keep the process alive. */
export const runHeapPacer = (pacer: HeapPacer, intervalMs = 25): (() => void) => {
  const timer = setInterval(pacer.tick, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
