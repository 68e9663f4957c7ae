import { Either } from "effect"
import { X12ReadError } from "../errors.js"
import type { Delimiters } from "../segment.js"
import { PACE, type Paced, runPaced } from "./paced.js"
import { element, type ReadSegment, tokenizePaced } from "./tokenize.js"

/** An interchange read and checked: envelopes matched, control numbers and counts verified. */

export interface TransactionSet {
  /** ST01, e.g. `835`. */
  readonly id: string
  /** ST02. */
  readonly control_number: string
  /** Position of the ST segment. */
  readonly position: number
  /** The segments between ST and SE. */
  readonly segments: ReadonlyArray<ReadSegment>
}

export interface FunctionalGroup {
  /** GS01, e.g. `HP` for an 835. */
  readonly functional_id: string
  readonly sender_id: string
  readonly receiver_id: string
  /** GS06. */
  readonly control_number: string
  /** GS08, e.g. `005010X221A1`. */
  readonly version: string
  readonly position: number
  readonly transaction_sets: ReadonlyArray<TransactionSet>
}

export interface Interchange {
  readonly delimiters: Delimiters
  readonly sender_id: string
  readonly receiver_id: string
  /** ISA13. */
  readonly control_number: string
  /** ISA15: T (test) or P (production). */
  readonly usage: string
  /** The groups of every envelope, in file order. */
  readonly groups: ReadonlyArray<FunctionalGroup>
  /** Every ISA/IEA envelope of the file (most files have one); the fields above are the first's. */
  readonly envelopes: ReadonlyArray<Envelope>
  readonly segment_count: number
}

const fail = (s: { id: string; position: number }, reason: string) =>
  Either.left(new X12ReadError({ segment_id: s.id, position: s.position, reason }))

/** An expected count element: digits only. */
const count = (s: ReadSegment, n: number): number | undefined => {
  const v = element(s, n)
  return /^\d{1,9}$/.test(v) ? Number(v) : undefined
}

const countCheck = (s: ReadSegment, name: string, what: string, found: number) => {
  const said = count(s, 1)
  if (said === undefined) return fail(s, `${name}01 '${element(s, 1)}' is not a count`)
  return said === found ? undefined : fail(s, `${name}01 says ${said} ${what}, found ${found}`)
}

/** The ids that end a transaction set's body. */
const SET_END = new Set(["SE", "ST", "GS", "GE", "IEA", "ISA"])

/** One ISA/IEA envelope of a file. */
export interface Envelope {
  readonly sender_id: string
  readonly receiver_id: string
  /** ISA13. */
  readonly control_number: string
  /** ISA15. */
  readonly usage: string
  readonly position: number
}

/**
 * Reads the whole text: one or more interchanges (ISA, functional groups of transaction sets,
 * IEA), one after the other. Some clearinghouses put several envelopes in one file; their groups
 * are read as one, and the first envelope names the file (`sender_id`, `control_number`).
 */
