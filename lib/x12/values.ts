import { Either, Option } from "effect"
import { isCalendarDate } from "../domain/primitives.js"

/** Element value formats shared by the writer and the readers. */

/** Integer cents as X12 money: dollars with two decimals (`12345` → `123.45`, `-50` → `-0.50`). */
export const formatCents = (cents: number): string => {
  const sign = cents < 0 ? "-" : ""
  const abs = Math.abs(cents)
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`
}

const AMOUNT = /^(-?)(\d*)(?:\.(\d*))?$/

/**
 * X12 money (`123.45`, `-12.5`, `100`, `.5`) as integer cents, read digit by digit so no float
 * rounding can creep in. More than two decimals are accepted only when the extra ones are zeros.
 */
export const parseCents = (text: string): Either.Either<number, string> => {
  const m = AMOUNT.exec(text)
  const whole = m?.[2] ?? ""
  const fraction = m?.[3] ?? ""
  if (m === null || (whole === "" && fraction === "")) return Either.left(`'${text}' is not an amount`)
  if (fraction.length > 2 && /[1-9]/.test(fraction.slice(2))) return Either.left(`'${text}' has more than 2 decimals`)
  if (whole.length > 13) return Either.left(`'${text}' is too large`)
  // An 835 of 10 MiB holds some 800,000 amounts: no padding or slicing for the usual one or two decimals.
  const hundredths = fraction.length === 0 ? 0 : fraction.length === 1 ? Number(fraction) * 10 : Number(fraction.length === 2 ? fraction : fraction.slice(0, 2))
  const cents = (whole === "" ? 0 : Number(whole) * 100) + hundredths
  return Either.right(m[1] === "-" && cents !== 0 ? -cents : cents)
}

/** `2026-01-15` → `20260115` (CCYYMMDD). */
export const formatDate = (isoDate: string): string => isoDate.replaceAll("-", "")

/** `20260115` → `2026-01-15`, when it names a real calendar day. */
export const parseDate8 = (text: string): Option.Option<string> => {
  if (!/^\d{8}$/.test(text)) return Option.none()
  const iso = `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`
  return isCalendarDate(iso) ? Option.some(iso) : Option.none()
}

const pad2 = (n: number) => String(n).padStart(2, "0")

/** The envelope's date and time fields, in UTC (the interchange carries no time zone). */
export const stamp = (at: Date) => {
  const ccyymmdd = `${at.getUTCFullYear()}${pad2(at.getUTCMonth() + 1)}${pad2(at.getUTCDate())}`
  return { ccyymmdd, yymmdd: ccyymmdd.slice(2), hhmm: `${pad2(at.getUTCHours())}${pad2(at.getUTCMinutes())}` }
}

/** A decimal string without insignificant zeros (`"1.50"` → `"1.5"`, `"02"` → `"2"`), as X12 R values are written. */
export const formatDecimal = (text: string): string => {
  const [whole = "0", fraction = ""] = text.split(".")
  const w = whole.replace(/^0+(?=\d)/, "")
  const f = fraction.replace(/0+$/, "")
  return f === "" ? w : `${w}.${f}`
}

const DELIMITER_OR_CONTROL = /[*~:^\x00-\x1F\x7F]/g

/**
 * Free text (names, addresses) made writable: accents dropped (`José` → `Jose`), anything outside
 * printable ASCII and any delimiter turned into a space, spaces collapsed, cut to `max`.
 * Identifiers are never cleaned this way: a changed identifier is a wrong one (see exportability).
 */
export const cleanText = (value: string, max: number): string =>
  value
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(DELIMITER_OR_CONTROL, " ")
    .replace(/[^\x20-\x7E]/g, " ")
    .replace(/ +/g, " ")
    .trim()
    .slice(0, max)
    .trim()

/** True when an identifier can be written as it is: printable ASCII, no delimiter, no edge spaces. */
export const isX12Safe = (value: string): boolean =>
  /^[\x20-\x7E]+$/.test(value) && !/[*~:^]/.test(value) && value.trim() === value
