import { Effect, Either, Option } from "effect"
import { TaskCategories } from "../domain/code-meanings.js"
import { FieldIssue, InvalidQuery, type StorageError } from "../domain/errors.js"
import { ClaimId, EventId, isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, type Page, timeBound, toPage, tokenScope } from "../domain/page.js"
import {
  isOpenTask,
  openKeyOf,
  type Task,
  TASK_NOTE_MAX_LENGTH,
  type TaskRecord,
  type TaskStatus,
  TaskStatuses,
  TaskTypes,
  toTask,
  withNote
} from "../domain/task.js"
import { InvalidTaskChange, TaskNotFound } from "../domain/task-errors.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { type HeldRecords, isKnownRecord, Storage, type TablePageScan } from "../ports/storage.js"
import { appendEvent, update } from "../ports/write.js"
import { commit } from "./commit.js"

export interface TaskQuery {
  readonly status?: string | undefined
  readonly type?: string | undefined
  readonly category?: string | undefined
  readonly assignee?: string | undefined
  readonly claim_id?: string | undefined
  /** Tasks due before this time (exclusive). */
  readonly due_before?: string | undefined
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

const oneOf = <A extends string>(path: string, value: string | undefined, allowed: ReadonlyArray<A>, issues: Array<FieldIssue>): A | undefined => {
  if (value === undefined) return undefined
  const found = allowed.find((a) => a === value)
  if (found === undefined) issues.push(new FieldIssue({ path, message: `must be one of ${allowed.join(", ")}` }))
  return found
}

/** A task query checked: the scan to read, the due bound and the page tokens' scope. */
interface CheckedTaskQuery {
  readonly scan: TablePageScan<"tasks">
  readonly dueBefore: string | undefined
  readonly scope: string
}

const checkTaskQuery = (workspaceId: WorkspaceId, query: TaskQuery): Effect.Effect<CheckedTaskQuery, InvalidQuery> =>
  Effect.gen(function* () {
    const issues: Array<FieldIssue> = []
    const status = oneOf("status", query.status, TaskStatuses, issues)
    const type = oneOf("type", query.type, TaskTypes, issues)
    const category = oneOf("category", query.category, TaskCategories, issues)
    if (query.claim_id !== undefined && !isUuid(query.claim_id)) issues.push(new FieldIssue({ path: "claim_id", message: "must be a claim id" }))
    if (query.assignee !== undefined && (query.assignee.length === 0 || query.assignee.length > 200)) {
      issues.push(new FieldIssue({ path: "assignee", message: "must be 1 to 200 characters" }))
    }
    const due = timeBound("due_before", query.due_before)
    if (Array.isArray(due)) issues.push(...due)
    const limit = checkLimit(query.limit)
    if (Either.isLeft(limit)) issues.push(...limit.left.errors)
    if (issues.length > 0 || Either.isLeft(limit)) return yield* new InvalidQuery({ errors: issues })
    const dueBefore = typeof due === "string" ? due : undefined
    const scope = tokenScope([workspaceId, "tasks", status, type, category, query.assignee, query.claim_id, dueBefore])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const where = { status, type, category, assignee: query.assignee, claim_id: query.claim_id === undefined ? undefined : ClaimId.make(query.claim_id) }
    return { scan: { where, position, limit: limit.right }, dueBefore, scope }
  })

/** The page of `rows` (a scan's, `limit + 1` at most): oldest due first, ended where due dates reach the bound. */
const taskPage = <A, B>(rows: ReadonlyArray<A>, q: CheckedTaskQuery, dueOf: (a: A) => string, idOf: (a: A) => string, view: (a: A) => B): Page<B> => {
  const { position, limit } = q.scan
  const dueBefore = q.dueBefore
  // Oldest due first: going forward, the rows past the bound end the list.
  const bounded = dueBefore === undefined || position?.dir === "prev" ? rows : rows.filter((r) => dueOf(r) < dueBefore)
  const ended = bounded.length < rows.length
  return toPage(ended ? bounded.slice(0, limit) : bounded, limit, position, (r) => [dueOf(r), idOf(r)], q.scope, view)
}

/**
 * The workspace's tasks, oldest due first, keyset-paged both ways, filtered by status, type,
 * category, assignee, claim and a due bound. Each filter reads along its own index; the due bound
 * ends the scan where due dates reach it (the order is by due date).
 */
export const listTasks = (workspaceId: WorkspaceId, query: TaskQuery): Effect.Effect<Page<Task>, InvalidQuery | StorageError, Storage> =>
  listRenderedTasks(workspaceId, query, (task) => task)

/**
 * `listTasks` with each task as the reader's own value (`render`: a task's JSON, say), against
 * what the reader holds by task id and revision (`held`; a task reads the same at the same
 * revision): the page's keys are read first, then only the tasks not held, and a held one is
 * listed as held. Without `held`, every task of the page is read and rendered.
 */
export const listRenderedTasks = <K>(
  workspaceId: WorkspaceId,
  query: TaskQuery,
  render: (task: Task, revision: number) => K,
  held?: HeldRecords<K>
): Effect.Effect<Page<K>, InvalidQuery | StorageError, Storage> =>
  Effect.gen(function* () {
    const q = yield* checkTaskQuery(workspaceId, query)
    const storage = yield* Storage
    if (held === undefined) {
      const rows = yield* storage.page("tasks", workspaceId, q.scan)
      return taskPage(rows, q, (r) => r.due_at, (r) => r.id, (r) => render(toTask(r), r.revision))
    }
    const rows = yield* storage.pageHeld("tasks", workspaceId, q.scan, held)
    return taskPage(
      rows,
      q,
      (r) => (isKnownRecord(r) ? r.time : r.due_at),
      (r) => r.id,
      (r) => (isKnownRecord(r) ? r.value : render(toTask(r), r.revision))
    )
  })

export const getTask = (workspaceId: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    const found = isUuid(id) ? yield* (yield* Storage).get("tasks", workspaceId, id) : Option.none()
    if (Option.isNone(found)) return yield* new TaskNotFound({ id })
    return toTask(found.value)
  })

