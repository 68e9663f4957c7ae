import { Either, Option, type Types } from "effect"
import type { X12ReadError } from "../errors.js"
import { parseDate8 } from "../values.js"
import { date8, optional, optionalCents, readFailure as fail, required } from "./fields.js"
import { type Interchange, transactionSetsOf } from "./interchange.js"
import { attemptPaced, PACE, type Paced, runPaced } from "./paced.js"
import { components, element, type ReadSegment } from "./tokenize.js"

/**
 * The 277CA claim acknowledgment (005010X214): per claim (loop 2200D, keyed by TRN02, our
 * CLM01), the status the payer or clearinghouse gave it. Patient names (NM1*QC) are not kept.
 */

export interface StatusCode277 {
  /** STC01-1, e.g. `A1`, `A3`, `A7`. */
  readonly category: string
  /** STC01-2, the claim status code. */
  readonly status: string
  /** STC01-3, the entity the status is about, e.g. `PR` (payer), `85` (billing provider). */
  readonly entity: string | undefined
}

export interface Status277 {
  /** STC01, then the optional STC10 and STC11. */
  readonly codes: ReadonlyArray<StatusCode277>
  /** STC02, the status's effective date; absent in many files (see `missing`). */
  readonly date: string | undefined
  /** STC03: WQ accepted, U rejected. */
  readonly action: string | undefined
  /** STC04: the claim's total charge as the sender read it. */
  readonly amount_cents: number | undefined
  /** STC12: free text. */
  readonly text: string | undefined
  /** Informational elements the guide requires that the file left empty (e.g. `STC02`): tolerated, noted. */
  readonly missing: ReadonlyArray<string>
}

/** A line-level status loop (2220D): the line's procedure, its control number, its statuses. */
export interface Line277 {
  /** SVC01-2, with SVC01-3.. as modifiers. */
  readonly procedure_code: string
  readonly modifiers: ReadonlyArray<string>
  /** SVC02: the line's charge as the sender read it. */
  readonly charge_cents: number | undefined
  /** REF*FJ: the line item control number we sent (REF*6R in the 837P). */
  readonly line_control_number: string | undefined
  /** DTP*472, the line's (first) date of service. */
  readonly service_date: string | undefined
  readonly statuses: ReadonlyArray<Status277>
}

export interface Claim277 {
  /** TRN02 of loop 2200D: the CLM01 we sent. */
  readonly patient_control_number: string
  /** REF*1K. */
  readonly payer_claim_control_number: string | undefined
  /** REF*D9. */
  readonly clearinghouse_trace_number: string | undefined
  /** NM109 of the enclosing billing provider loop (2100C), when an NPI. */
  readonly billing_provider_npi: string | undefined
  /** DTP*472, the first (or only) date of service. */
  readonly service_date: string | undefined
  readonly statuses: ReadonlyArray<Status277>
  /** Line-level statuses (loop 2220D), in file order. */
  readonly service_lines: ReadonlyArray<Line277>
  readonly position: number
}

/** A status above the claims: for the whole batch (2200B) or a billing provider (2200C). */
export interface BatchStatus277 {
  readonly level: "information_receiver" | "billing_provider"
  /** The billing provider's NPI (2100C NM109) for a provider-level status; undefined at the receiver level. */
  readonly identifier: string | undefined
  /**
   * TRN02 of the enclosing 2200B: the information receiver's trace number, which echoes the BHT03
   * of the 837P transaction set the status is about.
   */
  readonly batch_reference: string | undefined
  /** TRN02 of the 2200C (the provider's trace number), for a provider-level status. */
  readonly provider_reference: string | undefined
  readonly statuses: ReadonlyArray<Status277>
  readonly position: number
}

export interface Ack277CA {
  readonly kind: "277CA"
  readonly interchange_control_number: string
  readonly claims: ReadonlyArray<Claim277>
  readonly batch_statuses: ReadonlyArray<BatchStatus277>
}

const statusCode = (s: ReadSegment, n: number): StatusCode277 | undefined => {
  const [category = "", status = "", entity = ""] = components(s, n)
  if (category === "") return undefined
  return { category, status, entity: entity === "" ? undefined : entity }
}

/** One STC: its codes (STC01, STC10, STC11), date, action, amount and text. */
export const readStatus = (s: ReadSegment): Status277 => {
  const first = statusCode(s, 1)
  if (first === undefined) throw fail(s, "STC01 is required")
  const more = [statusCode(s, 10), statusCode(s, 11)].filter((c) => c !== undefined)
  // Three of the four guide examples leave STC02 empty: the status is read, its date noted missing.
  const date = optional(s, 2) === undefined ? undefined : date8(s, 2)
  return {
    codes: [first, ...more],
    date,
    action: optional(s, 3),
    amount_cents: optionalCents(s, 4),
    text: optional(s, 12),
    missing: date === undefined ? ["STC02"] : []
  }
}

/** HL03 levels of the 277CA: 20 source, 21 receiver, 19 provider, PT patient. */
type Level = "20" | "21" | "19" | "PT"

