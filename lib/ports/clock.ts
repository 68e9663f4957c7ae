import { randomFillSync } from "node:crypto"
import { Context, Layer } from "effect"
import { uuidv7 } from "../domain/ids.js"

/** Time, as a service so tests control it. */
export class Clock extends Context.Tag("encounters/Clock")<Clock, { readonly now: () => number }>() {
  static readonly live = Layer.succeed(Clock, { now: () => Date.now() })

  /** A clock that stands still until moved: `set` and `advance` change what `now` answers. */
  static readonly manual = (startMs: number) => {
    let current = startMs
    const control = {
      set: (ms: number) => {
        current = ms
      },
      advance: (ms: number) => {
        current += ms
      }
    }
    return { layer: Layer.succeed(Clock, { now: () => current }), control }
  }
}

export const isoTime = (ms: number): string => new Date(ms).toISOString()

/** Id generation, as a service so tests control it. Live ids are monotonic UUIDv7. */
export class Ids extends Context.Tag("encounters/Ids")<Ids, { readonly next: () => string }>() {
  static readonly live = Layer.sync(Ids, () => {
    let lastMs = -1
    let seq = 0
    // Random bytes drawn 4 KiB at a time (one system call per 512 ids), 8 per id.
    const random = new Uint8Array(4096)
    let used = random.length
    return {
      next: () => {
        let ms = Date.now()
        if (ms <= lastMs) {
          ms = lastMs
          seq += 1
          // 4096 ids within one millisecond: borrow the next millisecond to stay ordered.
          if (seq > 0xfff) {
            ms = lastMs + 1
            seq = 0
          }
        } else {
          seq = 0
        }
        lastMs = ms
        if (used + 8 > random.length) {
          randomFillSync(random)
          used = 0
        }
        used += 8
        return uuidv7(ms, seq, random, used - 8)
      }
    }
  })
}
