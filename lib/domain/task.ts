import { Schema } from "effect"
import { TaskCategories } from "./code-meanings.js"
import { ClaimId, EncounterId, WorkspaceId } from "./ids.js"

/**
 * A task of the work queue: something a biller must do about one claim (resolve a rejection or a
 * denial, review a payment, follow up with the payer). The service makes them itself, in the same
 * write as their cause; one is open per claim and type at a time, and it closes by itself when
 * its claim moves on.
 */

export const TaskTypes = ["rejection_resolution", "denial_resolution", "payment_review", "claim_follow_up"] as const
export const TaskType = Schema.Literal(...TaskTypes).annotations({ identifier: "TaskType" })
export type TaskType = typeof TaskType.Type

export const TaskStatuses = ["open", "in_progress", "done", "wont_do"] as const
export const TaskStatus = Schema.Literal(...TaskStatuses).annotations({ identifier: "TaskStatus" })
export type TaskStatus = typeof TaskStatus.Type

/** Open and in progress: the statuses that hold the claim's one task of a type. */
export const isOpenTask = (s: TaskStatus): boolean => s === "open" || s === "in_progress"

export const TaskCategory = Schema.String.annotations({ jsonSchema: { type: "string", enum: TaskCategories } })

export const TaskId = Schema.String.pipe(Schema.brand("TaskId"))
export type TaskId = typeof TaskId.Type

/** Why a task was made or added to: what happened, where it came from, its codes and its text. */
export const TaskCause = Schema.Struct({
  /** `999`, `277CA`, `277`, `835`, `status_change`, `no_response`, ... */
  kind: Schema.String,
  at: Schema.String,
  /** The inbound file it came in, when it came in one. */
  file_id: Schema.NullOr(Schema.String),
  /** The 835's check or EFT trace number, or the status inquiry. */
  check_id: Schema.NullOr(Schema.String),
  /** The StatusUpdated event of the move that made it, when a move did. */
  event_id: Schema.NullOr(Schema.String),
  /** Codes as `list:code` (`carc:CO-16`, `stc_status:562`, `ik4:7`); their meanings are in `code-meanings.ts`. */
  codes: Schema.Array(Schema.String),
  text: Schema.String
}).annotations({ identifier: "TaskCause" })
export type TaskCause = typeof TaskCause.Type

export const TaskNote = Schema.Struct({
  at: Schema.String,
  text: Schema.String,
  /** The API key that wrote it; null when the service did. */
  key_id: Schema.NullOr(Schema.String)
}).annotations({ identifier: "TaskNote" })
export type TaskNote = typeof TaskNote.Type

/** A task keeps its first cause and its latest ones, at most this many. */
export const TASK_CAUSES_KEPT = 20
/** A task keeps its latest notes, at most this many. */
export const TASK_NOTES_KEPT = 50
export const TASK_NOTE_MAX_LENGTH = 2000

const taskFields = {
  id: TaskId,
  type: TaskType,
  category: TaskCategory,
  claim_id: ClaimId,
  encounter_id: EncounterId,
  external_id: Schema.String,
  status: TaskStatus,
  assignee: Schema.NullOr(Schema.String),
  due_at: Schema.String,
  created_at: Schema.String,
  updated_at: Schema.String,
  /** Why it was closed by the service (the claim moved on); null while open or when a person closed it. */
  closed_reason: Schema.NullOr(Schema.String),
  /** The cause that made it, then those that added to it (the first and the latest kept). */
  causes: Schema.Array(TaskCause),
  notes: Schema.Array(TaskNote)
}

/** A task as the API shows it: `cause` is what made it. */
export const Task = Schema.Struct({ ...taskFields, cause: TaskCause }).annotations({ identifier: "Task" })
export type Task = typeof Task.Type

/**
 * A stored task. `open_key` is `claim|type` while the task is open or in progress and its own id
 * once closed: unique in the workspace, so two writers cannot both open a task of one type for a
 * claim. `open_claim_id` is the claim while open (the read of a claim's open tasks), else null.
 * `revision` goes up with every update: changes are compare-and-set on it.
 */
export const TaskRecord = Schema.Struct({
  ...taskFields,
  workspace_id: WorkspaceId,
  open_key: Schema.String,
  open_claim_id: Schema.NullOr(ClaimId),
  revision: Schema.Number
})
export type TaskRecord = typeof TaskRecord.Type

