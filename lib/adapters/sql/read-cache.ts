import type { FeedEvent } from "../../domain/event.js"

/**
 * What an adapter keeps of what it read, for reads to come, where what it keeps cannot change:
 * recorded events, and encounters' payloads (kept as parsed; a create payload is never written
 * again after intake). Bounded: past `capacity` the longest kept go first.
 */
export interface ReadCache<K, V> {
  readonly get: (key: K) => V | undefined
  readonly keep: (key: K, value: V) => void
}

export const makeReadCache = <K, V>(capacity: number): ReadCache<K, V> => {
  const kept = new Map<K, V>()
  return {
    get: (key) => kept.get(key),
    keep: (key, value) => {
      if (kept.has(key)) return
      kept.set(key, value)
      if (kept.size > capacity) {
        const oldest = kept.keys().next()
        if (oldest.done !== true) kept.delete(oldest.value)
      }
    }
  }
}

/**
 * Feed events by their place in the feed (`seq`). A page whose places are all kept is answered
 * from here after a read of the places alone (the feed index, no row or payload text).
 */
export type EventCache = ReadCache<number, FeedEvent>

/** Encounters' payloads by encounter id, parsed and frozen: reads of encounters then read the other columns only. */
export type PayloadCache = ReadCache<string, unknown>

/** The caches of an adapter that reads cheaply enough for them to pay (an embedded database). */
export interface ReadCaches {
  readonly events: EventCache
  readonly payloads: PayloadCache
}

/** Freezes a parsed JSON value throughout, so that no reader can change what others will read. */
export const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

export const makeReadCaches = (sizes: { readonly events: number; readonly payloads: number }): ReadCaches => ({
  events: makeReadCache(sizes.events),
  payloads: makeReadCache(sizes.payloads)
})
