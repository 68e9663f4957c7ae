import { Effect } from "effect"
import { ClaimStatuses, isClaimStatus } from "../domain/claim-status.js"
import type { WorkspaceId } from "../domain/ids.js"
import { type ClaimStatusCount, Storage } from "../ports/storage.js"

/**
 * How many encounters' latest claims are in each status, exactly, and what they bill together (the
 * sum of their service lines' charges): every status of the vocabulary in its order (zero
 * included), then any other stored status (the vocabulary may grow). One counting read along the
 * (workspace, latest claim status, billed_cents) index: it reads index entries only, one per
 * encounter of the workspace.
 */
export const countClaimsByStatus = (workspaceId: WorkspaceId) =>
  Effect.gen(function* () {
    const counted = yield* (yield* Storage).countClaimStatuses(workspaceId)
    const byStatus = new Map(counted.map((c) => [c.status, c]))
    const known = ClaimStatuses.map((status): ClaimStatusCount => byStatus.get(status) ?? { status, count: 0, billed_cents: 0 })
    const others = counted.filter((c) => !isClaimStatus(c.status)).sort((a, b) => (a.status < b.status ? -1 : 1))
    return [...known, ...others]
  })
