import type { FeedEvent } from "../../domain/event.js"

/**
 * Feed events by their place in the feed (`seq`), as an adapter read them. An event never changes
 * once recorded, so a kept event is never stale: a page whose places are all kept is answered
 * from here after a read of the places alone (the feed index, no row or payload text). Bounded:
 * past `capacity` the longest kept go first.
 */
export interface EventCache {
  /** The kept events at these places, in order; undefined when any of them is not kept. */
  readonly all: (seqs: ReadonlyArray<number>) => ReadonlyArray<FeedEvent> | undefined
  readonly keep: (events: ReadonlyArray<FeedEvent>) => void
}

export const makeEventCache = (capacity: number): EventCache => {
  const kept = new Map<number, FeedEvent>()
  return {
    all: (seqs) => {
      const out: Array<FeedEvent> = []
      for (const seq of seqs) {
        const e = kept.get(seq)
        if (e === undefined) return undefined
        out.push(e)
      }
      return out
    },
    keep: (events) => {
      for (const e of events) {
        if (kept.has(e.seq)) continue
        kept.set(e.seq, e)
        if (kept.size > capacity) {
          const oldest = kept.keys().next()
          if (oldest.done !== true) kept.delete(oldest.value)
        }
      }
    }
  }
}
