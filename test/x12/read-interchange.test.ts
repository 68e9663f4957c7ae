import { describe, expect, test } from "bun:test"
import { X12ReadError } from "../../lib/x12/errors.js"
import { read835 } from "../../lib/x12/read/remit-835.js"
import { detectKind, readInterchange } from "../../lib/x12/read/interchange.js"
import { left, right, x12Fixture } from "./helpers.js"

const failure = (text: string) => {
  const e = left(readInterchange(text))
  expect(e).toBeInstanceOf(X12ReadError)
  return { id: e.segment_id, at: e.position, message: e.message }
}

const good = x12Fixture("999-mixed.x12")

describe("tokenizer and envelopes", () => {
  test("delimiters come from the ISA; envelopes, control numbers and counts are read", () => {
    const i = right(readInterchange(x12Fixture("835-mixed.x12")))
    expect(i.delimiters).toEqual({ element: "*", component: ":", repetition: "^", segment: "~" })
    expect([i.sender_id, i.receiver_id, i.control_number, i.usage]).toEqual(["CLEARHOUSE", "SENDER01", "000000901", "T"])
    expect(i.groups.map((g) => [g.functional_id, g.control_number, g.version, g.transaction_sets.map((t) => t.control_number)])).toEqual([
      ["HP", "901", "005010X221A1", ["0001", "0002"]]
    ])
    expect(i.segment_count).toBe(57)
  })

  test("other delimiters, CRLF line ends, one long line, a byte-order mark: all read the same", () => {
    const reference = right(readInterchange(good))
    const variants = [
      good.replace(/\n/g, "\r\n"),
      good.replace(/\n/g, ""),
      `\uFEFF${good}`,
      good.replace(/\*/g, "|").replace(/~\n/g, "\n").replace(/:\n/, ">\n").replace(/\^/, "!")
    ]
    for (const text of variants) {
      const i = right(readInterchange(text))
      expect(i.groups[0]!.transaction_sets[0]!.segments.map((s) => [s.id, ...s.elements])).toEqual(
        reference.groups[0]!.transaction_sets[0]!.segments.map((s) => [s.id, ...s.elements])
      )
    }
    expect(right(readInterchange(variants[3]!)).delimiters).toEqual({ element: "|", component: ">", repetition: "!", segment: "\n" })
  })

  test("committed malformed samples: bad SE count, truncated file, wrong delimiters", () => {
    expect(failure(x12Fixture("835-bad-se-count.x12"))).toEqual({ id: "SE", at: 39, message: "SE01 says 36 segments, found 37 at segment 39 (SE)" })
    expect(failure(x12Fixture("277ca-truncated.x12"))).toEqual({
      id: "STC",
      at: 54,
      message: "segment without terminator: the file is truncated at segment 54 (STC)"
    })
    expect(failure(x12Fixture("999-wrong-delimiters.x12"))).toEqual({
      id: "GS|FA|CLEARH",
      at: 2,
      message: "not a segment id: wrong delimiters or a broken segment at segment 2 (GS|FA|CLEARH)"
    })
  })

  test("missing or malformed ISA", () => {
    expect(failure("")).toEqual({ id: "(empty)", at: 1, message: "missing ISA at segment 1 ((empty))" })
    expect(failure(good.slice(good.indexOf("GS*")))).toMatchObject({ id: "GS", at: 1, message: "missing ISA at segment 1 (GS)" })
    expect(failure(good.slice(0, 90))).toMatchObject({ id: "ISA", message: "ISA is 90 characters, shorter than its fixed 106 at segment 1 (ISA)" })
    expect(failure(good.replace("CLEARHOUSE     ", "CLEARHOUSE"))).toMatchObject({ id: "ISA", message: "ISA is not fixed width: element separator '*' expected at character 51 at segment 1 (ISA)" })
    expect(failure(good.replace("*:~", "**~"))).toMatchObject({ message: "ISA names the same character for two delimiters at segment 1 (ISA)" })
  })

  test("counts and control numbers of every envelope are checked", () => {
    expect(failure(good.replace("SE*15*0001~", "SE*15*0002~")).message).toBe("SE02 0002 does not match ST02 0001 at segment 17 (SE)")
    expect(failure(good.replace("SE*15*0001~", "SE*x*0001~")).message).toBe("SE01 'x' is not a count at segment 17 (SE)")
    expect(failure(good.replace("GE*1*731~", "GE*2*731~")).message).toBe("GE01 says 2 transaction sets, found 1 at segment 18 (GE)")
    expect(failure(good.replace("GE*1*731~", "GE*1*732~")).message).toBe("GE02 732 does not match GS06 731 at segment 18 (GE)")
    expect(failure(good.replace("IEA*1*000000731~", "IEA*2*000000731~")).message).toBe("IEA01 says 2 functional groups, found 1 at segment 19 (IEA)")
    expect(failure(good.replace("IEA*1*000000731~", "IEA*1*000000732~")).message).toBe("IEA02 000000732 does not match ISA13 000000731 at segment 19 (IEA)")
  })

  test("missing trailers and stray segments name where the file went wrong", () => {
    const withoutTail = good.slice(0, good.indexOf("\nGE*") + 1)
    expect(failure(withoutTail).message).toBe("missing GE for the functional group at segment 2 at segment 18 ((end of file))")
    expect(failure(good.slice(0, good.indexOf("\nSE*") + 1)).message).toBe("missing SE for the transaction set at segment 3 at segment 17 ((end of file))")
    expect(failure(good.replace("SE*15*0001~\n", "")).message).toBe("missing SE for the transaction set at segment 3 at segment 17 (GE)")
    expect(failure(good.slice(0, good.indexOf("\nIEA*") + 1)).message).toBe("missing IEA at segment 19 ((end of file))")
    expect(failure(`${good}ISA*00~\n`).message).toBe("ISA is not fixed width: element separator '*' expected at character 7 at segment 20 (ISA)")
    expect(failure(`${good}GS*HC~\n`).message).toBe("segment after IEA: expected another ISA or the end of the file at segment 20 (GS)")
    expect(failure(good.replace("AK9*P*3*3*2~", "AK9*P*3*3*2~~")).message).toBe("empty segment at segment 17 ((empty))")
    expect(failure(good.replace("GS*FA", "XX*FA")).message).toBe("expected GS or IEA at segment 2 (XX)")
  })

  test("the kind comes from ST01 (and GS08 for the 277CA and the 277); interpreters refuse another kind", () => {
    const kinds = ["999-mixed.x12", "277ca-mixed.x12", "835-mixed.x12"].map((f) => detectKind(right(readInterchange(x12Fixture(f)))))
    expect(kinds).toEqual(["999", "277CA", "835"])
    const status277 = x12Fixture("277ca-mixed.x12").replace("005010X214~", "005010X212~").replace("005010X214~", "005010X212~")
    expect(detectKind(right(readInterchange(status277)))).toBe("277")
    expect(left(read835(right(readInterchange(good)))).message).toBe("expected a 835 transaction set, found 999 at segment 3 (ST)")
  })
})
