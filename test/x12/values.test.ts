import { describe, expect, test } from "bun:test"
import { Either, Option } from "effect"
import { X12WriteError } from "../../lib/x12/errors.js"
import { segment, serialize } from "../../lib/x12/segment.js"
import { cleanText, formatCents, formatDecimal, isX12Safe, parseCents, parseDate8 } from "../../lib/x12/values.js"
import { left, right } from "./helpers.js"

describe("money", () => {
  test("cents are written as dollars with two decimals", () => {
    expect([12345, 5, 0, 100000, -50, 9999].map(formatCents)).toEqual(["123.45", "0.05", "0.00", "1000.00", "-0.50", "99.99"])
  })

  test("amounts are read exactly, digit by digit", () => {
    const cases: ReadonlyArray<[string, number]> = [
      ["123.45", 12345],
      ["-12.5", -1250],
      ["100", 10000],
      [".5", 50],
      ["0.29", 29], // 0.29 * 100 is 28.999999999999996 in floating point
      ["1.10", 110],
      ["1.500", 150],
      ["-0", 0],
      ["1234567.89", 123456789]
    ]
    for (const [text, cents] of cases) expect(right(parseCents(text))).toBe(cents)
  })

  test("malformed amounts are refused with the reason", () => {
    expect(left(parseCents("1.005"))).toBe("'1.005' has more than 2 decimals")
    for (const bad of ["", "-", ".", "abc", "1,00", "1.2.3", "+5", " 5"]) expect(Either.isLeft(parseCents(bad))).toBe(true)
  })
})

describe("dates, decimals and text", () => {
  test("CCYYMMDD dates must be calendar days", () => {
    expect(parseDate8("20260115")).toEqual(Option.some("2026-01-15"))
    expect(Option.isNone(parseDate8("20260230"))).toBe(true)
    expect(Option.isNone(parseDate8("2026011"))).toBe(true)
  })

  test("quantities lose insignificant zeros", () => {
    expect(["1", "1.50", "02", "0.5", "10", "3.000"].map(formatDecimal)).toEqual(["1", "1.5", "2", "0.5", "10", "3"])
  })

  test("free text is made writable; identifiers are only checked", () => {
    expect(cleanText("  José  O'Brien*Smith~Jr:^ ", 60)).toBe("Jose O'Brien Smith Jr")
    expect(cleanText("Line\nbreak\ttab", 60)).toBe("Line break tab")
    expect(cleanText("Straße 北京", 60)).toBe("Stra e")
    expect(cleanText("abcdef", 4)).toBe("abcd")
    expect(isX12Safe("PLB409798836")).toBe(true)
    expect(["A*B", "A~", "a:b", "x^y", "", " A", "Ä"].some(isX12Safe)).toBe(false)
  })
})

describe("serializer", () => {
  test("writes elements, composites, and drops trailing empty elements and components", () => {
    const text = right(
      serialize([segment("NM1", "85", "2", "Clinic", "", "", "", "", "XX", "1234567893"), segment("SV1", ["HC", "99213", "", ""], "125.00", "UN", "1", "", "", ["1", "2"], "", "")])
    )
    expect(text).toBe("NM1*85*2*Clinic*****XX*1234567893~\nSV1*HC:99213*125.00*UN*1***1:2~\n")
    expect(right(serialize([segment("LX", "1"), segment("REF", "EI", undefined)], { lineBreaks: false }))).toBe("LX*1~REF*EI~")
  })

  test("refuses a delimiter or a control character inside a value, naming segment and element", () => {
    const star = left(serialize([segment("LX", "1"), segment("NM1", "IL", "1", "Smith*Jones")]))
    expect(star).toBeInstanceOf(X12WriteError)
    expect(star.message).toBe("NM103 holds the delimiter * (segment 2)")
    expect(left(serialize([segment("SV1", ["HC", "992~13"])])).message).toBe("SV101 holds the delimiter ~ (segment 1)")
    expect(left(serialize([segment("N3", "1 Main\nSt")])).message).toBe("N301 holds a character outside printable ASCII (segment 1)")
    expect(left(serialize([segment("nm1", "x")])).reason).toBe("is not a segment id")
  })
})
