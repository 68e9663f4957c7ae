import { Effect, Option } from "effect"
import { commit } from "./commit.js"
import { allowedTransitions } from "../domain/claim-status.js"
import { claimPayload, type EncounterWithClaim } from "../domain/encounter.js"
import { toRemittance } from "../domain/remittance.js"
import { ClaimNotFound } from "../domain/errors.js"
import { ClaimId, EventId, isUuid, type WorkspaceId } from "../domain/ids.js"
import { BatchTransitionsRefused, ControlNumbersExhausted } from "../domain/x12-exchange-errors.js"
import { toX12Batch, type X12Batch, type X12BatchRecord } from "../domain/x12-exchange.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, type Step, update } from "../ports/write.js"
import { interchangeControlNumber } from "../x12/envelope.js"
import { ClaimsNotExportable, ExportProblem, InvalidExportRequest } from "../x12/errors.js"
import { build837P } from "../x12/export-837p/build.js"
import type { ExportClaim } from "../x12/export-837p/claim.js"
import { statusUpdated } from "./change-claim-status.js"
import { statusMove, transactionIdsAdded } from "./claim-writes.js"
import { requireClearinghouse } from "./clearinghouse-settings.js"

/** ISA13 has nine digits. */
const MAX_CONTROL = 999_999_999

const findClaim = (workspaceId: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    if (!isUuid(id)) return yield* new ClaimNotFound({ id })
    const found = yield* (yield* Storage).findClaim(workspaceId, ClaimId.make(id))
    if (Option.isNone(found)) return yield* new ClaimNotFound({ id })
    return found.value
  })

/**
 * A claim as the 837P carries it: the content it is billed from, its frequency code and, for a
 * claim to the secondary payer, its primary claim's newest remittance.
 */
const exportClaim = (workspaceId: WorkspaceId, { claim, encounter }: EncounterWithClaim) =>
  Effect.gen(function* () {
    const payload = claimPayload(encounter.payload, claim)
    const base: ExportClaim = {
      claim_id: claim.id,
      patient_control_number: claim.patient_control_number,
      payload,
      frequency_code: claim.frequency_code,
      original_payer_claim_control_number: claim.original_payer_claim_control_number
    }
    if (claim.primary_claim_id === null) return base
    const [newest] = yield* (yield* Storage).page("remittances", workspaceId, { where: { claim_id: claim.primary_claim_id }, limit: 1 })
    if (newest === undefined || payload.subscriber_primary === undefined) {
      const problem = new ExportProblem({ field: "subscriber_primary", message: "the primary claim's remittance and subscriber are needed to bill the secondary payer" })
      return yield* new ClaimsNotExportable({ claims: [{ claim_id: claim.id, problems: [problem] }] })
    }
    return { ...base, primary: { subscriber: payload.subscriber_primary, remittance: toRemittance(newest) } }
  })

/**
 * One claim as an 837P interchange, for a look before sending: nothing is stored or moved. It
 * carries the control number the next batch would take.
 */
export const preview837P = (workspaceId: WorkspaceId, claimId: string) =>
  Effect.gen(function* () {
    // Another workspace's claim is not found, whatever the settings.
    const found = yield* findClaim(workspaceId, claimId)
    const settings = yield* requireClearinghouse(workspaceId)
    const next = Math.min(settings.last_control_number + 1, MAX_CONTROL)
    const built = yield* build837P({
      settings: settings.settings,
      interchange_control_number: next,
      group_control_number: next,
      first_transaction_set_control_number: 1,
      created_at: new Date((yield* Clock).now()),
      claims: [yield* exportClaim(workspaceId, found)]
    })
    return built.text
  })

/** Most claims per batch: what a clinic sends in a day, well under one transaction set's 5000. */
export const MAX_BATCH_CLAIMS = 500

const batchRequestProblem = (claimIds: ReadonlyArray<string>): InvalidExportRequest | undefined => {
  if (claimIds.length < 1 || claimIds.length > MAX_BATCH_CLAIMS) {
    return new InvalidExportRequest({ field: "claim_ids", reason: `must hold 1 to ${MAX_BATCH_CLAIMS} claim ids` })
  }
  const seen = new Set<string>()
  for (const [i, id] of claimIds.entries()) {
    if (seen.has(id)) return new InvalidExportRequest({ field: `claim_ids[${i}]`, reason: `repeats the claim ${id}` })
    seen.add(id)
  }
  return undefined
}

