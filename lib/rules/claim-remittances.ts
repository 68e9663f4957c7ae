import { Effect } from "effect"
import { ClaimNotFound } from "../domain/errors.js"
import { ClaimId, isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, toPage, tokenScope } from "../domain/page.js"
import { toRemittance } from "../domain/remittance.js"
import { Storage } from "../ports/storage.js"

export interface RemittancePageQuery {
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/**
 * A claim's remittances, newest first, keyset-paged both ways: all of them, where a read of the
 * claim carries only its most recent (`REMITTANCES_SHOWN`). Another workspace's claim is not found.
 */
export const listClaimRemittances = (workspaceId: WorkspaceId, claimId: string, query: RemittancePageQuery) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const scope = tokenScope([workspaceId, "claim-remittances", claimId])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const storage = yield* Storage
    if (!isUuid(claimId) || (yield* storage.findClaims(workspaceId, "id", [claimId])).length === 0) {
      return yield* new ClaimNotFound({ id: claimId })
    }
    const rows = yield* storage.page("remittances", workspaceId, { where: { claim_id: ClaimId.make(claimId) }, position, limit })
    return toPage(rows, limit, position, (r) => [r.received_at, r.id], scope, toRemittance)
  })