interface OpenClaim {
  pcn: string
  position: number
  npi: string | undefined
  refs: Map<string, string>
  serviceDate: string | undefined
  statuses: Array<Status277>
  lines: Array<Types.Mutable<Line277> & { statuses: Array<Status277> }>
}

function* readSet(segments: ReadonlyArray<ReadSegment>, claims: Array<Claim277>, batch: Array<BatchStatus277>): Paced<void> {
  let level: Level | undefined
  let npi: string | undefined
  let batchReference: string | undefined
  let providerReference: string | undefined
  let levelStatus: { statuses: Array<Status277> } | undefined
  let claim: OpenClaim | undefined
  const close = () => {
    if (claim !== undefined) {
      claims.push({
        patient_control_number: claim.pcn,
        payer_claim_control_number: claim.refs.get("1K"),
        clearinghouse_trace_number: claim.refs.get("D9"),
        billing_provider_npi: claim.npi,
        service_date: claim.serviceDate,
        statuses: claim.statuses,
        service_lines: claim.lines,
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
      if (code !== "20" && code !== "21" && code !== "19" && code !== "PT") throw fail(s, `HL03 '${code}' is not a 277CA level`)
      level = code
      if (level === "19") npi = undefined
      if (level === "19") providerReference = undefined
      if (level === "21") batchReference = undefined
      if (level === "20") batchReference = undefined
      levelStatus = undefined
    } else if (s.id === "NM1" && level === "19") {
      npi = element(s, 8) === "XX" ? optional(s, 9) : undefined
    } else if (s.id === "TRN" && level === "21") {
      batchReference = optional(s, 2)
    } else if (s.id === "TRN" && level === "19") {
      providerReference = optional(s, 2)
    } else if (s.id === "TRN" && level === "PT") {
      close()
      claim = { pcn: required(s, 2), position: s.position, npi, refs: new Map(), serviceDate: undefined, statuses: [], lines: [] }
    } else if (s.id === "STC") {
      const status = readStatus(s)
      if (claim !== undefined) {
        const line = claim.lines[claim.lines.length - 1]
        ;(line ?? claim).statuses.push(status)
      } else if (level === "21" || level === "19") {
        if (levelStatus === undefined) {
          const statuses: Array<Status277> = []
          batch.push({
            level: level === "21" ? "information_receiver" : "billing_provider",
            identifier: level === "19" ? npi : undefined,
            batch_reference: batchReference,
            provider_reference: level === "19" ? providerReference : undefined,
            statuses,
            position: s.position
          })
          levelStatus = { statuses }
        }
        levelStatus.statuses.push(status)
      } else if (level === "PT") {
        throw fail(s, "STC of a patient loop before its TRN")
      }
    } else if (claim !== undefined && s.id === "REF" && claim.lines.length === 0) {
      claim.refs.set(required(s, 1), required(s, 2))
    } else if (claim !== undefined && s.id === "DTP" && element(s, 1) === "472" && claim.lines.length === 0) {
      // D8 is one date; RD8 a range `CCYYMMDD-CCYYMMDD`, of which the start is kept.
      const start = element(s, 3).slice(0, 8)
      claim.serviceDate = Option.getOrThrowWith(parseDate8(start), () => fail(s, `DTP03 '${element(s, 3)}' is not a date`))
    } else if (claim !== undefined && s.id === "SVC") {
      const [, code = "", ...modifiers] = components(s, 1)
      claim.lines.push({
        procedure_code: code,
        modifiers: modifiers.filter((m) => m !== ""),
        charge_cents: optionalCents(s, 2),
        line_control_number: undefined,
        service_date: undefined,
        statuses: []
      })
    } else if (claim !== undefined && s.id === "REF" && element(s, 1) === "FJ") {
      const line = claim.lines[claim.lines.length - 1]
      if (line !== undefined) line.line_control_number = optional(s, 2)
    } else if (claim !== undefined && s.id === "DTP" && element(s, 1) === "472") {
      const line = claim.lines[claim.lines.length - 1]
      if (line !== undefined) line.service_date = Option.getOrUndefined(parseDate8(element(s, 3).slice(0, 8)))
    }
  }
  close()
}

export function* read277CAPaced(interchange: Interchange): Paced<Either.Either<Ack277CA, X12ReadError>> {
  const sets = transactionSetsOf(interchange, "277")
  if (Either.isLeft(sets)) return Either.left(sets.left)
  return yield* attemptPaced(
    (function* (): Paced<Ack277CA> {
      const claims: Array<Claim277> = []
      const batch: Array<BatchStatus277> = []
      for (const set of sets.right) yield* readSet(set.segments, claims, batch)
      return { kind: "277CA", interchange_control_number: interchange.control_number, claims, batch_statuses: batch }
    })()
  )
}

/** `read277CAPaced` run through at once. */
export const read277CA = (interchange: Interchange): Either.Either<Ack277CA, X12ReadError> => runPaced(read277CAPaced(interchange))
