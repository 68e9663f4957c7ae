import type { ClearinghouseSettings } from "../domain/clearinghouse.js"
import { type Segment, segment, WRITE_DELIMITERS } from "./segment.js"
import { stamp } from "./values.js"

/** The interchange (ISA/IEA), functional group (GS/GE) and transaction set (ST/SE) envelopes. */

export interface TransactionSetBody {
  /** ST02, as written (4 to 9 characters). */
  readonly control_number: string
  /** The segments between ST and SE. */
  readonly segments: ReadonlyArray<Segment>
}

export interface EnvelopeInput {
  readonly settings: ClearinghouseSettings
  /** ISA13 (written with 9 digits) and GS06. */
  readonly interchange_control_number: number
  readonly group_control_number: number
  readonly created_at: Date
  /** GS01, e.g. `HC` for health care claims. */
  readonly functional_id: string
  /** ST01, e.g. `837`. */
  readonly transaction_set_id: string
  /** GS08 and ST03, e.g. `005010X222A1`. */
  readonly version: string
  readonly transaction_sets: ReadonlyArray<TransactionSetBody>
}

/** ISA13 is exactly nine digits. */
export const interchangeControlNumber = (n: number): string => String(n).padStart(9, "0")

/** ST02 is 4 to 9 characters; shorter numbers are zero-padded to 4. */
export const transactionSetControlNumber = (n: number): string => String(n).padStart(4, "0")

/** Wraps transaction set bodies into one interchange with one functional group; counts are derived, never passed. */
export const envelope = (input: EnvelopeInput): ReadonlyArray<Segment> => {
  const { settings } = input
  const at = stamp(input.created_at)
  const icn = interchangeControlNumber(input.interchange_control_number)
  const gcn = String(input.group_control_number)
  // ISA is fixed width: every element is padded to its exact length.
  const isa = segment(
    "ISA",
    "00",
    " ".repeat(10),
    "00",
    " ".repeat(10),
    "ZZ",
    settings.interchange_sender_id.padEnd(15, " "),
    "ZZ",
    settings.interchange_receiver_id.padEnd(15, " "),
    at.yymmdd,
    at.hhmm,
    WRITE_DELIMITERS.repetition,
    "00501",
    icn,
    "0",
    settings.usage,
    WRITE_DELIMITERS.component
  )
  const gs = segment(
    "GS",
    input.functional_id,
    settings.interchange_sender_id,
    settings.interchange_receiver_id,
    at.ccyymmdd,
    at.hhmm,
    gcn,
    "X",
    input.version
  )
  const sets = input.transaction_sets.flatMap((ts) => [
    segment("ST", input.transaction_set_id, ts.control_number, input.version),
    ...ts.segments,
    // SE01 counts ST through SE inclusive.
    segment("SE", String(ts.segments.length + 2), ts.control_number)
  ])
  return [
    isa,
    gs,
    ...sets,
    segment("GE", String(input.transaction_sets.length), gcn),
    segment("IEA", "1", icn)
  ]
}
