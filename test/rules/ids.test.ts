import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { isUuid, uuidv7 } from "../../lib/domain/ids.js"
import { Ids } from "../../lib/ports/clock.js"

/** The UUIDv7 layout written out bit by bit, as the test's own account of what an id must be. */
const layout = (ms: number, seq: number, r: ReadonlyArray<number>): string => {
  let n = BigInt(Math.floor(ms)) << 80n
  n |= 0x7n << 76n
  n |= BigInt(seq & 0xfff) << 64n
  n |= 0x2n << 62n
  n |= BigInt(r[0]! & 0x3f) << 56n
  for (let i = 1; i < 8; i++) n |= BigInt(r[i]!) << BigInt(8 * (7 - i))
  const h = n.toString(16).padStart(32, "0")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

describe("ids", () => {
  test("uuidv7 lays out the time, version, sequence, variant and random bits, from the bytes at its offset", () => {
    const bytes = new Uint8Array(64)
    for (let i = 0; i < 2_000; i++) {
      crypto.getRandomValues(bytes)
      const ms = Math.floor(Math.random() * 2 ** 47)
      const seq = Math.floor(Math.random() * 0x1fff)
      const offset = i % 57
      expect(uuidv7(ms, seq, bytes, offset)).toBe(layout(ms, seq, [...bytes.subarray(offset, offset + 8)]))
    }
    expect(uuidv7(0, 0, new Uint8Array(8))).toBe("00000000-0000-7000-8000-000000000000")
    expect(uuidv7(2 ** 48 - 1, 0xfff, new Uint8Array(8).fill(0xff))).toBe("ffffffff-ffff-7fff-bfff-ffffffffffff")
  })

  test("live ids are distinct UUIDv7s in the order they were made, past many refills of their random bytes", () => {
    const ids = Effect.runSync(Effect.provide(Effect.map(Ids, (i) => Array.from({ length: 20_000 }, () => i.next())), Ids.live))
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) {
      expect(isUuid(id)).toBe(true)
      expect(id[14]).toBe("7")
      expect("89ab").toContain(id[19]!)
    }
    expect([...ids].sort()).toEqual(ids)
  })
})
