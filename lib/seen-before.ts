/**
 * Whether a key was seen lately, remembered without allocating: a table of 32-bit fingerprints
 * (FNV-1a of the key's UTF-16 code units, mixed), one per slot, made once. `again(key)` answers true when
 * the key's slot holds the key's fingerprint (seen since the slot last took another key), and
 * otherwise puts it there and answers false. A key is forgotten when a later key takes its slot,
 * so what is remembered is about the last `slots` distinct keys; a false "seen" needs another key
 * of the same slot with the same 32-bit fingerprint.
 *
 * For admission to a cache: a value kept on its first read lives until pushed out, long enough for
 * the engine to move it to the old generation, where only a full collection frees it. Kept on its
 * second read only, a value read once (a random read) dies young.
 */
export interface SeenBefore {
  readonly again: (key: string) => boolean
}

export const makeSeenBefore = (slots: number): SeenBefore => {
  let size = 1
  while (size < slots && size < 1 << 24) size <<= 1
  const mask = size - 1
  const table = new Uint32Array(size)
  return {
    again: (key) => {
      let h = 0x811c9dc5
      for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
      // FNV-1a's low bits vary little between keys alike but for their last characters (ids made in
      // one millisecond): mixed (MurmurHash3's finalizer) before a slot is taken from them.
      h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
      h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
      h ^= h >>> 16
      // 0 marks a slot never taken.
      const fingerprint = h >>> 0 || 1
      const slot = fingerprint & mask
      if (table[slot] === fingerprint) return true
      table[slot] = fingerprint
      return false
    }
  }
}
