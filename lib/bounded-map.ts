/**
 * A map of the most recently set keys, at most `capacity` of them: setting a key again makes it
 * the newest, and past `capacity` the least recently set go first. They go an eighth of the
 * capacity at a time, in one walk from the oldest: a map's oldest entry is its first, and finding
 * it again after each single removal would walk the removed entries each time (the engine leaves
 * them in place until it rebuilds its table), which made every set past capacity cost as much as
 * the reads it served.
 */
export interface BoundedMap<K, V> {
  readonly get: (key: K) => V | undefined
  readonly set: (key: K, value: V) => void
  readonly size: () => number
}

export const makeBoundedMap = <K, V>(capacity: number): BoundedMap<K, V> => {
  // A capacity under one keeps nothing.
  if (!(capacity >= 1)) return { get: () => undefined, set: () => undefined, size: () => 0 }
  capacity = Math.floor(capacity)
  const kept = new Map<K, V>()
  const keepAfterTrim = capacity - (capacity >> 3)
  return {
    get: (key) => kept.get(key),
    set: (key, value) => {
      kept.delete(key)
      kept.set(key, value)
      if (kept.size <= capacity) return
      let remove = kept.size - keepAfterTrim
      for (const oldest of kept.keys()) {
        if (remove-- <= 0) break
        kept.delete(oldest)
      }
    },
    size: () => kept.size
  }
}
