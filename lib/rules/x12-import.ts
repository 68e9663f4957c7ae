import { createHash } from "node:crypto"
import { commit } from "./commit.js"
import { Effect, Either, FiberRef, Option } from "effect"
import type { WorkspaceId } from "../domain/ids.js"
import {
  FILE_OUTCOMES_SHOWN,
  IMPORT_OUTCOMES_SHOWN,
  type InboundClaimOutcome,
  type InboundResult,
  type OutcomeSummary,
  summarize,
  toOutcome,
  type X12BatchRecord,
  type X12FileBodyRecord,
  type X12FileOutcomeRecord,
  type X12FileRecord
} from "../domain/x12-exchange.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, type Step, update } from "../ports/write.js"
import type { Ack999 } from "../x12/read/ack-999.js"
import { type Action999, actionsFrom999, type StatusAction } from "../x12/status-mapping.js"
import { contentKeyOf } from "./x12-content-key.js"
import { plan277 } from "./x12-import-277.js"
import { plan835 } from "./x12-import-835.js"
import { detailOf999Set } from "./task-causes-x12.js"
import { boundedPositions, lastOf, noted, notedAction } from "./x12-import-bounds.js"
import { DECIDE_PACE, type Parsed, parsePaced, pause, runWithPauses } from "./x12-import-read.js"
import { plan277Status } from "./status-check-answers.js"
import { type ImportPlan, makeImportPlan, type PlanMark, type TaskDetail } from "./x12-import-plan.js"
import { asLargeWork } from "../large-work.js"

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
      plan.done()
    }
    for (const [detail, count] of unmatched) plan.unmatched(null, noted(detail, count))
  })

/** The sender and ISA13 of a file's (first) interchange: the same in another file with other content means a reused control number. */
export const interchangeKey = (sender: string, control: string): string => `${sender}|${control}`

/**
 * An earlier import of the same file, answered again as it was answered (invalid files are
 * never matched): its first outcomes, from the file's record while it has them all. A file still
 * importing (its server stopped between two of its writes) is finished first.
 */
const duplicateOf = (ws: WorkspaceId, found: Option.Option<X12FileRecord>) =>
  Effect.gen(function* () {
    if (Option.isNone(found)) return undefined
    const kind = found.value.kind
    if (kind === "invalid") return undefined
    const f = found.value.import_state === "importing" ? yield* finishImport(found.value) : found.value
    return { ...(yield* storedAnswer(ws, f, kind)), duplicate: true } satisfies InboundResult
  })

/** A file's answer read back from its record and stored outcomes. */
const storedAnswer = (ws: WorkspaceId, f: X12FileRecord, kind: InboundResult["kind"]) =>
  Effect.gen(function* () {
    const claims =
      f.summary.total <= f.claims.length
        ? f.claims
        : (yield* (yield* Storage).listX12FileOutcomes(ws, f.id, { limit: IMPORT_OUTCOMES_SHOWN })).slice(0, IMPORT_OUTCOMES_SHOWN).map(toOutcome)
    return {
      id: f.id,
      kind,
      duplicate: false,
      reused_control_number: f.reused_control_number_of !== null,
      claims,
      summary: f.summary
    } satisfies InboundResult
  })

/**
 * Steps one write of an import carries before it is cut (after the entry that reaches them). A
 * write holds the database, and on SQLite the event loop, for as long as it runs: an 835 of 1,000
 * claims is some 8,000 steps, 70 ms in one write. At 200 a write holds it 10 to 15 ms (400 held
 * it 25 to 28 ms, which with a full collection's pause right after it made a read wait over 50 ms:
 * bench/RESULTS.md). Tests set it lower to cut small files.
 */
export const ImportWriteSteps = FiberRef.unsafeMake(200)

/** How far a file's writes got: the place after the last entry applied, and the file's outcomes so far. */
interface Progress {
  readonly mark: PlanMark
  readonly summary: OutcomeSummary
  readonly claims: ReadonlyArray<InboundClaimOutcome>
}

const START: PlanMark = { outcomes: 0, steps: 0, causes: 0 }

/**
 * What the file does, decided against the claims as they are now. Made again when a write of the
 * file is refused (a claim moved meanwhile), or to finish a file: its entries already applied are
 * decided again (and skipped), so those after them are judged as they were the first time.
 */
const planFile = (ws: WorkspaceId, parsed: Parsed, fileId: string, at: string) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    const plan = makeImportPlan(ws, at, () => ids.next())
    if (parsed.kind === "999") yield* plan999(ws, plan, parsed, fileId)
    else if (parsed.kind === "277CA") yield* plan277(ws, plan, parsed, fileId)
    else if (parsed.kind === "277") yield* plan277Status(ws, plan, parsed, at)
    else yield* plan835(ws, plan, parsed, fileId)
    return plan
  })

