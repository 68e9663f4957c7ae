import { Schema } from "effect"
import { boundedList } from "./bounded-list.js"

/**
 * Field-level building blocks of the create payload. Each rule lives here once and carries the
 * message a caller sees next to the field's path.
 */

/**
 * A closed vocabulary, checked with one set lookup; the message lists the values when the list
 * is short (a union of literals would report one line per member).
 */
export const oneOf = <const A extends ReadonlyArray<string>>(what: string, values: A) => {
  const allowed: ReadonlySet<string> = new Set(values)
  // Every allowed value is named, however many: one error tells the caller what would be accepted.
  const message = () => (values.length <= 12 ? `must be one of ${values.join(", ")}` : `must be a valid ${what}, one of ${values.join(", ")}`)
  return Schema.String.annotations({ message }).pipe(
    Schema.filter((s): s is A[number] => allowed.has(s), { message }),
    Schema.annotations({ jsonSchema: { type: "string", enum: values } })
  )
}

/**
 * An optional key. The vendor reads `null` as absent; `validateEncounterCreate` drops null-valued
 * keys before decoding, so the schema only sees absent or present.
 */
export const opt = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const Str = Schema.String.annotations({ message: () => "must be a string" })

export const NonEmpty = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "must not be empty" })
).annotations({ message: () => "must be a non-empty string" })

export const Bool = Schema.Boolean.annotations({ message: () => "must be true or false" })

export const Num = Schema.Number.pipe(Schema.finite()).annotations({ message: () => "must be a number" })

/** Money: integer cents, never a float. */
export const Cents = Schema.Number.pipe(
  Schema.filter((n) => Number.isSafeInteger(n) && n >= 0, { message: () => "must be a non-negative integer (cents)" })
).annotations({ message: () => "must be a non-negative integer (cents)" })

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** True for a `YYYY-MM-DD` string naming a real calendar day. */
export const isCalendarDate = (s: string): boolean => {
  const m = DATE.exec(s)
  if (m === null) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(Date.UTC(y, mo - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}

export const DateString = Schema.String.pipe(
  Schema.filter(isCalendarDate, { message: () => "must be a calendar date YYYY-MM-DD" })
).annotations({ message: () => "must be a calendar date YYYY-MM-DD" })

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/

export const DateTimeString = Schema.String.pipe(
  Schema.filter((s) => DATETIME.test(s) && isCalendarDate(s.slice(0, 10)) && !Number.isNaN(Date.parse(s)), {
    message: () => "must be an ISO 8601 date-time with a time zone"
  })
).annotations({ message: () => "must be an ISO 8601 date-time with a time zone" })

/** NPI check digit: Luhn over the prefix 80840 and the first nine digits. */
export const isValidNpi = (npi: string): boolean => {
  if (!/^\d{10}$/.test(npi)) return false
  const digits = `80840${npi.slice(0, 9)}`
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    // Double every second digit counting from the right of the payload (the check digit is appended).
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 0) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return (10 - (sum % 10)) % 10 === Number(npi[9])
}

export const Npi = Schema.String.pipe(
  Schema.filter(isValidNpi, { message: () => "must be a 10-digit NPI with a valid check digit" })
).annotations({ message: () => "must be a 10-digit NPI with a valid check digit" })

export const TaxId = Schema.String.pipe(
  Schema.filter((s) => /^\d{9}$/.test(s), { message: () => "must be 9 digits" })
).annotations({ message: () => "must be 9 digits" })

export const Zip5 = Schema.String.pipe(
  Schema.filter((s) => /^\d{5}$/.test(s), { message: () => "must be 5 digits" })
).annotations({ message: () => "must be 5 digits" })

export const Zip4 = Schema.String.pipe(
  Schema.filter((s) => /^\d{4}$/.test(s), { message: () => "must be 4 digits" })
).annotations({ message: () => "must be 4 digits" })

/**
 * What `/^[^\s@]+@[^\s@]+\.[^\s@]+$/` accepts (no space, one @ after something, a dot inside
 * the domain), checked in one pass: that pattern backtracks quadratically on a long domain of
 * dots ("a@a.a.a...@"), seconds for a few hundred kilobytes.
 */
export const isEmailAddress = (s: string): boolean => {
  if (/\s/.test(s)) return false
  const at = s.indexOf("@")
  if (at < 1 || s.indexOf("@", at + 1) !== -1) return false
  const dot = s.indexOf(".", at + 2)
  return dot !== -1 && dot < s.length - 1
}

export const Email = Schema.String.pipe(
  Schema.filter(isEmailAddress, { message: () => "must be an email address" })
).annotations({ message: () => "must be an email address" })

const DECIMAL = /^\d{1,9}(\.\d{1,3})?$/
const QUANTITY_MESSAGE = "must be a positive number or decimal string with at most 3 decimals"

/**
 * Quantity: a JSON number or the vendor's decimal string ("1", "0.5"), positive. Decoded to the
 * decimal string (the vendor's wire form); normalized reads turn it back into a number.
 */
export const Quantity = Schema.transform(
  Schema.Union(Schema.Number, Schema.String).annotations({ message: () => QUANTITY_MESSAGE }),
  Schema.String,
  { strict: true, decode: (v) => (typeof v === "number" ? String(v) : v), encode: (s) => s }
).pipe(Schema.filter((s) => DECIMAL.test(s) && Number(s) > 0, { message: () => QUANTITY_MESSAGE }))

/** Diagnosis pointers are zero-based indexes into `diagnoses` (the vendor's base). */
export const DiagnosisPointer = Schema.Number.pipe(
  Schema.filter((n) => Number.isInteger(n) && n >= 0, { message: () => "must be a zero-based index (integer >= 0)" })
).annotations({ message: () => "must be a zero-based index (integer >= 0)" })

/** The limit of a payload list that names none. */
export const DEFAULT_MAX_ENTRIES = 1000

/**
 * Lists in the payload are bounded so that a hostile body cannot make validation expensive: the
 * length is checked before any entry is decoded (`boundedList`).
 */
export const List = <A, I>(item: Schema.Schema<A, I, never>, max = DEFAULT_MAX_ENTRIES) => boundedList(item, max)
