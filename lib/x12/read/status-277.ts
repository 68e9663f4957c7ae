import { Either } from "effect"
import type { X12ReadError } from "../errors.js"
import { readStatus, type Status277 } from "./ack-277ca.js"
import { readFailure as fail, optionalCents, required } from "./fields.js"
import { type Interchange, transactionSetsOf } from "./interchange.js"
import { attemptPaced, PACE, type Paced, runPaced } from "./paced.js"
import { element, type ReadSegment } from "./tokenize.js"

/**
 * The claim status response (277, 005010X212): the payer's answer to our 276, per claim (loop
 * 2200D or 2200E, keyed by TRN02, the trace number we sent), with the claim's statuses (STC, read
 * as the 277CA reader reads them, plus STC05, the amount paid). Patient names are not kept.
 */

export interface StatusAnswer277 extends Status277 {
  /** STC05: the amount paid, when the claim is finalized. */
  readonly paid_cents: number | undefined
}

export interface ClaimAnswer277 {
  /** TRN02: the trace number of our inquiry. */
  readonly trace_number: string
  /** REF*EJ: the patient control number we sent. */
  readonly patient_control_number: string | undefined
  /** REF*1K: the payer's claim control number. */
  readonly payer_claim_control_number: string | undefined
  /** The claim-level STCs (line-level ones, after an SVC, are not kept). */
  readonly statuses: ReadonlyArray<StatusAnswer277>
  readonly position: number
}

export interface Status277Response {
  readonly kind: "277"
  readonly interchange_control_number: string
  readonly claims: ReadonlyArray<ClaimAnswer277>
  /** STCs above the claims (the payer, receiver or provider level): an answer about the whole inquiry, such as E0. */
  readonly level_statuses: ReadonlyArray<StatusAnswer277>
}

/** HL03 levels of the 277: 20 source, 21 receiver, 19 provider, 22 subscriber, 23 dependent. */
const LEVELS = new Set(["20", "21", "19", "22", "23"])

interface Open {
  trace: string
  position: number
  refs: Map<string, string>
  statuses: Array<StatusAnswer277>
  inLines: boolean
}

const readAnswer = (s: ReadSegment): StatusAnswer277 => ({ ...readStatus(s), paid_cents: optionalCents(s, 5) })

function* readSet(segments: ReadonlyArray<ReadSegment>, claims: Array<ClaimAnswer277>, levels: Array<StatusAnswer277>): Paced<void> {
  let level: string | undefined
  let claim: Open | undefined
  const close = () => {
    if (claim !== undefined) {
      claims.push({
        trace_number: claim.trace,
        patient_control_number: claim.refs.get("EJ"),
        payer_claim_control_number: claim.refs.get("1K"),
        statuses: claim.statuses,
        position: claim.position
      })
    }
    claim = undefined
  }
  for (const s of segments) {
    if (s.position % PACE === 0) yield
    if (s.id === "HL") {
      close()
      const code = required(s, 3)
      if (!LEVELS.has(code)) throw fail(s, `HL03 '${code}' is not a 277 (005010X212) level`)
      level = code
    } else if (s.id === "TRN" && (level === "22" || level === "23")) {
      close()
      claim = { trace: required(s, 2), position: s.position, refs: new Map(), statuses: [], inLines: false }
    } else if (s.id === "STC") {
      if (claim !== undefined) {
        if (!claim.inLines) claim.statuses.push(readAnswer(s))
      } else if (level === "22" || level === "23") {
        throw fail(s, "STC of a subscriber or dependent loop before its TRN")
      } else levels.push(readAnswer(s))
    } else if (claim !== undefined && s.id === "REF" && !claim.inLines) {
      claim.refs.set(required(s, 1), required(s, 2))
    } else if (claim !== undefined && s.id === "SVC") {
      claim.inLines = true
    } else if (s.id === "BHT" && element(s, 2) !== "" && element(s, 2) !== "08") {
      throw fail(s, `BHT02 '${element(s, 2)}' is not 08 (a status response)`)
    }
  }
  close()
}

export function* readStatus277Paced(interchange: Interchange): Paced<Either.Either<Status277Response, X12ReadError>> {
  const sets = transactionSetsOf(interchange, "277")
  if (Either.isLeft(sets)) return Either.left(sets.left)
  return yield* attemptPaced(
    (function* (): Paced<Status277Response> {
      const claims: Array<ClaimAnswer277> = []
      const levels: Array<StatusAnswer277> = []
      for (const set of sets.right) yield* readSet(set.segments, claims, levels)
      return { kind: "277", interchange_control_number: interchange.control_number, claims, level_statuses: levels }
    })()
  )
}

/** `readStatus277Paced` run through at once. */
export const readStatus277 = (interchange: Interchange): Either.Either<Status277Response, X12ReadError> => runPaced(readStatus277Paced(interchange))
