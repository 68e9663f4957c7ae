import { Effect } from "effect"
import { categoryOf } from "../domain/code-meanings.js"
import type { EventRecord } from "../domain/event.js"
import { ClaimId, EncounterId, EventId, type WorkspaceId } from "../domain/ids.js"
import {
  openKeyOf,
  type TaskCause,
  type TaskCauseInput,
  TaskDueDays,
  TaskId,
  type TaskRecord,
  type TaskType,
  taskTypeOfStatus,
  withCauses
} from "../domain/task.js"
import { Storage } from "../ports/storage.js"
import { appendEvent, insert, type Step, update, type Write } from "../ports/write.js"

/**
 * The work queue's part of a write, derived by the commit path from the write itself, so every
 * source of status moves (the status API, each X12 import, later ones) makes its tasks without
 * remembering to:
 *
 * - a claim's last status move in the write that calls for work (`taskTypeOfStatus`) makes a task
 *   of that type, with the write's causes for the claim that name no type as its details (the
 *   codes, file and text) or else the move's event;
 * - a cause that names a type makes a task of that type (a follow-up, a line denied, a repeat);
 * - a claim's open task of that type, if there is one, is added to instead (one open per claim
 *   and type);
 * - any other open task of a claim that moved is closed, the move recorded as the reason, and so
 *   is every open task of a claim the write names a closing of (`Write.closings`).
 *
 * Each change appends its task event (`ExternalApi.Task.Created` / `Updated`). Inserts take the
 * claim's open key and updates compare-and-set the task's revision: a write that lost a race to
 * another writer is refused with `TaskRace` and made again from a fresh read (`commit`).
 */

/** The refusal of a write whose task steps lost a race; the commit path reads again and retries. */
export const TaskRace: { readonly _tag: "TaskRace" } = { _tag: "TaskRace" }
export type TaskRace = typeof TaskRace

const DAY_MS = 86_400_000

interface ClaimWork {
  readonly ws: WorkspaceId
  readonly claimId: ClaimId
  readonly encounterId: EncounterId
  readonly externalId: string
  lastMove: EventRecord | undefined
  readonly causes: Array<TaskCauseInput>
  closing: { readonly at: string; readonly reason: string } | undefined
}

const causeOf = (c: TaskCauseInput, eventId: string | null): TaskCause => ({
  kind: c.kind,
  at: c.at,
  file_id: c.file_id ?? null,
  check_id: c.check_id ?? null,
  event_id: eventId,
  codes: [...c.codes],
  text: c.text
})

/** The category when no code names one: what the type itself says. */
const typeCategory: { readonly [T in TaskType]: string } = {
  rejection_resolution: "other",
  denial_resolution: "other",
  payment_review: "payment_review",
  claim_follow_up: "no_response"
}

/** The work of each claim the write moves or names a cause of, in the order it first appears. */
const claimsOf = <R>(write: Write<R>): Map<string, ClaimWork> => {
  const claims = new Map<string, ClaimWork>()
  const workOf = (ws: WorkspaceId, claimId: string, encounterId: string, externalId: string) => {
    const key = `${ws}|${claimId}`
    let w = claims.get(key)
    if (w === undefined) {
      w = { ws, claimId: ClaimId.make(claimId), encounterId: EncounterId.make(encounterId), externalId, lastMove: undefined, causes: [], closing: undefined }
      claims.set(key, w)
    }
    return w
  }
  for (const step of write.steps) {
    if (step._tag !== "AppendEvent" || step.event.event_type !== "ExternalApi.Encounter.StatusUpdated") continue
    const e = step.event
    workOf(e.workspace_id, e.payload.claim_id, e.payload.encounter_id, e.payload.external_id).lastMove = e
  }
  for (const c of write.causes ?? []) workOf(c.workspace_id, c.claim_id, c.encounter_id, c.external_id).causes.push(c)
  for (const c of write.closings ?? []) workOf(c.workspace_id, c.claim_id, c.encounter_id, c.external_id).closing = { at: c.at, reason: c.reason }
  return claims
}

/** The work queue's order: the earliest due first, then by id. */
const dueFirst = (a: TaskRecord, b: TaskRecord): number => (a.due_at < b.due_at ? -1 : a.due_at > b.due_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** The task steps of a write, read against its claims' open tasks now (one indexed read per claim). */
export const taskSteps = <R>(write: Write<R>, nextId: () => string) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const claims = claimsOf(write)
    const steps: Array<Step<R | TaskRace>> = []
    for (const w of claims.values()) {
      const open = [...(yield* storage.findOpenTasksOfClaim(w.ws, w.claimId))].sort(dueFirst)
      steps.push(...claimTaskSteps<R>(w, open, nextId))
    }
    return steps
  })

