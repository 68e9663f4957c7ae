import { Effect } from "effect"
import { ClaimStatuses } from "../domain/claim-status.js"
import { type EncounterWithClaim, totalChargeCents } from "../domain/encounter.js"
import { type EncounterSummary, toEncounterSummary } from "../domain/encounter-summary.js"
import { FieldIssue, InvalidQuery } from "../domain/errors.js"
import type { WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, type Key, type Page, toPage, tokenScope } from "../domain/page.js"
import { Clock } from "../ports/clock.js"
import { type ClaimWorkScan, Storage } from "../ports/storage.js"

export const ClaimWorkSorts = ["age", "amount"] as const
export const ClaimWorkOrders = ["desc", "asc"] as const

export interface ClaimWorkQuery {
  /** The claim status whose encounters to list (any status of the vocabulary). */
  readonly status?: string | undefined
  /** `age` (days in the status; the default) or `amount` (the billed amount). */
  readonly sort?: string | undefined
  /** `desc` (the default: longest in the status, or largest amount, first) or `asc`. */
  readonly order?: string | undefined
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/** One encounter of a status's work list: its row, and how many whole days its claim has been in the status. */
export interface ClaimWorkItem extends EncounterSummary {
  readonly days_in_status: number
}

const DAY_MS = 86_400_000

const oneOf = (path: string, values: ReadonlyArray<string>, value: string | undefined, issues: Array<FieldIssue>) => {
  if (value === undefined || values.includes(value)) return
  issues.push(new FieldIssue({ path, message: `must be one of ${values.join(", ")}` }))
}

/**
 * A status's work list: the encounters whose latest claim is in `status`, by age in the status
 * (from `status_changed_at`) or by billed amount, keyset-paged both ways. Each page reads its own
 * rows along an index on (workspace, status, the sort's value, id), whatever the status holds.
 */
export const listClaimWork = (workspaceId: WorkspaceId, query: ClaimWorkQuery) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const issues: Array<FieldIssue> = []
    if (query.status === undefined) issues.push(new FieldIssue({ path: "status", message: "is required" }))
    oneOf("status", ClaimStatuses, query.status, issues)
    oneOf("sort", ClaimWorkSorts, query.sort, issues)
    oneOf("order", ClaimWorkOrders, query.order, issues)
    if (issues.length > 0 || query.status === undefined) return yield* new InvalidQuery({ errors: issues })
    const byAmount = query.sort === "amount"
    const descending = query.order !== "asc"
    // Longest in the status first is the oldest status time first.
    const scan: Omit<ClaimWorkScan, "limit" | "position"> = {
      status: query.status,
      by: byAmount ? "billed_cents" : "status_changed_at",
      descending: byAmount ? descending : !descending
    }
    const scope = tokenScope([workspaceId, "claim-work", scan.status, scan.by, scan.descending])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    // The key's first part is compared with a number or a text column: a token of the other kind is refused.
    if (position !== undefined && typeof position.key[0] !== (byAmount ? "number" : "string")) {
      return yield* new InvalidQuery({ errors: [new FieldIssue({ path: "page_token", message: "is not a valid page token" })] })
    }
    const rows = yield* (yield* Storage).listClaimWork(workspaceId, { ...scan, position, limit })
    const now = (yield* Clock).now()
    // The stored billed_cents is this sum (`searchColumns`).
    const keyOf = (r: EncounterWithClaim): Key => [byAmount ? totalChargeCents(r.encounter.payload.service_lines) : r.claim.status_changed_at, r.encounter.id]
    const page: Page<ClaimWorkItem> = toPage(rows, limit, position, keyOf, scope, (r) => ({
      ...toEncounterSummary(r),
      days_in_status: Math.max(0, Math.floor((now - Date.parse(r.claim.status_changed_at)) / DAY_MS))
    }))
    return page
  })
