import { Either } from "effect"
import { X12ReadError } from "../errors.js"
import { count, readFailure as fail } from "./fields.js"
import { type Interchange, transactionSetsOf } from "./interchange.js"
import { attemptPaced, PACE, type Paced, runPaced } from "./paced.js"
import { components, element, type ReadSegment } from "./tokenize.js"

/**
 * The 999 implementation acknowledgment (005010X231A1): for each functional group we sent
 * (AK1), whether each of its transaction sets (AK2/IK5) and the group as a whole (AK9) were
 * accepted, with the segment and element errors the receiver reported.
 */

/** IK501 and AK901: A accepted, E accepted with errors, P partially accepted (AK9 only), R/M/W/X rejected. */
const ACCEPTED = ["A", "E"]
const REJECTED = ["R", "M", "W", "X"]

export interface ElementError999 {
  /** IK401-1 (and -2 for a component), e.g. `2` or `2:1`. */
  readonly position: string
  /** IK403, the implementation error code. */
  readonly code: string
  readonly bad_value: string
}

export interface SegmentError999 {
  /** IK301/IK302: the segment in error and its position in the transaction set. */
  readonly segment_id: string
  readonly position: number
  readonly loop: string
  /** IK304. */
  readonly code: string
  readonly elements: ReadonlyArray<ElementError999>
}

export interface SetAck999 {
  /** AK201, e.g. `837`. */
  readonly transaction_set_id: string
  /** AK202: ST02 of the set we sent. */
  readonly control_number: string
  /** IK501. */
  readonly code: string
  readonly accepted: boolean
  /** IK502..IK506. */
  readonly error_codes: ReadonlyArray<string>
  readonly segment_errors: ReadonlyArray<SegmentError999>
}

export interface GroupAck999 {
  /** AK102: GS06 of the group we sent. */
  readonly group_control_number: string
  readonly functional_id: string
  /** AK901. */
  readonly code: string
  readonly status: "accepted" | "partially_accepted" | "rejected"
  /** AK902..AK904. */
  readonly sets_included: number
  readonly sets_received: number
  readonly sets_accepted: number
  readonly transaction_sets: ReadonlyArray<SetAck999>
}

export interface Ack999 {
  readonly kind: "999"
  readonly interchange_control_number: string
  readonly groups: ReadonlyArray<GroupAck999>
}

/** A segment error being read: its IK4s are appended in place (one copy per IK4 would be quadratic). */
type OpenSegmentError = SegmentError999 & { readonly elements: Array<ElementError999> }

/** One 999 transaction set: AK1, AK2 loops, AK9. */
function* readSet(segments: ReadonlyArray<ReadSegment>, st: { position: number }): Paced<GroupAck999> {
  let group: { control: string; functional: string } | undefined
  const sets: Array<SetAck999> = []
  let open: { id: string; control: string; errors: Array<OpenSegmentError>; at: ReadSegment } | undefined
  for (const s of segments) {
    if (s.position % PACE === 0) yield
    switch (s.id) {
      case "AK1":
        if (group !== undefined) throw fail(s, "a second AK1 in one 999 transaction set")
        group = { control: element(s, 2), functional: element(s, 1) }
        break
      case "AK2":
        if (group === undefined) throw fail(s, "AK2 before AK1")
        if (open !== undefined) throw fail(s, `the AK2 loop at segment ${open.at.position} has no IK5`)
        open = { id: element(s, 1), control: element(s, 2), errors: [], at: s }
        break
      case "IK3":
        if (open === undefined) throw fail(s, "IK3 outside an AK2 loop")
        open.errors.push({ segment_id: element(s, 1), position: count(s, 2), loop: element(s, 3), code: element(s, 4), elements: [] })
        break
      case "IK4": {
        const last = open?.errors[open.errors.length - 1]
        if (last === undefined) throw fail(s, "IK4 without an IK3")
        last.elements.push({ position: components(s, 1).filter((c) => c !== "").join(":"), code: element(s, 3), bad_value: element(s, 4) })
        break
      }
      case "IK5": {
        if (open === undefined) throw fail(s, "IK5 outside an AK2 loop")
        const code = element(s, 1)
        if (!ACCEPTED.includes(code) && !REJECTED.includes(code)) throw fail(s, `IK501 '${code}' is not an acknowledgment code`)
        const error_codes = [2, 3, 4, 5, 6].map((n) => element(s, n)).filter((c) => c !== "")
        sets.push({ transaction_set_id: open.id, control_number: open.control, code, accepted: ACCEPTED.includes(code), error_codes, segment_errors: open.errors })
        open = undefined
        break
      }
      case "AK9": {
        if (group === undefined) throw fail(s, "AK9 before AK1")
        if (open !== undefined) throw fail(s, `the AK2 loop at segment ${open.at.position} has no IK5`)
        const code = element(s, 1)
        if (!ACCEPTED.includes(code) && !REJECTED.includes(code) && code !== "P") throw fail(s, `AK901 '${code}' is not an acknowledgment code`)
        return {
          group_control_number: group.control,
          functional_id: group.functional,
          code,
          status: ACCEPTED.includes(code) ? "accepted" : code === "P" ? "partially_accepted" : "rejected",
          sets_included: count(s, 2),
          sets_received: count(s, 3),
          sets_accepted: count(s, 4),
          transaction_sets: sets
        }
      }
      default:
        // CTX and anything else carry context only.
        break
    }
  }
  throw new X12ReadError({ segment_id: "ST", position: st.position, reason: "999 transaction set without AK9" })
}

export function* read999Paced(interchange: Interchange): Paced<Either.Either<Ack999, X12ReadError>> {
  const sets = transactionSetsOf(interchange, "999")
  if (Either.isLeft(sets)) return Either.left(sets.left)
  return yield* attemptPaced(
    (function* (): Paced<Ack999> {
      const groups: Array<GroupAck999> = []
      for (const set of sets.right) groups.push(yield* readSet(set.segments, set))
      return { kind: "999", interchange_control_number: interchange.control_number, groups }
    })()
  )
}

/** `read999Paced` run through at once. */
export const read999 = (interchange: Interchange): Either.Either<Ack999, X12ReadError> => runPaced(read999Paced(interchange))