export function* readInterchangePaced(text: string): Paced<Either.Either<Interchange, X12ReadError>> {
  const tokens = yield* tokenizePaced(text)
  if (Either.isLeft(tokens)) return Either.left(tokens.left)
  const { delimiters, segments } = tokens.right
  const end = { id: "(end of file)", position: segments.length + 1 }
  const groups: Array<FunctionalGroup> = []
  const envelopes: Array<Envelope> = []
  let i = 0
  while (i < segments.length) {
    const isa = segments[i]!
    if (isa.id !== "ISA") return fail(isa, "segment after IEA: expected another ISA or the end of the file")
    i++
    let groupCount = 0
    while (i < segments.length && segments[i]!.id === "GS") {
      const gs = segments[i++]!
      const sets: Array<TransactionSet> = []
      while (i < segments.length && segments[i]!.id === "ST") {
        const st = segments[i++]!
        const from = i
        while (i < segments.length && !SET_END.has(segments[i]!.id)) {
          i++
          if (i % PACE === 0) yield
        }
        // One copy of the set's segments, not a push per segment.
        const body: ReadonlyArray<ReadSegment> = segments.slice(from, i)
        const se = segments[i]
        if (se === undefined) return fail(end, `missing SE for the transaction set at segment ${st.position}`)
        if (se.id !== "SE") return fail(se, `missing SE for the transaction set at segment ${st.position}`)
        i++
        const bad = countCheck(se, "SE", "segments", body.length + 2)
        if (bad !== undefined) return bad
        if (element(se, 2) !== element(st, 2)) return fail(se, `SE02 ${element(se, 2)} does not match ST02 ${element(st, 2)}`)
        sets.push({ id: element(st, 1), control_number: element(st, 2), position: st.position, segments: body })
      }
      const ge = segments[i]
      if (ge === undefined) return fail(end, `missing GE for the functional group at segment ${gs.position}`)
      if (ge.id !== "GE") return fail(ge, `expected ST or GE in the functional group at segment ${gs.position}`)
      i++
      const bad = countCheck(ge, "GE", "transaction sets", sets.length)
      if (bad !== undefined) return bad
      if (element(ge, 2) !== element(gs, 6)) return fail(ge, `GE02 ${element(ge, 2)} does not match GS06 ${element(gs, 6)}`)
      groupCount++
      groups.push({
        functional_id: element(gs, 1),
        sender_id: element(gs, 2),
        receiver_id: element(gs, 3),
        control_number: element(gs, 6),
        version: element(gs, 8),
        position: gs.position,
        transaction_sets: sets
      })
    }
    const iea = segments[i]
    if (iea === undefined) return fail(end, "missing IEA")
    if (iea.id !== "IEA") return fail(iea, "expected GS or IEA")
    i++
    const bad = countCheck(iea, "IEA", "functional groups", groupCount)
    if (bad !== undefined) return bad
    if (element(iea, 2) !== element(isa, 13)) return fail(iea, `IEA02 ${element(iea, 2)} does not match ISA13 ${element(isa, 13)}`)
    envelopes.push({
      sender_id: element(isa, 6).trim(),
      receiver_id: element(isa, 8).trim(),
      control_number: element(isa, 13),
      usage: element(isa, 15),
      position: isa.position
    })
  }
  const first = envelopes[0]!
  return Either.right({
    delimiters,
    sender_id: first.sender_id,
    receiver_id: first.receiver_id,
    control_number: first.control_number,
    usage: first.usage,
    groups,
    envelopes,
    segment_count: segments.length
  })
}

/** `readInterchangePaced` run through at once. */
export const readInterchange = (text: string): Either.Either<Interchange, X12ReadError> => runPaced(readInterchangePaced(text))

/** What an interchange holds, from its first transaction set (ST01, and GS08 for a 277CA or 277). */
export type X12Kind = "999" | "277CA" | "277" | "835" | "837P" | "unknown"

export const detectKind = (interchange: Interchange): X12Kind => {
  const group = interchange.groups[0]
  const set = group?.transaction_sets[0]
  if (group === undefined || set === undefined) return "unknown"
  if (set.id === "999") return "999"
  if (set.id === "277" && group.version.includes("X214")) return "277CA"
  // The claim status response, our 276's answer.
  if (set.id === "277" && group.version.includes("X212")) return "277"
  if (set.id === "835") return "835"
  if (set.id === "837" && group.version.includes("X222")) return "837P"
  return "unknown"
}

/** Every transaction set of the interchange, checked to be of the expected type (ST01). */
export const transactionSetsOf = (
  interchange: Interchange,
  expected: string
): Either.Either<ReadonlyArray<TransactionSet>, X12ReadError> => {
  const sets = interchange.groups.flatMap((g) => g.transaction_sets)
  const other = sets.find((s) => s.id !== expected)
  if (other !== undefined) return fail({ id: "ST", position: other.position }, `expected a ${expected} transaction set, found ${other.id}`)
  return Either.right(sets)
}
