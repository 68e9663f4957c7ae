import { Either, type Types } from "effect"
import { X12ReadError } from "../errors.js"
import { cents, date8, optional, optionalCents, readFailure as fail, required } from "./fields.js"
import { type Interchange, transactionSetsOf } from "./interchange.js"
import { attemptPaced, PACE, type Paced, runPaced } from "./paced.js"
import { components, element, type ReadSegment } from "./tokenize.js"

/**
 * The 835 remittance advice (005010X221A1): one payment per transaction set (BPR, TRN), its
 * payer and payee, and per claim (CLP) what was charged, paid and adjusted, line by line (SVC).
 * Amounts are integer cents. Patient names (NM1*QC) are not kept.
 */

export interface Adjustment835 {
  /** CAS01: CO contractual, PR patient responsibility, OA other, PI payer initiated, CR correction. */
  readonly group: string
  /** The CARC, e.g. `45`. */
  readonly reason: string
  readonly amount_cents: number
  readonly quantity: string | undefined
}

export interface ServiceLine835 {
  /** SVC01-2, with SVC01-3.. as modifiers. */
  readonly procedure_code: string
  readonly modifiers: ReadonlyArray<string>
  readonly charge_cents: number
  readonly paid_cents: number
  /** SVC05. */
  readonly units: string | undefined
  /** REF*6R: the line item control number we sent. */
  readonly line_control_number: string | undefined
  /** DTM*472 (or 150). */
  readonly service_date: string | undefined
  readonly adjustments: ReadonlyArray<Adjustment835>
}

export interface Claim835 {
  /** CLP01: the CLM01 we sent. */
  readonly patient_control_number: string
  /** CLP02: 1/2/3 processed as primary/secondary/tertiary, 4 denied, 19-21 processed and forwarded, 22 reversal, 23 not our claim, 25 predetermination. */
  readonly status_code: string
  readonly charge_cents: number
  readonly paid_cents: number
  /** CLP05. */
  readonly patient_responsibility_cents: number | undefined
  /** CLP07. */
  readonly payer_claim_control_number: string | undefined
  readonly adjustments: ReadonlyArray<Adjustment835>
  readonly service_lines: ReadonlyArray<ServiceLine835>
  readonly position: number
}

export interface Payment835 {
  readonly transaction_set_control_number: string
  /** TRN02: the check or EFT trace number. */
  readonly trace_number: string
  /** BPR02 and BPR03 (C credit, D debit). */
  readonly amount_cents: number
  readonly credit_debit: string
  /** BPR04: ACH, CHK, BOP, FWT, NON. */
  readonly method: string
  /** BPR16, `YYYY-MM-DD`. */
  readonly payment_date: string
  readonly payer: { readonly name: string; readonly id: string | undefined }
  readonly payee: { readonly name: string | undefined; readonly npi: string | undefined }
  readonly claims: ReadonlyArray<Claim835>
  /** PLB: provider-level adjustments (positive amounts reduce the payment). */
  readonly provider_adjustments: ReadonlyArray<{ readonly reason: string; readonly reference: string | undefined; readonly amount_cents: number }>
  /** BPR02 equals the claims' payments less the provider-level adjustments. */
  readonly balanced: boolean
}

export interface Remittance835 {
  readonly kind: "835"
  readonly interchange_control_number: string
  readonly payments: ReadonlyArray<Payment835>
}

/** CAS carries up to six reason/amount/quantity triples after its group code. */
const adjustments = (s: ReadSegment): ReadonlyArray<Adjustment835> => {
  const group = required(s, 1)
  const out: Array<Adjustment835> = []
  for (let n = 2; n <= 17; n += 3) {
    if (element(s, n) === "") continue
    out.push({ group, reason: element(s, n), amount_cents: cents(s, n + 1), quantity: optional(s, n + 2) })
  }
  if (out.length === 0) throw fail(s, "CAS02 is required")
  return out
}

type MutableLine = Types.Mutable<ServiceLine835> & { adjustments: Array<Adjustment835> }
type MutableClaim = Omit<Claim835, "adjustments" | "service_lines"> & {
  adjustments: Array<Adjustment835>
  service_lines: Array<MutableLine>
}

