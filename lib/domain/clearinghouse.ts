import { Either, ParseResult, Schema } from "effect"
import { FieldIssue } from "./errors.js"
import { isEmailAddress } from "./primitives.js"
import { formatPath } from "./validate.js"

/**
 * A workspace's clearinghouse settings: who we are and who we send to in the X12 envelopes of an
 * 837P export. Every value ends up inside an X12 element, so every value is checked here once:
 * printable ASCII only, and none of the delimiters this service writes (`*` element, `:`
 * component, `^` repetition, `~` segment), since X12 005010 has no escape character.
 */

const X12_SAFE = /^[\x20-\x7E]*$/
const DELIMITERS = /[*~:^]/

const x12Text = (min: number, max: number, what: string) =>
  Schema.String.annotations({ message: () => `must be a string (${what})` }).pipe(
    Schema.filter((s) => {
      if (!X12_SAFE.test(s)) return "must hold printable ASCII characters only"
      if (DELIMITERS.test(s)) return "must not contain the X12 delimiters * ~ : ^"
      if (s.trim() !== s) return "must not start or end with a space"
      if (s.length < min || s.length > max) return `must be ${min} to ${max} characters`
      return true
    })
  )

/** ISA06/ISA08: padded to 15 characters in the ISA, and reused as GS02/GS03 (2 to 15 characters). */
const InterchangeId = x12Text(2, 15, "an interchange id")

export const ClearinghouseSubmitter = Schema.Struct({
  /** NM103 of loop 1000A. */
  name: x12Text(1, 60, "the submitter's name"),
  /** NM109 of loop 1000A: the submitter id the clearinghouse assigned (ETIN). */
  id: x12Text(2, 80, "the submitter id"),
  contact_name: x12Text(1, 60, "the contact's name"),
  contact_phone: Schema.optionalWith(
    Schema.String.pipe(Schema.filter((s) => /^\d{10}$/.test(s) || "must be 10 digits (area code and number)")),
    { exact: true }
  ),
  contact_email: Schema.optionalWith(
    x12Text(3, 256, "an email address").pipe(
      Schema.filter((s) => isEmailAddress(s) || "must be an email address")
    ),
    { exact: true }
  )
}).pipe(
  // PER requires at least one communication number (PER03/PER04).
  Schema.filter((s) =>
    s.contact_phone === undefined && s.contact_email === undefined
      ? { path: ["contact_phone"], message: "contact_phone or contact_email is required" }
      : undefined
  )
)

export const ClearinghouseReceiver = Schema.Struct({
  /** NM103 of loop 1000B. */
  name: x12Text(1, 60, "the receiver's name"),
  /** NM109 of loop 1000B: the receiver's ETIN. */
  id: x12Text(2, 80, "the receiver id")
})

const USAGE_MESSAGE = "must be T (test) or P (production)"

export const ClearinghouseSettings = Schema.Struct({
  interchange_sender_id: InterchangeId,
  interchange_receiver_id: InterchangeId,
  submitter: ClearinghouseSubmitter,
  receiver: ClearinghouseReceiver,
  /** ISA15: T for test interchanges, P for production. */
  usage: Schema.String.annotations({ message: () => USAGE_MESSAGE }).pipe(
    Schema.filter((s): s is "T" | "P" => s === "T" || s === "P", { message: () => USAGE_MESSAGE })
  )
})
export type ClearinghouseSettings = typeof ClearinghouseSettings.Type

/** The settings broke one or more rules; every problem is listed with its path. */
export class InvalidClearinghouseSettings extends Schema.TaggedError<InvalidClearinghouseSettings>()(
  "InvalidClearinghouseSettings",
  { errors: Schema.Array(FieldIssue) }
) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

const decode = Schema.decodeUnknownEither(ClearinghouseSettings, { errors: "all", onExcessProperty: "ignore" })

/** Checks settings from an untrusted source (a request body, a stored row) against every rule. */
export const decodeClearinghouseSettings = (
  input: unknown
): Either.Either<ClearinghouseSettings, InvalidClearinghouseSettings> =>
  Either.mapLeft(
    decode(input),
    (error) =>
      new InvalidClearinghouseSettings({
        errors: ParseResult.ArrayFormatter.formatErrorSync(error).map(
          (i) =>
            new FieldIssue({ path: formatPath(i.path), message: i._tag === "Missing" ? "is required" : i.message })
        )
      })
  )
