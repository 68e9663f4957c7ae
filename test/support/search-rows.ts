/**
 * Synthetic search values for bulk-loaded encounters (the query-plan test, bench/console.ts): what
 * `searchColumns` would derive from a varied workload. Deterministic per row: about 5,400 last names
 * (a few dozen encounters each), birth dates over 80 years, a date of service within two weeks
 * before the encounter's creation, eight payers and a fifth self-pay, amounts up to $1,000.
 */

const FIRST = ["an", "bel", "cor", "dan", "el", "fer", "gar", "hol", "ing", "jo", "kel", "lan", "mar", "nor", "ol", "par", "quin", "ros", "sam", "tor", "ul", "ven", "wil", "xan", "yor", "zel"]
const SECOND = ["ab", "ber", "ca", "dor", "en", "fi", "go", "ha", "is", "ju", "ko", "li", "mo", "na", "or", "pe", "qui", "ri", "su", "ta", "un", "vi", "wa", "xe", "yu", "zo"]
const ENDING = ["son", "ley", "ton", "man", "berg", "ez", "ova", "er"]
export const PAYERS = ["MCR01", "MCD01", "BCBS1", "AET01", "UHC01", "CIG01", "HUM01", "KPR01", null, null] as const

const DAY = 86_400_000
const BIRTHS_FROM = Date.parse("1940-01-01T00:00:00.000Z")

/** A well-mixed 32-bit hash of a row number (so that neighbouring rows differ). */
const mix = (i: number): number => {
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

export interface SearchValues {
  readonly patient_last_name_lower: string
  readonly patient_date_of_birth: string
  readonly date_of_service: string
  readonly payer_id: string | null
  readonly billed_cents: number
}

/** The search columns of row `i`, created at `createdMs`. */
export const searchValues = (i: number, createdMs: number): SearchValues => {
  const h = mix(i)
  return {
    patient_last_name_lower: `${FIRST[h % 26]}${SECOND[(h >>> 5) % 26]}${ENDING[(h >>> 10) % 8]}`,
    patient_date_of_birth: new Date(BIRTHS_FROM + ((h >>> 3) % 29_000) * DAY).toISOString().slice(0, 10),
    date_of_service: new Date(createdMs - ((h >>> 7) % 14) * DAY).toISOString().slice(0, 10),
    payer_id: PAYERS[(h >>> 11) % PAYERS.length] ?? null,
    billed_cents: 1000 + ((h >>> 2) % 99_000)
  }
}