/**
 * Applies a plan from a place on, in writes of about `ImportWriteSteps` steps each, cut only
 * after an entry. Each write stores its entries' outcomes and moves the file's progress along
 * (compare-and-set on where it was); the last one marks the file `imported`. `first` is the
 * write that also stores the file (a new import). Answers the file's outcomes and summary, or the
 * refusal of the write refused.
 */
const applyPlan = (
  ws: WorkspaceId,
  fileId: string,
  plan: ImportPlan,
  from: Progress,
  first?: { readonly file: X12FileRecord; readonly body: X12FileBodyRecord }
) =>
  Effect.gen(function* () {
    const limit = yield* FiberRef.get(ImportWriteSteps)
    const { positions, kept, tail } = boundedPositions(plan.outcomes)
    const end: PlanMark = { outcomes: plan.outcomes.length, steps: plan.steps.length, causes: plan.causes.length }
    let at = from
    let stores = first
    for (;;) {
      const start = at.mark
      const cut = plan.marks.find((m) => m.outcomes > start.outcomes && m.steps - start.steps >= limit)
      const last = cut === undefined || (cut.outcomes === end.outcomes && cut.steps === end.steps && cut.causes === end.causes)
      const to = last ? end : cut
      const rows: Array<X12FileOutcomeRecord> = []
      for (let i = start.outcomes; i < to.outcomes; i++) {
        const position = positions[i]
        if (position !== undefined) rows.push({ id: `${fileId}.${position}`, workspace_id: ws, file_id: fileId, position, ...plan.outcomes[i]! })
      }
      if (last && tail !== undefined) rows.push({ id: `${fileId}.${kept}`, workspace_id: ws, file_id: fileId, position: kept, ...tail })
      const counts = summarize(rows)
      const summary: OutcomeSummary = {
        total: at.summary.total + counts.total,
        status_changed: at.summary.status_changed + counts.status_changed,
        unchanged: at.summary.unchanged + counts.unchanged,
        unmatched: at.summary.unmatched + counts.unmatched,
        conflict: at.summary.conflict + counts.conflict
      }
      // The file's row shows its first outcomes without their codes: the outcomes route has them.
      const shown = [...at.claims, ...rows.slice(0, Math.max(0, FILE_OUTCOMES_SHOWN - at.claims.length)).map((o) => ({ ...toOutcome(o), response: null }))]
      const state = { claims: shown, summary, import_state: last ? ("imported" as const) : ("importing" as const), import_resume_at: last ? null : to.outcomes }
      const fileStep: ReadonlyArray<Step<"stale" | "duplicate">> =
        stores === undefined
          ? [update("x12_files", fileId, { workspace_id: ws, import_state: "importing", import_resume_at: start.outcomes }, state, "stale" as const)]
          : [insert("x12_files", { ...stores.file, ...state }, { unique: "content", refuse: () => "duplicate" as const }), insert("x12_file_bodies", stores.body)]
      const result = yield* commit<"stale" | "duplicate">({
        operation: "importX12File",
        steps: [...fileStep, ...plan.steps.slice(start.steps, to.steps), ...rows.map((r) => insert("x12_file_outcomes", r))],
        causes: plan.causes.slice(start.causes, to.causes)
      })
      if (result._tag === "Refused") return result
      if (last) return { _tag: "Done" as const, summary, claims: positionsApplied(plan.outcomes, positions, tail) }
      at = { mark: to, summary, claims: shown }
      stores = undefined
    }
  })

/** The file's outcomes as stored, in order: the kept ones, then the one that counts the rest. */
const positionsApplied = (outcomes: ReadonlyArray<InboundClaimOutcome>, positions: ReadonlyArray<number | undefined>, tail: InboundClaimOutcome | undefined) => {
  const kept = outcomes.filter((_, i) => positions[i] !== undefined)
  return tail === undefined ? kept : [...kept, tail]
}

/**
 * Finishes a file left `importing`: by a server stopped between its writes, or by an import
 * whose later write was refused because a claim moved meanwhile. Its entries are decided again
 * against the claims as they are now, and applied from where the file's row says it got. Two
 * servers finishing one file apply each entry once (the progress is compare-and-set).
 */
