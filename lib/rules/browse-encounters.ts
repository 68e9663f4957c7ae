import { Effect } from "effect"
import { ClaimStatuses } from "../domain/claim-status.js"
import { checkEncounterSearch, type EncounterSearch, EncounterSearchParameters, searchScope } from "../domain/encounter-search.js"
import { type EncounterSummary, toEncounterSummary } from "../domain/encounter-summary.js"
import { FieldIssue, InvalidQuery } from "../domain/errors.js"
import type { WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, type Page, type Position, toPage, tokenScope } from "../domain/page.js"
import { Storage } from "../ports/storage.js"

/** The console's filters: the API list's (empty values count as absent, as a form sends them) and a created range. */
export interface BrowseQuery extends EncounterSearch {
  readonly external_id?: string | undefined
  /** Any status of the vocabulary (the operator console filters on all of them). */
  readonly claim_status?: string | undefined
  /** Inclusive UTC days, `YYYY-MM-DD`, on the encounter's `created_at`. */
  readonly created_from?: string | undefined
  readonly created_to?: string | undefined
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

const DAY = /^\d{4}-\d{2}-\d{2}$/
const DAY_MS = 86_400_000
// Sorts before every id, so a scan from (day, MIN_ID) holds exactly the rows created before that day.
const MIN_ID = "00000000-0000-0000-0000-000000000000"

const dayStart = (path: string, value: string | undefined, issues: Array<FieldIssue>): number | undefined => {
  if (value === undefined || value === "") return undefined
  const ms = DAY.test(value) ? Date.parse(`${value}T00:00:00.000Z`) : Number.NaN
  if (Number.isNaN(ms)) {
    issues.push(new FieldIssue({ path, message: "must be a date YYYY-MM-DD" }))
    return undefined
  }
  return ms
}

/**
 * Encounter rows newest first, filtered by external id, claim status, the search filters and a
 * created range, keyset paged. The range costs no scan: the upper bound is where the scan starts (a position in the
 * `(created_at, id)` order), and the lower bound ends it, since rows come in that order.
 */
export const browseEncounters = (workspaceId: WorkspaceId, query: BrowseQuery) =>
  Effect.gen(function* () {
    const issues: Array<FieldIssue> = []
    const limit = yield* checkLimit(query.limit)
    if (query.claim_status !== undefined && !(ClaimStatuses as ReadonlyArray<string>).includes(query.claim_status)) {
      issues.push(new FieldIssue({ path: "claim_status", message: "must be a known claim status" }))
    }
    const given: Record<string, string> = {}
    for (const p of EncounterSearchParameters) {
      const value = query[p]
      if (value !== undefined && value !== "") given[p] = value
    }
    const search = checkEncounterSearch(given, issues)
    const from = dayStart("created_from", query.created_from, issues)
    const toDay = dayStart("created_to", query.created_to, issues)
    if (from !== undefined && toDay !== undefined && toDay < from) {
      issues.push(new FieldIssue({ path: "created_to", message: "must not be before created_from" }))
    }
    if (issues.length > 0) return yield* new InvalidQuery({ errors: issues })
    const lower = from === undefined ? undefined : new Date(from).toISOString()
    const upper = toDay === undefined ? undefined : new Date(toDay + DAY_MS).toISOString()
    const externalId = query.external_id === "" ? undefined : query.external_id
    const scope = tokenScope([
      workspaceId,
      "console-encounters",
      externalId ?? null,
      query.claim_status ?? null,
      lower ?? null,
      upper ?? null,
      ...(search === undefined ? [] : searchScope(search))
    ])
    const fromToken = query.page_token === undefined || query.page_token === "" ? undefined : yield* decodeToken(query.page_token, scope)
    // "Before the next day's first instant": strictly older than (upper, MIN_ID) is created_at < upper.
    const start: Position | undefined = upper === undefined ? undefined : { dir: "next", key: [upper, MIN_ID] }
    const storage = yield* Storage
    const rows = yield* storage.listEncounters(workspaceId, {
      ...search,
      external_id: externalId,
      claim_status: query.claim_status,
      position: fromToken ?? start,
      limit
    })
    // Rows outside the range can only trail the scan; dropping them also ends the paging there.
    const inRange = rows.filter(
      (r) => (lower === undefined || r.encounter.created_at >= lower) && (upper === undefined || r.encounter.created_at < upper)
    )
    const page: Page<EncounterSummary> = toPage(
      inRange,
      limit,
      fromToken,
      (r) => [r.encounter.created_at, r.encounter.id],
      scope,
      toEncounterSummary
    )
    return page
  })