/**
 * What a caller does with a built batch before it is committed (the CLI writes its file there):
 * a failure refuses the batch, so nothing is stored and no claim moves. It may run more than once
 * when the write lost a race and the batch is built again (another control number); only the
 * batch of its last run can be the one committed.
 */
export type BeforeBatchCommit<E, R> = (batch: X12BatchRecord) => Effect.Effect<void, E, R>

/**
 * Sends claims as one 837P batch, all or nothing: in one write the workspace's control number
 * counter moves on (compare-and-set), every claim moves to `submitted_to_payer` with its
 * StatusUpdated event (compare-and-set on the status read), and the batch is stored with its
 * bytes. A claim that cannot move refuses the batch (`BatchTransitionsRefused`), as does one the
 * 837P cannot carry (`ClaimsNotExportable`); a write that lost a race is computed again.
 * `beforeCommit` runs on the built batch just before the write (see `BeforeBatchCommit`).
 */
export const createX12Batch = <E = never, R = never>(
  workspaceId: WorkspaceId,
  claimIds: ReadonlyArray<string>,
  beforeCommit?: BeforeBatchCommit<E, R>
) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    const ids = yield* Ids
    const invalid = batchRequestProblem(claimIds)
    if (invalid !== undefined) return yield* invalid
    for (;;) {
      const found: Array<EncounterWithClaim> = []
      for (const id of claimIds) found.push(yield* findClaim(workspaceId, id))
      const settings = yield* requireClearinghouse(workspaceId)
      const refused = found
        .filter(({ claim }) => !allowedTransitions(claim.status).includes("submitted_to_payer"))
        .map(({ claim }) => ({ claim_id: claim.id, from: claim.status, allowed: allowedTransitions(claim.status) }))
      if (refused.length > 0) return yield* new BatchTransitionsRefused({ claims: refused })
      const control = settings.last_control_number + 1
      if (control > MAX_CONTROL) return yield* new ControlNumbersExhausted()
      const now = clock.now()
      const at = isoTime(now)
      const built = yield* build837P({
        settings: settings.settings,
        interchange_control_number: control,
        group_control_number: control,
        first_transaction_set_control_number: 1,
        created_at: new Date(now),
        claims: yield* Effect.forEach(found, (f) => exportClaim(workspaceId, f))
      })
      const batch: X12BatchRecord = {
        id: ids.next(),
        workspace_id: workspaceId,
        created_at: at,
        interchange_control_number: control,
        group_control_number: control,
        claim_ids: found.map(({ claim }) => claim.id),
        transaction_sets: built.transaction_sets,
        file: new TextEncoder().encode(built.text)
      }
      const note = `837P batch ${batch.id} (interchange ${control})`
      const moves: Array<Step<"stale">> = found.flatMap(({ encounter, claim }) =>
        statusMove(
          workspaceId,
          encounter,
          claim,
          "submitted_to_payer",
          at,
          statusUpdated(workspaceId, EventId.make(ids.next()), encounter, claim, "submitted_to_payer", at, note)
        ).steps
      )
      // Each claim keeps the exchange's identifiers of what carried it: the interchange and its transaction set.
      const setOf = new Map(built.transaction_sets.flatMap((set) => set.claim_ids.map((id) => [id, set.control_number] as const)))
      const identified = found.flatMap(({ encounter, claim }) =>
        transactionIdsAdded(workspaceId, { encounterId: encounter.id, latestClaimId: encounter.latest_claim_id, claimId: claim.id }, claim, [
          `ISA13:${interchangeControlNumber(control)}`,
          `ST02:${setOf.get(claim.id) ?? ""}`
        ])
      )
      if (beforeCommit !== undefined) yield* beforeCommit(batch)
      const result = yield* commit<"stale">({
        operation: "createX12Batch",
        steps: [
          update(
            "clearinghouse_settings",
            settings.id,
            { workspace_id: workspaceId, last_control_number: settings.last_control_number },
            { last_control_number: control },
            "stale"
          ),
          ...moves,
          ...identified,
          insert("x12_batches", batch)
        ]
      })
      if (result._tag === "Written") return toX12Batch(batch) satisfies X12Batch
    }
  })

