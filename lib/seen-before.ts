/**
 * Whether a key was seen lately, remembered without allocating: a table of 32-bit fingerprints
 * (FNV-1a of the key's UTF-16 code units, mixed) made once, in buckets of four. `again(key)`
 * answers true when the key's bucket holds the key's fingerprint, and otherwise puts it first in
 * the bucket (the bucket's oldest goes) and answers false. What is remembered is about the last
 * `slots` distinct keys; a key is forgotten once four later keys of its bucket came, and a false
 * "seen" needs another key of the same bucket with the same 32-bit fingerprint. With one slot a
 * key, two keys of one slot read in turn (two encounters of one list page) pushed each other out
 * on every read and were never seen again; four such keys of one bucket are what it takes now.
 *
 * For admission to a cache: a value kept on its first read lives until pushed out, long enough for
 * the engine to move it to the old generation, where only a full collection frees it. Kept on its
 * second read only, a value read once (a random read) dies young.
 */
export interface SeenBefore {
  readonly again: (key: string) => boolean
}

const WAYS = 4

export const makeSeenBefore = (slots: number): SeenBefore => {
  let size = WAYS
  while (size < slots && size < 1 << 24) size <<= 1
  const buckets = size / WAYS
  const table = new Uint32Array(size)
  return {
    again: (key) => {
      let h = 0x811c9dc5
      for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
      // FNV-1a's low bits vary little between keys alike but for their last characters (ids made in
      // one millisecond): mixed (MurmurHash3's finalizer) before a bucket is taken from them.
      h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
      h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
      h ^= h >>> 16
      // 0 marks a slot never taken.
      const fingerprint = h >>> 0 || 1
      const at = (fingerprint & (buckets - 1)) * WAYS
      if (table[at] === fingerprint || table[at + 1] === fingerprint || table[at + 2] === fingerprint || table[at + 3] === fingerprint) return true
      table[at + 3] = table[at + 2]!
      table[at + 2] = table[at + 1]!
      table[at + 1] = table[at]!
      table[at] = fingerprint
      return false
    }
  }
}
