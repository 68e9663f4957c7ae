import { makeBoundedMap } from "../../bounded-map.js"
import type { EncounterWithClaim } from "../../domain/encounter.js"
import type { FeedEvent } from "../../domain/event.js"

/**
 * What an adapter keeps of what it read, for reads to come, where it can tell that it has not
 * changed: recorded events (they never change), and encounters as read at a row revision (every
 * write of the row raises it). Bounded: past `capacity` the least recently kept go first (`BoundedMap`).
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

/** An encounter as read at one revision of its row (frozen: every reader shares it). */
export interface KeptEncounter {
  readonly revision: number
  readonly read: EncounterWithClaim
}

/**
 * Encounters by id. A read of encounters then reads their ids and revisions alone (the page's
 * index and one column), and whole rows only for those not kept at that revision.
 */
export type EncounterCache = ReadCache<string, KeptEncounter>

/** The caches of an adapter that reads cheaply enough for them to pay (an embedded database). */
export interface ReadCaches {
  readonly events: EventCache
  readonly encounters: EncounterCache
}

/** Freezes a value throughout, so that no reader can change what others will read. */
export const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

export const makeReadCaches = (sizes: { readonly events: number; readonly encounters: number }): ReadCaches => ({
  events: makeReadCache(sizes.events),
  encounters: makeReadCache(sizes.encounters)
})
