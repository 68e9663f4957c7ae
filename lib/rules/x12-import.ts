import { createHash } from "node:crypto"
import { commit } from "./commit.js"
import { Effect, Either, Option } from "effect"
import type { WorkspaceId } from "../domain/ids.js"
import {
  FILE_OUTCOMES_SHOWN,
  IMPORT_OUTCOMES_SHOWN,
  type InboundResult,
  summarize,
  toOutcome,
  type X12BatchRecord,
  type X12FileRecord
} from "../domain/x12-exchange.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert } from "../ports/write.js"
import type { Ack999 } from "../x12/read/ack-999.js"
import { type Action999, actionsFrom999, type StatusAction } from "../x12/status-mapping.js"
import { contentKeyOf } from "./x12-content-key.js"
import { plan277 } from "./x12-import-277.js"
import { plan835 } from "./x12-import-835.js"
import { detailOf999Set } from "./task-causes-x12.js"
import { boundUnmatched, lastOf, noted, notedAction } from "./x12-import-bounds.js"
import { DECIDE_PACE, parsePaced, pause, runWithPauses } from "./x12-import-read.js"
import { plan277Status } from "./status-check-answers.js"
import { type ImportPlan, makeImportPlan, type TaskDetail } from "./x12-import-plan.js"

/** One uploaded interchange, as received. */
export interface X12Upload {
  readonly workspace_id: WorkspaceId
  readonly body: Uint8Array
  readonly content_type: string
  readonly key_id?: string | null
}

/** How a 999's AK202 matches a set's ST02: as text, or as numbers (`0001` is set 1). */
const setKey = (control: string) => {
  const n = Number(control)
  return Number.isNaN(n) ? `=${control}` : `#${n}`
}

/**
 * A 999 decides per transaction set of a batch (or per batch). Acknowledgments of one set repeated
 * are one decision, the last; each claim of the sets decided gets the last decision that names
 * it, so a claim has one outcome however often the file names it.
 */
const plan999 = (ws: WorkspaceId, plan: ImportPlan, ack: Ack999, fileId: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    // Each set's errors, for the task its rejection makes.
    const setAcks = new Map(ack.groups.flatMap((g) => g.transaction_sets.map((s) => [`${g.group_control_number}|${setKey(s.control_number)}`, s] as const)))
    // Once per set, whatever the number of its claims: a set may carry a million IK4s.
    const details = new Map<Action999, TaskDetail>()
    const detailOf = (a: Action999): TaskDetail => {
      const known = details.get(a)
      if (known !== undefined) return known
      const set = a.transaction_set_control_number === undefined ? undefined : setAcks.get(`${a.group_control_number}|${setKey(a.transaction_set_control_number)}`)
      const detail = detailOf999Set(set ?? { error_codes: [], segment_errors: [] }, a.action.note, fileId)
      details.set(a, detail)
      return detail
    }
    const actions = lastOf(actionsFrom999(ack), (a) => `${a.group_control_number}|${a.transaction_set_control_number === undefined ? "" : setKey(a.transaction_set_control_number)}`)
    // At most MAX_999_GROUPS groups (x12-import-read.ts): each batch is read once, its sets indexed once.
    const batches = new Map<string, { readonly batch: X12BatchRecord; readonly sets: Map<string, X12BatchRecord["transaction_sets"][number]> } | null>()
    const decisions = new Map<string, { readonly action: StatusAction; readonly count: number; readonly batchId: string; readonly detail: TaskDetail }>()
    const unmatched = new Map<string, number>()
    const miss = (detail: string, count: number) => unmatched.set(detail, (unmatched.get(detail) ?? 0) + count)
    let i = 0
    for (const { entry: a, count } of actions.values()) {
      if (++i % DECIDE_PACE === 0) yield* pause
      let found = batches.get(a.group_control_number)
      if (found === undefined) {
        const group = /^\d{1,9}$/.test(a.group_control_number) ? Number(a.group_control_number) : undefined
        const batch = group === undefined ? Option.none() : yield* storage.findX12BatchByGroup(ws, group)
        found = Option.isNone(batch) ? null : { batch: batch.value, sets: new Map(batch.value.transaction_sets.map((s) => [setKey(s.control_number), s])) }
        batches.set(a.group_control_number, found)
      }
      if (found === null) {
        miss(`no 837P batch with group control number ${a.group_control_number}`, count)
        continue
      }
      const set = a.transaction_set_control_number
      // Without set detail the 999 judged the whole group: every set of the batch.
      const sets = set === undefined ? found.batch.transaction_sets : [found.sets.get(setKey(set))].filter((s) => s !== undefined)
      if (sets.length === 0) miss(`batch ${found.batch.id} has no transaction set ${set ?? ""}`, count)
      for (const s of sets) {
        for (const claimId of s.claim_ids) {
          const before = decisions.get(claimId)
          decisions.delete(claimId)
          decisions.set(claimId, { action: a.action, count: (before?.count ?? 0) + count, batchId: found.batch.id, detail: detailOf(a) })
        }
      }
    }
    yield* plan.lookUp("id", decisions.keys())
    i = 0
    for (const [claimId, d] of decisions) {
      if (++i % DECIDE_PACE === 0) yield* pause
      const t = yield* plan.byId(claimId)
      if (t === undefined) plan.unmatched(null, `claim ${claimId} of batch ${d.batchId} is gone`)
      else plan.apply(t, notedAction(d.action, d.count), d.detail)
    }
    for (const [detail, count] of unmatched) plan.unmatched(null, noted(detail, count))
  })

