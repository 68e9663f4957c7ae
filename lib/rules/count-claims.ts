import { Effect } from "effect"
import { ClaimStatuses } from "../domain/claim-status.js"
import type { WorkspaceId } from "../domain/ids.js"
import { Storage } from "../ports/storage.js"

export interface StatusCount {
  readonly status: string
  /** Exact up to `cap`; `more` says there are further claims in this status. */
  readonly count: number
  readonly more: boolean
}

/**
 * How many encounters' latest claims are in each status, exact up to `cap` per status. The storage
 * port has no count: this reads at most `cap + 1` rows per status from the status-ordered index,
 * so its cost does not grow with the workspace.
 */
export const countClaimsByStatus = (workspaceId: WorkspaceId, cap: number) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    return yield* Effect.forEach(ClaimStatuses, (status) =>
      Effect.map(storage.listEncounters(workspaceId, { claim_status: status, limit: cap }), (rows): StatusCount => ({
        status,
        count: Math.min(rows.length, cap),
        more: rows.length > cap
      }))
    )
  })