export interface TaskChange {
  readonly status?: TaskStatus | undefined
  /** A name or address; null unassigns. */
  readonly assignee?: string | null | undefined
  readonly due_at?: string | undefined
  /** Appended to the task's notes. */
  readonly note?: string | undefined
}

/**
 * Changes a task (status, assignee, due date) and appends a note, with its Task.Updated event, in
 * one write; compare-and-set on the revision read (a change that lost a race is judged again
 * against the task as it is now). A task done or dropped frees its claim's open slot; reopening
 * one is refused while the claim has another open task of its type.
 */
export const updateTask = (workspaceId: WorkspaceId, id: string, change: TaskChange, keyId: string | null = null) =>
  Effect.gen(function* () {
    const issues: Array<FieldIssue> = []
    if (change.note !== undefined && (change.note.length === 0 || change.note.length > TASK_NOTE_MAX_LENGTH)) {
      issues.push(new FieldIssue({ path: "note", message: `must be 1 to ${TASK_NOTE_MAX_LENGTH} characters` }))
    }
    if (change.assignee !== undefined && change.assignee !== null && (change.assignee.length === 0 || change.assignee.length > 200)) {
      issues.push(new FieldIssue({ path: "assignee", message: "must be 1 to 200 characters" }))
    }
    const due = timeBound("due_at", change.due_at)
    if (Array.isArray(due)) issues.push(...due)
    if (issues.length > 0) return yield* new InvalidTaskChange({ errors: issues })
    const storage = yield* Storage
    const clock = yield* Clock
    const ids = yield* Ids
    for (;;) {
      const found = isUuid(id) ? yield* storage.get("tasks", workspaceId, id) : Option.none()
      if (Option.isNone(found)) return yield* new TaskNotFound({ id })
      const t = found.value
      const at = isoTime(clock.now())
      const status = change.status ?? t.status
      if (isOpenTask(status) && !isOpenTask(t.status)) {
        // Reopening: only while the claim has no other open task of the type (one open per claim and type).
        const other = (yield* storage.findOpenTasksOfClaim(workspaceId, t.claim_id)).find((o) => o.type === t.type && o.id !== t.id)
        if (other !== undefined) {
          return yield* new InvalidTaskChange({ errors: [new FieldIssue({ path: "status", message: `the claim has another open ${t.type} task: ${other.id}` })] })
        }
      }
      const set: Partial<TaskRecord> = {
        status,
        updated_at: at,
        ...(change.assignee === undefined ? {} : { assignee: change.assignee }),
        ...(typeof due === "string" ? { due_at: due } : {}),
        ...(change.note === undefined ? {} : { notes: withNote(t.notes, { at, text: change.note, key_id: keyId }) }),
        ...(isOpenTask(status)
          ? { open_key: openKeyOf(t.claim_id, t.type), open_claim_id: t.claim_id, closed_reason: null }
          : { open_key: t.id, open_claim_id: null })
      }
      const after: TaskRecord = { ...t, ...set }
      const result = yield* commit<"moved">({
        operation: "updateTask",
        steps: [
          update("tasks", t.id, { workspace_id: workspaceId, revision: t.revision }, set, "moved" as const),
          appendEvent({
            id: EventId.make(ids.next()),
            workspace_id: workspaceId,
            event_type: "ExternalApi.Task.Updated",
            created_at: at,
            timestamp: at,
            payload: {
              encounter_id: t.encounter_id,
              external_id: t.external_id,
              claim_id: t.claim_id,
              status,
              previous_status: t.status,
              ...(change.note === undefined ? {} : { note: change.note }),
              task_id: t.id,
              task_type: t.type,
              task_category: t.category
            }
          })
        ]
      })
      if (result._tag === "Written") return toTask({ ...after, revision: t.revision + 1 })
    }
  })
