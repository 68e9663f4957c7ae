import { Effect, Either, Schema } from "effect"
import { TaskCategories } from "../../lib/domain/code-meanings.js"
import { requestDecoder } from "../../lib/domain/field-issues.js"
import { Task, TASK_NOTE_MAX_LENGTH, TaskStatus, TaskTypes, WorkQueueSettings } from "../../lib/domain/task.js"
import { getWorkQueueSettings, putWorkQueueSettings } from "../../lib/rules/task-follow-ups.js"
import { getTask, listRenderedTasks, updateTask } from "../../lib/rules/tasks.js"
import { readJsonBody } from "../body.js"
import { InvalidBody } from "../problem.js"
import { makePageAssembler, Page } from "../../lib/domain/page.js"
import { makeRevisionRenders, PAGES_KEPT, RENDERS_KEPT } from "../rendered.js"
import { authed, type HandlerInput, json, NoQuery, raw, type Route } from "../route.js"
import { Limit, PageToken, problems } from "./shared.js"

const TAG = "Work queue"
const SCOPE = "tasks:write"

const TaskPage = Page(Task).annotations({ identifier: "TaskPage" })

/**
 * The work queue's tasks as JSON, rendered once per revision (`makeRevisionRenders`): a first page
 * reads its keys, then only the tasks not kept, and is spliced from their renders (the same buffer
 * again for the same page, `makePageAssembler`).
 */
const taskRenders = makeRevisionRenders(RENDERS_KEPT)
const taskPages = makePageAssembler(PAGES_KEPT, taskRenders.unkept)

const TaskListQuery = Schema.Struct({
  status: Schema.optional(Schema.String.annotations({ jsonSchema: { type: "string", enum: ["open", "in_progress", "done", "wont_do"] } })),
  type: Schema.optional(Schema.String.annotations({ jsonSchema: { type: "string", enum: TaskTypes } })),
  category: Schema.optional(Schema.String.annotations({ jsonSchema: { type: "string", enum: TaskCategories } })),
  assignee: Schema.optional(Schema.String),
  claim_id: Schema.optional(Schema.String),
  due_before: Schema.optional(Schema.String.annotations({ description: "ISO 8601: tasks due before this time" })),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(PageToken)
})

export const TaskChangeRequest = Schema.Struct({
  status: Schema.optional(TaskStatus),
  assignee: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)))),
  due_at: Schema.optional(Schema.String.annotations({ description: "ISO 8601" })),
  note: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(TASK_NOTE_MAX_LENGTH)).annotations({ description: "Appended to the task's notes" }))
}).annotations({ identifier: "TaskChange" })
const decodeChange = requestDecoder(TaskChangeRequest)
const decodeSettings = requestDecoder(WorkQueueSettings)

/** A JSON body, read within the limit and checked for depth before decoding. */
const jsonBody = ({ request, config }: HandlerInput<unknown, unknown>) => readJsonBody(request, config.bodyLimit)

export const taskRoutes: ReadonlyArray<Route> = [
  authed(
    {
      method: "GET",
      path: "/api/tasks", audit: { action: "task.list", resource: "task" },
      operationId: "listTasks",
      tag: TAG,
      summary: "The work queue: tasks oldest due first",
      description:
        "Tasks the service made from rejections (999, 277CA), denials (835), payments to review and claims without an answer from the payer. Filters combine; due_before ends the list at that due date.",
      query: TaskListQuery,
      unknownParameters: "refuse",
      responses: { 200: { description: "A page of tasks", schema: TaskPage }, ...problems(400, 401, 429) }
    },
    ({ principal, query }) =>
      Effect.map(
        listRenderedTasks(principal.workspace.id, query, (task, revision) => taskRenders.json(task.id, revision, () => JSON.stringify(task)), taskRenders.held(query.page_token)),
        (page) => raw(200, "application/json", taskPages(page, (bytes) => bytes))
      )
  ),
  authed(
    {
      method: "GET",
      path: "/api/tasks/settings", audit: "none",
      operationId: "getWorkQueueSettings",
      tag: TAG,
      summary: "The work queue's settings",
      query: NoQuery,
      responses: { 200: { description: "The settings", schema: WorkQueueSettings }, ...problems(401, 429) }
    },
    ({ principal }) => Effect.map(getWorkQueueSettings(principal.workspace.id), (s) => json(200, s))
  ),
  authed(
    {
      method: "PUT",
      path: "/api/tasks/settings", audit: "none",
      operationId: "putWorkQueueSettings",
      tag: TAG,
      summary: "Set the work queue's settings (scope tasks:write)",
      description: "follow_up_after_days: a claim sent to the payer with no answer after this many days (1 to 365) gets a claim_follow_up task; null for none.",
      scope: SCOPE,
      query: NoQuery,
      requestBody: WorkQueueSettings,
      responses: { 200: { description: "The settings", schema: WorkQueueSettings }, ...problems(400, 401, 403, 413, 415, 422, 429) }
    },
    (input) =>
      Effect.gen(function* () {
        const decoded = decodeSettings(yield* jsonBody(input))
        if (Either.isLeft(decoded)) return yield* new InvalidBody({ errors: decoded.left })
        return json(200, yield* putWorkQueueSettings(input.principal.workspace.id, decoded.right))
      })
  ),
  authed(
    {
      method: "GET",
      path: "/api/tasks/{id}", audit: { action: "task.read", resource: "task", idParam: "id" },
      operationId: "getTask",
      tag: TAG,
      summary: "One task, with its causes and notes",
      query: NoQuery,
      responses: { 200: { description: "The task", schema: Task }, ...problems(401, 404, 429) }
    },
    ({ principal, params }) => Effect.map(getTask(principal.workspace.id, params.id ?? ""), (t) => json(200, t))
  ),
  authed(
    {
      method: "PATCH",
      path: "/api/tasks/{id}", audit: { action: "task.update", resource: "task", idParam: "id" },
      operationId: "updateTask",
      tag: TAG,
      summary: "Change a task's status, assignee or due date, or add a note (scope tasks:write)",
      description: "Each change is an ExternalApi.Task.Updated event. Reopening a task is refused (422) while its claim has another open task of its type.",
      scope: SCOPE,
      query: NoQuery,
      requestBody: TaskChangeRequest,
      responses: { 200: { description: "The task after the change", schema: Task }, ...problems(400, 401, 403, 404, 413, 415, 422, 429) }
    },
    (input) =>
      Effect.gen(function* () {
        const decoded = decodeChange(yield* jsonBody(input))
        if (Either.isLeft(decoded)) return yield* new InvalidBody({ errors: decoded.left })
        return json(200, yield* updateTask(input.principal.workspace.id, input.params.id ?? "", decoded.right, input.principal.keyId))
      })
  )
]