export const finishImport = (file: X12FileRecord) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    const ws = file.workspace_id
    for (;;) {
      const current = Option.getOrUndefined(yield* storage.get("x12_files", ws, file.id))
      if (current === undefined || current.import_state === "imported") return current ?? file
      const body = Option.getOrUndefined(yield* storage.get("x12_file_bodies", ws, file.id))
      const read = body === undefined ? undefined : yield* runWithPauses(parsePaced(new TextDecoder().decode(body.body)))
      if (read === undefined || Either.isLeft(read)) return yield* Effect.dieMessage(`x12 file ${file.id} is importing, but its bytes are missing or unreadable`)
      const plan = yield* planFile(ws, read.right.parsed, file.id, isoTime(clock.now()))
      const resumeAt = current.import_resume_at ?? 0
      const mark = resumeAt === 0 ? START : plan.marks.find((m) => m.outcomes === resumeAt)
      if (mark === undefined) return yield* Effect.dieMessage(`x12 file ${file.id} resumes after outcome ${resumeAt}, which ends no entry of it`)
      yield* applyPlan(ws, file.id, plan, { mark, summary: current.summary, claims: current.claims })
    }
  })

/** Finishes every file left `importing` (a server does this as it starts). Answers how many. */
export const finishImports = Effect.gen(function* () {
  const storage = yield* Storage
  let finished = 0
  for (const ws of yield* storage.listWorkspaces()) {
    for (;;) {
      const files = yield* storage.page("x12_files", ws.id, { where: { import_state: "importing" }, limit: 20 })
      if (files.length === 0) break
      for (const f of files) yield* finishImport(f)
      finished += files.length
    }
  }
  return finished
})

/**
 * Imports one 999, 277CA, 277 (status response, see status-check-answers.ts) or 835 interchange.
 * The file is stored (bytes as received, with what it did) and its effects applied: status moves
 * along the transition table, each with its StatusUpdated event; acknowledgments; the payer's
 * claim control numbers; remittances. A move the table refuses is a `conflict` and is not applied;
 * an unknown control number is `unmatched`. The same file again (the same bytes, or the same
 * segments with other line breaks: `contentKeyOf`) answers the first import as a duplicate and
 * applies nothing; a file with the sender and ISA13 of an earlier one but other content
 * (clearinghouses reuse control numbers) is imported, and flagged `reused_control_number`. A
 * malformed file is stored as `invalid` with its error, applies nothing, and fails with
 * `X12ReadError` (the segment and its 1-based position); so is a file beyond what one file may do
 * (x12-import-read.ts).
 *
 * A file naming a few claims is one write. A larger one is several (`applyPlan`): the first stores
 * the file, marked `importing`, with its first entries' effects; each next one applies more; the
 * last marks it `imported`. Between them the server answers other requests. The answer comes
 * after the last; a server stopped before it finishes the file when it starts again
 * (`finishImports`), and the same file sent again finishes it too before it is answered.
 *
 * A claim has one outcome per file (the last of the file's decisions on it), an 835's claim one per
 * CLP it takes. The file's record keeps its first outcomes and a summary; each outcome is stored on
 * its own, paged by `listX12FileOutcomes`. The answer lists the first `IMPORT_OUTCOMES_SHOWN`.
 * Reading and deciding pause every so often, so other requests are answered meanwhile.
 */
export const importX12File = (upload: X12Upload) =>
  asLargeWork(importGen(upload))

const importGen = (upload: X12Upload) =>
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
        error: read.left.message,
        import_state: "imported",
        import_resume_at: null
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
      const plan = yield* planFile(ws, parsed, fileId, at)
      const file: X12FileRecord = {
        ...received(at, fileId),
        kind,
        sender_id: interchange.sender_id,
        interchange_control_number: interchange.control_number,
        interchange_key: key,
        content_key: contentKey,
        reused_control_number_of: reused?.id ?? null,
        claims: [],
        summary: summarize([]),
        error: null,
        import_state: "importing",
        import_resume_at: 0
      }
      const result = yield* applyPlan(ws, fileId, plan, { mark: START, summary: file.summary, claims: [] }, { file, body: bytes(fileId) })
      const answer = { id: fileId, kind, duplicate: false, reused_control_number: file.reused_control_number_of !== null }
      if (result._tag === "Done") return { ...answer, claims: result.claims.slice(0, IMPORT_OUTCOMES_SHOWN), summary: result.summary } satisfies InboundResult
      // The file is stored and a later write was refused: a claim moved meanwhile. The rest is decided again.
      const stored = yield* storage.get("x12_files", ws, fileId)
      if (Option.isSome(stored)) return { ...(yield* storedAnswer(ws, yield* finishImport(stored.value), kind)), ...answer } satisfies InboundResult
      // "stale" before the file was stored: a claim moved meanwhile; "duplicate": the same file was imported meanwhile (found on the next turn).
    }
  })
