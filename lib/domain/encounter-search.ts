import { foldName } from "./encounter.js"
import { FieldIssue } from "./errors.js"
import { isCalendarDate } from "./primitives.js"

/**
 * The filters that find an encounter (API `GET /api/encounters`, the console's Encounters view),
 * as a client sends them; each given filter narrows the list, together with the others.
 */
export interface EncounterSearch {
  /** A prefix of the patient's last name, in any case. */
  readonly patient_last_name?: string | undefined
  /** The patient's date of birth, `YYYY-MM-DD`. */
  readonly patient_date_of_birth?: string | undefined
  /** Inclusive bounds on the date of service (the encounter's, or its first line's), `YYYY-MM-DD`. */
  readonly date_of_service_from?: string | undefined
  readonly date_of_service_to?: string | undefined
  /** A prefix of the external id, case as sent. */
  readonly external_id_prefix?: string | undefined
  /** The primary insurance card's payer id, exactly. */
  readonly payer_id?: string | undefined
}

/** The query parameters of `EncounterSearch`, in the order problems are reported. */
export const EncounterSearchParameters = [
  "patient_last_name",
  "patient_date_of_birth",
  "date_of_service_from",
  "date_of_service_to",
  "external_id_prefix",
  "payer_id"
] as const satisfies ReadonlyArray<keyof EncounterSearch>

/** The checked search as storage takes it (`EncounterScan`'s search part). */
export interface CheckedSearch {
  /** A prefix of `patient_last_name_lower` (already folded with `foldName`). */
  readonly patient_last_name_prefix?: string | undefined
  readonly patient_date_of_birth?: string | undefined
  /** Inclusive bounds on `date_of_service`, `YYYY-MM-DD`. */
  readonly date_of_service_from?: string | undefined
  readonly date_of_service_to?: string | undefined
  readonly external_id_prefix?: string | undefined
  readonly payer_id?: string | undefined
}

/** The longest text filter: longer than any stored value it could match (external ids are at most 255). */
export const MAX_SEARCH_TEXT = 255

/**
 * Checks the search filters: text filters 1 to 255 characters, dates real calendar days, the date
 * of service range not reversed. Pushes each problem onto `issues` (at the parameter's name) and
 * answers the search in storage's terms (the name folded with `foldName`), or undefined when no
 * search filter was given.
 */
export const checkEncounterSearch = (q: EncounterSearch, issues: Array<FieldIssue>): CheckedSearch | undefined => {
  const text = (path: keyof EncounterSearch) => {
    const value = q[path]
    if (value !== undefined && (value.length === 0 || value.length > MAX_SEARCH_TEXT)) {
      issues.push(new FieldIssue({ path, message: `must be 1 to ${MAX_SEARCH_TEXT} characters` }))
    }
    return value
  }
  const date = (path: keyof EncounterSearch) => {
    const value = q[path]
    if (value !== undefined && !isCalendarDate(value)) issues.push(new FieldIssue({ path, message: "must be a calendar date YYYY-MM-DD" }))
    return value
  }
  const name = text("patient_last_name")
  const birth = date("patient_date_of_birth")
  const from = date("date_of_service_from")
  const to = date("date_of_service_to")
  if (from !== undefined && to !== undefined && isCalendarDate(from) && isCalendarDate(to) && to < from) {
    issues.push(new FieldIssue({ path: "date_of_service_to", message: "must not be before date_of_service_from" }))
  }
  const search: CheckedSearch = {
    patient_last_name_prefix: name === undefined ? undefined : foldName(name),
    patient_date_of_birth: birth,
    date_of_service_from: from,
    date_of_service_to: to,
    external_id_prefix: text("external_id_prefix"),
    payer_id: text("payer_id")
  }
  return Object.values(search).every((v) => v === undefined) ? undefined : search
}

/** The search's part of a page token's scope (a token is bound to its filters). */
export const searchScope = (search: CheckedSearch): ReadonlyArray<string | null> => [
  search.patient_last_name_prefix ?? null,
  search.patient_date_of_birth ?? null,
  search.date_of_service_from ?? null,
  search.date_of_service_to ?? null,
  search.external_id_prefix ?? null,
  search.payer_id ?? null
]
