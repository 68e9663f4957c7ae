/**
 * Full collections paced by the heap's growth, for a long-running server.
 *
 * JavaScriptCore collects the young generation each time about twice the live heap has been
 * allocated, and the whole heap only once what survived those young collections has grown to
 * about four times the live heap. Under a sustained load of creates, each young collection keeps
 * about 1 MB of requests still under way, so the heap climbs to about six times what is live
 * before it is collected in full, and the resident memory with it.
 *
 * The pacer reads the heap's size (what survived the last collection) ten times a second and
 * collects in full, synchronously, once that size has grown by half since the last full
 * collection and by `minGrowthBytes` at least: the heap then peaks at about three and a half
 * times the live heap. A full collection the engine ran by itself (the size drops) sets the new
 * base as well. The cost is a pause of the event loop while the heap is marked (a few to tens of
 * milliseconds, by the live heap's size and the machine), every second or two under load and
 * never when idle; `encounterd_heap_paced_collections_total` and
 * `encounterd_heap_paced_pause_seconds_total` report it.
 */
export interface HeapPacerOptions {
  /**
   * The heap's size in bytes as of its last collection: `process.memoryUsage().heapUsed` (the same
   * figure as bun:jsc `heapSize`, which costs far more under load: about 1.6 ms a call).
   */
  readonly heapSize: () => number
  /** Collects the whole heap now; answers the size left (bun:jsc `fullGC`). */
  readonly collect: () => number
  /** Collect when the size exceeds the base times this factor. Default 1.5. */
  readonly factor?: number
  /** ...and the base plus this many bytes. Default 8 MiB: a small heap is left to the engine. */
  readonly minGrowthBytes?: number
  readonly now?: () => number
  /** Told of each paced collection: its pause in seconds. */
  readonly onCollect?: (pauseSeconds: number) => void
}

export interface HeapPacer {
  /** One look at the heap: collects when it is due. Answers whether it collected. */
  readonly tick: () => boolean
}

/** A drop below this share of the last reading means a full collection ran. */
const DROP = 0.85

export const makeHeapPacer = (o: HeapPacerOptions): HeapPacer => {
  const factor = o.factor ?? 1.5
  const minGrowth = o.minGrowthBytes ?? 8 * 1024 * 1024
  const now = o.now ?? (() => performance.now())
  let base = o.heapSize()
  let last = base
  return {
    tick: () => {
      const size = o.heapSize()
      if (size < last * DROP || size < base) base = size
      last = size
      if (size <= base * factor || size <= base + minGrowth) return false
      const started = now()
      base = o.collect()
      last = base
      o.onCollect?.((now() - started) / 1000)
      return true
    }
  }
}

/** The heap's size as of its last collection, in bytes. */
export const heapUsed = (): number => process.memoryUsage().heapUsed

/** Ticks `pacer` every `intervalMs` on a timer that does not keep the process alive. */
export const runHeapPacer = (pacer: HeapPacer, intervalMs = 100): (() => void) => {
  const timer = setInterval(pacer.tick, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