/** The sender and ISA13 of a file's (first) interchange: the same in another file with other content means a reused control number. */
export const interchangeKey = (sender: string, control: string): string => `${sender}|${control}`

/**
 * An earlier import of the same file, answered again as it was answered (invalid files are
 * never matched): its first outcomes, from the file's record while it has them all.
 */
const duplicateOf = (ws: WorkspaceId, found: Option.Option<X12FileRecord>) =>
  Effect.gen(function* () {
    if (Option.isNone(found)) return undefined
    const f = found.value
    if (f.kind === "invalid") return undefined
    const claims =
      f.summary.total <= f.claims.length
        ? f.claims
        : (yield* (yield* Storage).listX12FileOutcomes(ws, f.id, { limit: IMPORT_OUTCOMES_SHOWN })).slice(0, IMPORT_OUTCOMES_SHOWN).map(toOutcome)
    return {
      id: f.id,
      kind: f.kind,
      duplicate: true,
      reused_control_number: f.reused_control_number_of !== null,
      claims,
      summary: f.summary
    } satisfies InboundResult
  })

/**
 * Imports one 999, 277CA, 277 (status response, see status-check-answers.ts) or 835 interchange. In one write the file is stored (bytes as received,
 * with what it did) and its effects applied: status moves along the transition table, each with
 * its StatusUpdated event; acknowledgments; the payer's claim control numbers; remittances. A
 * move the table refuses is a `conflict` and is not applied; an unknown control number is
 * `unmatched`. The same file again (the same bytes, or the same segments with other line breaks:
 * `contentKeyOf`) answers the first import as a duplicate and applies nothing; a file with the
 * sender and ISA13 of an earlier one but other content (clearinghouses reuse control numbers) is
 * imported, and flagged `reused_control_number`. A malformed file is stored as `invalid` with its
 * error, applies nothing, and fails with `X12ReadError` (the segment and its 1-based position); so
 * is a file beyond what one file may do (x12-import-read.ts).
 *
 * A claim has one outcome per file (the last of the file's decisions on it), an 835's claim one per
 * CLP it takes. The file's record keeps its first outcomes and a summary; each outcome is stored on
 * its own, paged by `listX12FileOutcomes`. The answer lists the first `IMPORT_OUTCOMES_SHOWN`.
 * Reading and deciding pause every so often, so other requests are answered meanwhile.
 */
