import { makeBoundedMap } from "../../bounded-map.js"
import type { FeedEvent } from "../../domain/event.js"

/**
 * What an adapter keeps of what it read, for reads to come, where it can tell that it has not
 * changed: recorded events (they never change). Bounded: past `capacity` the least recently kept go first (`BoundedMap`).
 */
export interface ReadCache<K, V> {
  readonly get: (key: K) => V | undefined
  readonly keep: (key: K, value: V) => void
}

export const makeReadCache = <K, V>(capacity: number): ReadCache<K, V> => {
  const kept = makeBoundedMap<K, V>(capacity)
  return { get: kept.get, keep: kept.set }
}

/**
 * Feed events by their place in the feed (`seq`). A page whose places are all kept is answered
 * from here after a read of the places alone (the feed index, no row or payload text).
 */
export type EventCache = ReadCache<number, FeedEvent>

/** The caches of an adapter that reads cheaply enough for them to pay (an embedded database). */
export interface ReadCaches {
  readonly events: EventCache
}

export const makeReadCaches = (sizes: { readonly events: number }): ReadCaches => ({
  events: makeReadCache(sizes.events)
})
