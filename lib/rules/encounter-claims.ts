import { Effect, Option } from "effect"
import { MAX_CLAIMS_PER_ENCOUNTER } from "../domain/claim-correction.js"
import { type Claim, type ClaimRecord, type EncounterWithClaim, toClaim } from "../domain/encounter.js"
import { ClaimNotFound, EncounterNotFound, type StorageError } from "../domain/errors.js"
import { ClaimId, EncounterId, isUuid, type WorkspaceId } from "../domain/ids.js"
import { REMITTANCES_SHOWN, type RemittanceRecord } from "../domain/remittance.js"
import { Storage } from "../ports/storage.js"

/** One claim of an encounter with its most recent remittances (oldest first) and whether it has more. */
export interface ClaimWithRemittances {
  readonly claim: ClaimRecord
  readonly remittances: ReadonlyArray<RemittanceRecord>
  readonly more_remittances: boolean
}

/** A claim's most recent remittances, oldest first (at most `REMITTANCES_SHOWN`), and whether it has more. */
const remittancesOf = (ws: WorkspaceId, claim: ClaimRecord) =>
  Effect.map(Effect.flatMap(Storage, (s) => s.page("remittances", ws, { where: { claim_id: claim.id }, limit: REMITTANCES_SHOWN })), (newest) => ({
    claim,
    remittances: newest.slice(0, REMITTANCES_SHOWN).reverse(),
    more_remittances: newest.length > REMITTANCES_SHOWN
  }))

/** Every claim of an encounter, oldest first, each with its remittances (at most `MAX_CLAIMS_PER_ENCOUNTER`). */
const claimsOf = (ws: WorkspaceId, encounterId: EncounterId) =>
  Effect.gen(function* () {
    const newest = yield* (yield* Storage).page("claims", ws, { where: { encounter_id: encounterId }, limit: MAX_CLAIMS_PER_ENCOUNTER })
    return yield* Effect.forEach(newest.slice(0, MAX_CLAIMS_PER_ENCOUNTER).reverse(), (c) => remittancesOf(ws, c))
  })

/** An encounter's claims in the normalized shape, oldest first; another workspace's encounter is not found. */
export const listEncounterClaims = (workspaceId: WorkspaceId, encounterId: string) =>
  Effect.gen(function* () {
    if (!isUuid(encounterId)) return yield* new EncounterNotFound({ id: encounterId })
    const found = yield* (yield* Storage).findEncounter(workspaceId, EncounterId.make(encounterId))
    if (Option.isNone(found)) return yield* new EncounterNotFound({ id: encounterId })
    const { encounter } = found.value
    const claims = yield* claimsOf(workspaceId, encounter.id)
    return claims.map((c): Claim => toClaim(encounter.payload, c.claim, c.remittances, c.more_remittances))
  })

/** One claim in the normalized shape, with the content it was billed from; another workspace's is not found. */
export const getClaim = (workspaceId: WorkspaceId, claimId: string) =>
  Effect.gen(function* () {
    if (!isUuid(claimId)) return yield* new ClaimNotFound({ id: claimId })
    const found = yield* (yield* Storage).findClaim(workspaceId, ClaimId.make(claimId))
    if (Option.isNone(found)) return yield* new ClaimNotFound({ id: claimId })
    const { encounter, claim, remittances, more_remittances } = found.value
    return toClaim(encounter.payload, claim, remittances, more_remittances)
  })

/**
 * Reads of encounters that show every claim (the compat shape): each read whose latest claim came
 * from a correction gets its encounter's claims (`all_claims`); an encounter whose latest claim is
 * its first has no other, and costs no read.
 */
export const withAllClaims = <A extends EncounterWithClaim>(workspaceId: WorkspaceId, read: A): Effect.Effect<A, StorageError, Storage> =>
  read.claim.resubmission_original_claim_id === null
    ? Effect.succeed(read)
    : Effect.map(claimsOf(workspaceId, read.encounter.id), (all_claims) => ({ ...read, all_claims }))