export const importX12File = (upload: X12Upload) =>
  Effect.gen(function* () {
    const ws = upload.workspace_id
    const storage = yield* Storage
    const clock = yield* Clock
    const ids = yield* Ids
    const sha256 = createHash("sha256").update(upload.body).digest("hex")
    const received = (at: string, id: string) => ({
      id,
      workspace_id: ws,
      received_at: at,
      key_id: upload.key_id ?? null,
      content_type: upload.content_type,
      sha256,
      size: upload.body.byteLength
    })
    const bytes = (id: string) => ({ id, workspace_id: ws, body: upload.body })
    const text = new TextDecoder().decode(upload.body)
    const read = yield* runWithPauses(parsePaced(text))
    if (Either.isLeft(read)) {
      // Kept as received, with why: the list of files shows what came in, also what was refused.
      const id = ids.next()
      const invalid: X12FileRecord = {
        ...received(isoTime(clock.now()), id),
        kind: "invalid",
        sender_id: null,
        interchange_control_number: null,
        interchange_key: `invalid|${id}`,
        content_key: `invalid|${id}`,
        reused_control_number_of: null,
        claims: [],
        summary: summarize([]),
        error: read.left.message
      }
      yield* commit({ operation: "importX12File", steps: [insert("x12_files", invalid), insert("x12_file_bodies", bytes(id))] })
      return yield* read.left
    }
    const { interchange, parsed, kind } = read.right
    const key = interchangeKey(interchange.sender_id, interchange.control_number)
    const contentKey = contentKeyOf(text)
    for (;;) {
      const same = (yield* duplicateOf(ws, yield* storage.findX12FileBySha(ws, sha256))) ?? (yield* duplicateOf(ws, yield* storage.findX12FileByContent(ws, contentKey)))
      if (same !== undefined) return same
      const reused = Option.getOrNull(yield* storage.findX12FileByInterchange(ws, key))

      const at = isoTime(clock.now())
      const fileId = ids.next()
      const plan = makeImportPlan(ws, at, () => ids.next())
      if (parsed.kind === "999") yield* plan999(ws, plan, parsed, fileId)
      else if (parsed.kind === "277CA") yield* plan277(ws, plan, parsed, fileId)
      else if (parsed.kind === "277") yield* plan277Status(ws, plan, parsed, at)
      else yield* plan835(ws, plan, parsed, fileId)
      const outcomes = boundUnmatched(plan.outcomes)
      const summary = summarize(outcomes)
      const file: X12FileRecord = {
        ...received(at, fileId),
        kind,
        sender_id: interchange.sender_id,
        interchange_control_number: interchange.control_number,
        interchange_key: key,
        content_key: contentKey,
        reused_control_number_of: reused?.id ?? null,
        // The file's row shows its first outcomes without their codes: the outcomes route has them.
        claims: outcomes.slice(0, FILE_OUTCOMES_SHOWN).map((o) => (o.response === null ? o : { ...o, response: null })),
        summary,
        error: null
      }
      const outcomeRows = outcomes.map((o, position) =>
        insert("x12_file_outcomes", { id: `${fileId}.${position}`, workspace_id: ws, file_id: fileId, position, ...o })
      )
      const result = yield* commit<"stale" | "duplicate">({
        operation: "importX12File",
        steps: [
          insert("x12_files", file, { unique: "content", refuse: () => "duplicate" as const }),
          insert("x12_file_bodies", bytes(fileId)),
          ...plan.steps,
          ...outcomeRows
        ],
        causes: plan.causes
      })
      if (result._tag === "Written") {
        return {
          id: fileId,
          kind,
          duplicate: false,
          reused_control_number: file.reused_control_number_of !== null,
          claims: outcomes.slice(0, IMPORT_OUTCOMES_SHOWN),
          summary
        } satisfies InboundResult
      }
      // "stale": a claim moved meanwhile; "duplicate": the same file was imported meanwhile (found on the next turn).
    }
  })
