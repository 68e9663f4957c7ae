import { Schema } from "effect"

/**
 * What a clearinghouse's or payer's response said about a claim, kept as data beside the outcome's
 * text: the 999's segment and element errors (IK3/IK4) for the transaction set that held the
 * claim, and the 277CA's statuses at every level that reached the claim (batch, billing provider,
 * claim, line). Work lists and corrections read the codes from here rather than from the text.
 */

/** IK4: an element in error. */
export const X12ElementError = Schema.Struct({
  /** IK401: the element's position in its segment, with the component (`2`, `2:1`). */
  position: Schema.String,
  /** IK403: the implementation error code. */
  code: Schema.String,
  /** IK404: a copy of the bad element, when the receiver sent it. */
  bad_value: Schema.String
}).annotations({ identifier: "X12ElementError" })

/** IK3: a segment in error, with its element errors. */
export const X12SegmentError = Schema.Struct({
  /** IK301. */
  segment_id: Schema.String,
  /** IK302: the segment's position in the transaction set (ST is 1). */
  position: Schema.Number,
  /** IK303: the loop it is in, when the receiver said. */
  loop: Schema.String,
  /** IK304: the segment syntax error code. */
  code: Schema.String,
  elements: Schema.Array(X12ElementError)
}).annotations({ identifier: "X12SegmentError" })

/** STC01 (or STC10, STC11): category, status and entity codes. */
export const X12StatusCode = Schema.Struct({
  category: Schema.String,
  status: Schema.String,
  entity: Schema.NullOr(Schema.String)
}).annotations({ identifier: "X12StatusCode" })

export const X12StatusLevels = ["batch", "billing_provider", "claim", "line"] as const

/** One STC, at the level of the loop it came in. */
export const X12StatusDetail = Schema.Struct({
  /** 2200B (the batch), 2200C (the billing provider), 2200D (the claim) or 2220D (a line). */
  level: Schema.Literal(...X12StatusLevels),
  /** For a line: SVC01's procedure code and REF*FJ, the line item control number we sent. */
  procedure_code: Schema.NullOr(Schema.String),
  line_control_number: Schema.NullOr(Schema.String),
  codes: Schema.Array(X12StatusCode),
  /** STC02 (null when the file left it empty, see `missing`), STC03, STC04, STC12. */
  date: Schema.NullOr(Schema.String),
  action: Schema.NullOr(Schema.String),
  amount_cents: Schema.NullOr(Schema.Number),
  text: Schema.NullOr(Schema.String),
  /** Elements the guide requires that the file left empty, tolerated (e.g. `STC02`). */
  missing: Schema.Array(Schema.String)
}).annotations({ identifier: "X12StatusDetail" })
export type X12StatusDetail = typeof X12StatusDetail.Type

/** The structured detail of one outcome; lists are empty where the file kind has none. */
export const X12ResponseDetail = Schema.Struct({
  /** 999 IK502..IK506: the transaction set's syntax error codes. */
  set_error_codes: Schema.Array(Schema.String),
  /** 999 IK3/IK4. */
  segment_errors: Schema.Array(X12SegmentError),
  /** 277CA STC, batch and provider levels first, then the claim's and its lines'. */
  statuses: Schema.Array(X12StatusDetail)
}).annotations({ identifier: "X12ResponseDetail", description: "The codes the response gave: 999 IK3/IK4, 277CA STC at every level" })
export type X12ResponseDetail = typeof X12ResponseDetail.Type