function* readPayment(segments: ReadonlyArray<ReadSegment>, st: { position: number; control_number: string }): Paced<Payment835> {
  const bpr = segments.find((s) => s.id === "BPR")
  const trn = segments.find((s) => s.id === "TRN")
  if (bpr === undefined) throw new X12ReadError({ segment_id: "ST", position: st.position, reason: "835 without BPR" })
  if (trn === undefined) throw fail(bpr, "835 without TRN")
  let payerName = ""
  let payerId: string | undefined
  let payee: Payment835["payee"] = { name: undefined, npi: undefined }
  let party: "PR" | "PE" | undefined
  const claims: Array<MutableClaim> = []
  const plb: Array<Payment835["provider_adjustments"][number]> = []
  for (const s of segments) {
    if (s.position % PACE === 0) yield
    const claim = claims[claims.length - 1]
    const line = claim?.service_lines[claim.service_lines.length - 1]
    if (s.id === "N1") {
      party = element(s, 1) === "PR" ? "PR" : element(s, 1) === "PE" ? "PE" : undefined
      if (party === "PR") payerName = required(s, 2)
      if (party === "PE") payee = { name: optional(s, 2), npi: element(s, 3) === "XX" ? optional(s, 4) : undefined }
    } else if (s.id === "REF" && party === "PR" && claim === undefined && element(s, 1) === "2U") {
      payerId = required(s, 2)
    } else if (s.id === "CLP") {
      party = undefined
      claims.push({
        patient_control_number: required(s, 1),
        status_code: required(s, 2),
        charge_cents: cents(s, 3),
        paid_cents: cents(s, 4),
        patient_responsibility_cents: optionalCents(s, 5),
        payer_claim_control_number: optional(s, 7),
        adjustments: [],
        service_lines: [],
        position: s.position
      })
    } else if (s.id === "CAS") {
      if (claim === undefined) throw fail(s, "CAS outside a claim")
      ;(line ?? claim).adjustments.push(...adjustments(s))
    } else if (s.id === "SVC") {
      if (claim === undefined) throw fail(s, "SVC outside a claim")
      const [, code = "", ...modifiers] = components(s, 1)
      if (code === "") throw fail(s, "SVC01 has no procedure code")
      claim.service_lines.push({
        procedure_code: code,
        modifiers: modifiers.filter((m) => m !== ""),
        charge_cents: cents(s, 2),
        paid_cents: cents(s, 3),
        units: optional(s, 5),
        line_control_number: undefined,
        service_date: undefined,
        adjustments: []
      })
    } else if (line !== undefined && s.id === "REF" && element(s, 1) === "6R") {
      line.line_control_number = required(s, 2)
    } else if (line !== undefined && s.id === "DTM" && (element(s, 1) === "472" || element(s, 1) === "150")) {
      line.service_date = date8(s, 2)
    } else if (s.id === "PLB") {
      for (let n = 3; n <= 13; n += 2) {
        if (element(s, n) === "") continue
        const [reason = "", reference] = components(s, n)
        plb.push({ reason, reference: reference === "" ? undefined : reference, amount_cents: cents(s, n + 1) })
      }
    }
  }
  const amount = cents(bpr, 2)
  const paid = claims.reduce((sum, c) => sum + c.paid_cents, 0) - plb.reduce((sum, a) => sum + a.amount_cents, 0)
  return {
    transaction_set_control_number: st.control_number,
    trace_number: required(trn, 2),
    amount_cents: amount,
    credit_debit: required(bpr, 3),
    method: required(bpr, 4),
    payment_date: date8(bpr, 16),
    payer: { name: payerName, id: payerId ?? optional(trn, 3) },
    payee,
    claims,
    provider_adjustments: plb,
    balanced: amount === paid
  }
}

export function* read835Paced(interchange: Interchange): Paced<Either.Either<Remittance835, X12ReadError>> {
  const sets = transactionSetsOf(interchange, "835")
  if (Either.isLeft(sets)) return Either.left(sets.left)
  return yield* attemptPaced(
    (function* (): Paced<Remittance835> {
      const payments: Array<Payment835> = []
      for (const set of sets.right) payments.push(yield* readPayment(set.segments, set))
      return { kind: "835", interchange_control_number: interchange.control_number, payments }
    })()
  )
}

/** `read835Paced` run through at once. */
export const read835 = (interchange: Interchange): Either.Either<Remittance835, X12ReadError> => runPaced(read835Paced(interchange))