const claimTaskSteps = <R>(w: ClaimWork, open: ReadonlyArray<TaskRecord>, nextId: () => string): ReadonlyArray<Step<R | TaskRace>> => {
  const raised = new Map<TaskType, { causes: Array<TaskCause>; codes: Array<string>; category: string | undefined; at: string }>()
  const raise = (type: TaskType, c: TaskCause, category: string | undefined) => {
    const r = raised.get(type) ?? { causes: [], codes: [], category: undefined, at: c.at }
    r.causes.push(c)
    r.codes.push(...c.codes)
    r.category ??= category
    raised.set(type, r)
  }
  const move = w.lastMove
  const moveType = move === undefined ? undefined : taskTypeOfStatus(move.payload.status)
  if (move !== undefined && moveType !== undefined) {
    const details = w.causes.filter((c) => c.type === undefined)
    if (details.length === 0) {
      const note = move.payload.note
      raise(moveType, { kind: "status_change", at: move.timestamp, file_id: null, check_id: null, event_id: move.id, codes: [], text: note ?? `moved to ${move.payload.status}` }, undefined)
    }
    for (const c of details) raise(moveType, causeOf(c, move.id), c.category)
  }
  for (const c of w.causes) if (c.type !== undefined) raise(c.type, causeOf(c, null), c.category)

  const steps: Array<Step<R | TaskRace>> = []
  const event = (t: TaskRecord, type: "ExternalApi.Task.Created" | "ExternalApi.Task.Updated", at: string, previous?: string, note?: string): EventRecord => ({
    id: EventId.make(nextId()),
    workspace_id: w.ws,
    event_type: type,
    created_at: at,
    timestamp: at,
    payload: {
      encounter_id: t.encounter_id,
      external_id: t.external_id,
      claim_id: t.claim_id,
      status: t.status,
      ...(previous === undefined ? {} : { previous_status: previous }),
      ...(note === undefined ? {} : { note }),
      task_id: t.id,
      task_type: t.type,
      task_category: t.category
    }
  })
  for (const t of open) {
    const more = raised.get(t.type)
    if (more !== undefined) {
      raised.delete(t.type)
      const at = more.at
      const set = { causes: withCauses(t.causes, more.causes), updated_at: at }
      steps.push(update("tasks", t.id, { workspace_id: w.ws, revision: t.revision }, set, TaskRace))
      steps.push(appendEvent(event({ ...t, ...set }, "ExternalApi.Task.Updated", at, t.status, `added: ${more.causes.map((c) => c.text).join("; ")}`)))
    } else if (move !== undefined || w.closing !== undefined) {
      const at = move?.timestamp ?? w.closing?.at ?? t.updated_at
      const reason = w.closing?.reason ?? `claim moved to ${move?.payload.status ?? ""}`
      const set = { status: "done" as const, closed_reason: reason, open_key: t.id, open_claim_id: null, updated_at: at }
      steps.push(update("tasks", t.id, { workspace_id: w.ws, revision: t.revision }, set, TaskRace))
      steps.push(appendEvent(event({ ...t, ...set }, "ExternalApi.Task.Updated", at, t.status, reason)))
    }
  }
  for (const [type, r] of raised) {
    const at = r.at
    const id = TaskId.make(nextId())
    const fromCodes = r.category ?? categoryOf(r.codes)
    const task: TaskRecord = {
      id,
      workspace_id: w.ws,
      type,
      category: fromCodes === "other" ? typeCategory[type] : fromCodes,
      claim_id: w.claimId,
      encounter_id: w.encounterId,
      external_id: w.externalId,
      status: "open",
      assignee: null,
      due_at: new Date(Date.parse(at) + TaskDueDays[type] * DAY_MS).toISOString(),
      created_at: at,
      updated_at: at,
      closed_reason: null,
      causes: withCauses([], r.causes),
      notes: [],
      open_key: openKeyOf(w.claimId, type),
      open_claim_id: w.claimId,
      revision: 0
    }
    steps.push(insert("tasks", task, { unique: "open", refuse: () => TaskRace }))
    steps.push(appendEvent(event(task, "ExternalApi.Task.Created", at)))
  }
  return steps
}
