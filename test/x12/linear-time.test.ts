import { describe, expect, test } from "bun:test"
import { Either } from "effect"
import { read277CA } from "../../lib/x12/read/ack-277ca.js"
import { read999 } from "../../lib/x12/read/ack-999.js"
import { readInterchange, readInterchangePaced } from "../../lib/x12/read/interchange.js"
import { PACE } from "../../lib/x12/read/paced.js"
import { read835 } from "../../lib/x12/read/remit-835.js"
import { bomb277, bomb277Statuses, bomb835, bomb835Lines, bomb999Ik4, bomb999Sets, bombLineBreaks } from "../support/x12-bombs.js"

/**
 * Reading is linear in the file's size: for each shape a hostile file can take (one loop repeated
 * many times, or one segment holding a long run), reading a file four times as large takes about
 * four times as long. A quadratic step (a copy per segment, a rescan per loop, a backtracking
 * pattern) makes the ratio about 16, so the bound is 10 (the readers measure 4.8 to 5.8 on a quiet
 * machine; with files twice as large, a bound of 3 between 2 and 4 left too little room for a
 * collection's noise on a busy one: a linear reader measured 3.29 once). The time is the
 * process's CPU time (a busy machine makes a read wait, not work more), each run after a full
 * collection (so that no run pays for the garbage of another), the fastest of alternating runs.
 */

const read = (text: string, reader: (i: Parameters<typeof read999>[0]) => Either.Either<unknown, unknown>) => {
  const interchange = readInterchange(text)
  if (Either.isLeft(interchange)) throw new Error(interchange.left.message)
  const result = reader(interchange.right)
  if (Either.isLeft(result)) throw new Error(String(result.left))
}

/** The CPU time `f` takes, in milliseconds (with the garbage collector's threads). */
const cpuMs = (f: () => void) => {
  Bun.gc(true)
  const before = process.cpuUsage()
  f()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

/** Four times the input in at most ten times the time: linear with room for noise; a quadratic step is about 16. */
const BOUND = 10

/** The least CPU time of reading the file made for `n`, and for `4n`, over alternating runs. */
const timeRatio = (small: string, large: string, reader: Parameters<typeof read>[1], runs = 5) => {
  const a: Array<number> = []
  const b: Array<number> = []
  for (let i = 0; i < runs; i++) {
    a.push(cpuMs(() => read(small, reader)))
    b.push(cpuMs(() => read(large, reader)))
  }
  return { ratio: Math.min(...b) / Math.min(...a), small: Math.min(...a), large: Math.min(...b) }
}

/**
 * The ratio, measured again (up to three times) while it is above the bound: a pause can land in
 * one measurement, where a quadratic step is above it every time (about 16).
 */
const linearRatio = (make: (n: number) => string, n: number, reader: Parameters<typeof read>[1]) => {
  const small = make(n)
  const large = make(4 * n)
  read(small, reader)
  read(large, reader)
  let measured = timeRatio(small, large, reader)
  for (let attempt = 1; attempt < 3 && measured.ratio > BOUND; attempt++) measured = timeRatio(small, large, reader)
  return { ...measured, bytes: large.length }
}

const shapes: ReadonlyArray<readonly [string, (n: number) => string, number, Parameters<typeof read>[1]]> = [
  ["999: IK4 element errors under one IK3", (n) => bomb999Ik4(1, 1, n), 60_000, read999],
  ["999: AK2 loops in one group", (n) => bomb999Sets(1, 1, n), 30_000, read999],
  ["277CA: claims", (n) => bomb277(1, n), 8_000, read277CA],
  ["277CA: STC statuses of one claim", (n) => bomb277Statuses(1, n), 20_000, read277CA],
  ["835: CLP claims", (n) => bomb835(1, n), 8_000, read835],
  ["835: SVC lines of one claim", (n) => bomb835Lines(1, n), 12_500, read835]
]

describe("X12 readers are linear in the file's size", () => {
  for (const [name, make, n, reader] of shapes) {
    test(name, () => {
      const { ratio, small, large, bytes } = linearRatio(make, n, reader)
      expect({ name, ratio: ratio <= BOUND ? `at most ${BOUND}` : ratio, small, large, bytes }).toEqual({
        name,
        ratio: `at most ${BOUND}`,
        small: expect.any(Number),
        large: expect.any(Number),
        bytes: expect.any(Number)
      })
    }, 20_000)
  }
})

describe("a segment holding a run of line breaks", () => {
  test("is read in linear time (a trailing-line-break pattern would backtrack through every run), and refused as too long", () => {
    // 40,000 line breaks took 2.3 s with /[\r\n]+$/; a million would take about half an hour.
    const text = bombLineBreaks(1, 1_000_000)
    let read: ReturnType<typeof readInterchange> | undefined
    const ms = cpuMs(() => {
      read = readInterchange(text)
    })
    expect(ms).toBeLessThan(500)
    expect(read !== undefined && Either.isLeft(read) ? read.left.message : "").toBe(
      "CTX01 is 2000002 characters, longer than any X12 element (at most 1000 are read) at segment 5 (CTX)"
    )
  })
})

describe("paced reading", () => {
  test("pauses every PACE segments, and reads the same as at once", () => {
    const text = bomb835(1, 20_000)
    const paced = readInterchangePaced(text)
    let pauses = 0
    let step = paced.next()
    while (step.done !== true) {
      pauses++
      step = paced.next()
    }
    const segments = Either.getOrThrow(step.value).segment_count
    // The tokenizer and the envelope walk each pause once per PACE segments.
    expect(pauses).toBeGreaterThanOrEqual(2 * Math.floor(segments / PACE) - 2)
    expect(pauses).toBeLessThanOrEqual(2 * Math.ceil(segments / PACE) + 2)
    expect(step.value).toEqual(readInterchange(text))
  })
})
