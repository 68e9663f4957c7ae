import { Effect, Option } from "effect"
import type { WorkspaceId } from "../domain/ids.js"
import type { X12BatchRecord } from "../domain/x12-exchange.js"
import { Storage } from "../ports/storage.js"
import type { Ack277CA } from "../x12/read/ack-277ca.js"
import { batchOfReference, type SentClaim, sentClaimsOf } from "../x12/read/sent-837p.js"
import { type StatusAction, statusFrom277Batch, statusFrom277Claim, withBatchStatus } from "../x12/status-mapping.js"
import { detailOf277 } from "./task-causes-x12.js"
import { lastOf, noted, notedAction } from "./x12-import-bounds.js"
import type { ImportPlan } from "./x12-import-plan.js"
import { DECIDE_PACE, pause } from "./x12-import-read.js"

/**
 * The claims a 277CA's batch-level (2200B) and provider-level (2200C) rejections cover, by PCN:
 * every claim of the transaction set whose BHT03 the 2200B's TRN02 echoes, or of the billing
 * provider in it, read back from the batch as sent. A rejection naming no batch of ours is listed
 * as unmatched.
 */
const batchRejections = (ws: WorkspaceId, plan: ImportPlan, ack: Ack277CA) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const covered = new Map<string, StatusAction>()
    const batches = new Map<number, X12BatchRecord | null>()
    const sets = new Map<string, ReadonlyArray<SentClaim> | null>()
    let i = 0
    for (const b of ack.batch_statuses) {
      if (++i % DECIDE_PACE === 0) yield* pause
      const action = statusFrom277Batch(b)
      if (action === undefined) continue
      const reference = b.batch_reference
      const group = reference === undefined ? undefined : batchOfReference(reference)
      let batch = group === undefined ? null : batches.get(group)
      if (batch === undefined && group !== undefined) {
        batch = Option.getOrNull(yield* storage.findX12BatchByGroup(ws, group))
        batches.set(group, batch)
      }
      let sent = reference === undefined ? null : sets.get(reference)
      if (sent === undefined && batch !== null && batch !== undefined && reference !== undefined) {
        sent = sentClaimsOf(new TextDecoder().decode(batch.file), reference) ?? null
        sets.set(reference, sent)
      }
      if (sent === null || sent === undefined) {
        plan.unmatched(null, `no 837P transaction set with BHT03 ${reference ?? "(2200B without TRN02)"}: ${action.note}`, action.detail ?? null)
        continue
      }
      const claims = b.level === "billing_provider" ? sent.filter((c) => c.billing_provider_npi === b.identifier) : sent
      if (claims.length === 0) plan.unmatched(null, `no claim of billing provider ${b.identifier ?? "(no NPI)"} in transaction set ${reference}: ${action.note}`, action.detail ?? null)
      for (const c of claims) covered.set(c.patient_control_number, action)
    }
    return covered
  })

/**
 * A 277CA decides per claim (2200D): a claim named again is decided by its last loop. A rejection
 * of a whole batch or billing provider rejects every claim it covers (`batchRejections`).
 */
export const plan277 = (ws: WorkspaceId, plan: ImportPlan, ack: Ack277CA, fileId: string) =>
  Effect.gen(function* () {
    const claims = lastOf(ack.claims, (c) => c.patient_control_number)
    const covered = yield* batchRejections(ws, plan, ack)
    // The payer's control number as the last loop that gives one says.
    const payerControl = new Map<string, string>()
    for (const c of ack.claims) if (c.payer_claim_control_number !== undefined) payerControl.set(c.patient_control_number, c.payer_claim_control_number)
    const pcns = [...claims.keys(), ...[...covered.keys()].filter((pcn) => !claims.has(pcn))]
    yield* plan.lookUp("patient_control_number", pcns)
    let i = 0
    for (const pcn of pcns) {
      if (++i % DECIDE_PACE === 0) yield* pause
      const own = claims.get(pcn)
      const count = own?.count ?? 1
      const t = yield* plan.byPcn(pcn)
      if (t === undefined) {
        plan.unmatched(pcn, noted(`no claim with patient control number ${pcn} (277CA TRN02)`, count))
        plan.done()
        continue
      }
      plan.payerControlNumber(t, payerControl.get(pcn))
      if (own?.entry.clearinghouse_trace_number !== undefined) plan.transactionIds(t, [`D9:${own.entry.clearinghouse_trace_number}`])
      const action = withBatchStatus(own === undefined ? undefined : statusFrom277Claim(own.entry), covered.get(pcn))
      if (action !== undefined) plan.apply(t, notedAction(action, count), own === undefined ? undefined : detailOf277(own.entry, fileId))
      plan.done()
    }
  })
