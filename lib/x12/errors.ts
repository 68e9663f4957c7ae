import { Schema } from "effect"

/**
 * Errors of the X12 core, as values. Positions are 1-based segment positions in the interchange
 * (ISA is segment 1), so an operator can find the place in the file.
 */

/** A file could not be read: malformed envelope, bad counts, or a segment the reader cannot interpret. */
export class X12ReadError extends Schema.TaggedError<X12ReadError>()("X12ReadError", {
  /** The id of the segment at fault (what was found there, when the expected one is missing). */
  segment_id: Schema.String,
  position: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `${this.reason} at segment ${this.position} (${this.segment_id})`
  }
}

/** A value cannot be written into an element: it holds a delimiter or a non-printable character. */
export class X12WriteError extends Schema.TaggedError<X12WriteError>()("X12WriteError", {
  segment_id: Schema.String,
  position: Schema.Number,
  /** 1-based element number (`CLM01` is element 1 of CLM). */
  element: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `${this.segment_id}${String(this.element).padStart(2, "0")} ${this.reason} (segment ${this.position})`
  }
}

/** One reason a claim cannot go into an 837P, located by its path in the create payload. */
export class ExportProblem extends Schema.Class<ExportProblem>("ExportProblem")({
  field: Schema.String,
  message: Schema.String
}) {}

/** Some claims of an export are not exportable; each is listed with its problems. */
export class ClaimsNotExportable extends Schema.TaggedError<ClaimsNotExportable>()("ClaimsNotExportable", {
  claims: Schema.Array(Schema.Struct({ claim_id: Schema.String, problems: Schema.Array(ExportProblem) }))
}) {
  override get message() {
    return `${this.claims.length} claim(s) cannot be exported`
  }
}

/** The export request itself is unusable: a control number out of range, no claims, duplicate PCNs. */
export class InvalidExportRequest extends Schema.TaggedError<InvalidExportRequest>()("InvalidExportRequest", {
  field: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.field}: ${this.reason}`
  }
}