export const openKeyOf = (claimId: string, type: TaskType): string => `${claimId}|${type}`

export const toTask = (r: TaskRecord): Task => ({
  id: r.id,
  type: r.type,
  category: r.category,
  claim_id: r.claim_id,
  encounter_id: r.encounter_id,
  external_id: r.external_id,
  status: r.status,
  assignee: r.assignee,
  due_at: r.due_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
  closed_reason: r.closed_reason,
  cause: r.causes[0] ?? { kind: "unknown", at: r.created_at, file_id: null, check_id: null, event_id: null, codes: [], text: "" },
  causes: r.causes,
  notes: r.notes
})

/** Days from a task's making to its due date, by type: rejections first, they block payment soonest. */
export const TaskDueDays: { readonly [T in TaskType]: number } = {
  rejection_resolution: 2,
  payment_review: 5,
  claim_follow_up: 7,
  denial_resolution: 14
}

/**
 * What a rule hands the commit path with its write: a cause of work on a claim. With `type`, it
 * makes (or adds to) a task of that type by itself; without, it gives the details (codes, file,
 * text) of the task the same write's status move of the claim makes (`taskTypeOfStatus`).
 */
export interface TaskCauseInput {
  readonly workspace_id: WorkspaceId
  readonly claim_id: ClaimId
  readonly encounter_id: EncounterId
  readonly external_id: string
  readonly type?: TaskType
  /** The category; derived from the codes (`categoryOf`) when not given. */
  readonly category?: string
  readonly kind: string
  /** When it happened (the task's time when it makes one). */
  readonly at: string
  readonly file_id?: string
  readonly check_id?: string
  readonly codes: ReadonlyArray<string>
  readonly text: string
}

/**
 * What a rule hands the commit path when a claim's work is over without the claim moving (a
 * corrected claim sent in its place): its open tasks close, with `reason`.
 */
export interface TaskClosingInput {
  readonly workspace_id: WorkspaceId
  readonly claim_id: ClaimId
  readonly encounter_id: EncounterId
  readonly external_id: string
  readonly at: string
  readonly reason: string
}

/** The task a claim's move to `status` makes, if any. */
export const taskTypeOfStatus = (status: string): TaskType | undefined => {
  switch (status) {
    case "submission_bounced":
    case "rejected":
      return "rejection_resolution"
    case "denied":
      return "denial_resolution"
    case "paid_incorrectly":
    case "era_requires_review":
      return "payment_review"
    default:
      return undefined
  }
}

/** Adds causes, keeping the first and the latest `TASK_CAUSES_KEPT - 1`. */
export const withCauses = (causes: ReadonlyArray<TaskCause>, more: ReadonlyArray<TaskCause>): ReadonlyArray<TaskCause> => {
  const all = [...causes, ...more]
  return all.length <= TASK_CAUSES_KEPT ? all : [all[0]!, ...all.slice(all.length - TASK_CAUSES_KEPT + 1)]
}

/** Adds a note, keeping the latest `TASK_NOTES_KEPT`. */
export const withNote = (notes: ReadonlyArray<TaskNote>, note: TaskNote): ReadonlyArray<TaskNote> => [...notes, note].slice(-TASK_NOTES_KEPT)

/**
 * A workspace's work queue settings: after how many days without an answer from the payer a claim
 * sent to it gets a follow-up task (null: never). The row also holds the lease of the sweep that
 * makes those tasks, so of several instances one sweeps a workspace at a time. Its id is the
 * workspace's.
 */
export const WorkQueueSettingsRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  follow_up_after_days: Schema.NullOr(Schema.Number),
  updated_at: Schema.String,
  lease_owner: Schema.NullOr(Schema.String),
  lease_expires_at: Schema.NullOr(Schema.String)
})
export type WorkQueueSettingsRecord = typeof WorkQueueSettingsRecord.Type

/** The settings as the API shows and takes them. */
export const WorkQueueSettings = Schema.Struct({
  follow_up_after_days: Schema.NullOr(
    Schema.Int.pipe(Schema.between(1, 365)).annotations({
      message: () => "must be a whole number of days from 1 to 365, or null",
      jsonSchema: { type: "integer", minimum: 1, maximum: 365 }
    })
  )
}).annotations({ identifier: "WorkQueueSettings" })
export type WorkQueueSettings = typeof WorkQueueSettings.Type
