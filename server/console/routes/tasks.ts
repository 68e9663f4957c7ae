import { Effect, Either, Schema } from "effect"
import { requestDecoder } from "../../../lib/domain/field-issues.js"
import { parseJsonBody } from "../../../lib/domain/json.js"
import { countOpenTasks, taskBoardDetail, taskBoardPage } from "../../../lib/rules/task-board.js"
import { updateTask } from "../../../lib/rules/tasks.js"
import { readBody, requireJson } from "../../body.js"
import { InvalidBody } from "../../problem.js"
import { json, NoQuery } from "../../route.js"
import { Limit } from "../../routes/shared.js"
import { TaskChangeRequest } from "../../routes/tasks.js"
import { sessionRoute } from "../route.js"

const QueueQuery = Schema.Struct({
  status: Schema.optional(Schema.String),
  type: Schema.optional(Schema.String),
  category: Schema.optional(Schema.String),
  assignee: Schema.optional(Schema.String),
  due_before: Schema.optional(Schema.String),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(Schema.String)
})

const blank = (s: string | undefined) => (s === undefined || s === "" ? undefined : s)

/** The open tasks' counts by type and category. */
export const taskCountsRoute = sessionRoute(
  { method: "GET", path: "/console/api/tasks/counts", audit: "none", summary: "Open tasks by type and category", query: NoQuery },
  ({ principal: caller }) => Effect.map(countOpenTasks(caller.principal.workspace.id), (counts) => json(200, counts))
)

/** A page of the queue (the API's filters; empty ones ignored), each task with its claim's status and amount. */
export const taskQueueRoute = sessionRoute(
  { method: "GET", path: "/console/api/tasks", audit: { action: "task.list", resource: "task" }, summary: "The work queue, oldest due first", query: QueueQuery },
  ({ principal: caller, query }) =>
    Effect.map(
      taskBoardPage(caller.principal.workspace.id, {
        status: blank(query.status),
        type: blank(query.type),
        category: blank(query.category),
        assignee: blank(query.assignee),
        due_before: blank(query.due_before),
        limit: query.limit,
        page_token: blank(query.page_token)
      }),
      (page) => json(200, page)
    )
)

export const taskDetailRoute = sessionRoute(
  { method: "GET", path: "/console/api/tasks/{id}", audit: { action: "task.read", resource: "task", idParam: "id" }, summary: "One task with its claim and its codes' meanings", query: NoQuery },
  ({ principal: caller, params }) => Effect.map(taskBoardDetail(caller.principal.workspace.id, params.id ?? ""), (t) => json(200, t))
)

const decodeChange = requestDecoder(TaskChangeRequest)

/** The API's task change, behind the session and its CSRF token (scope tasks:write). */
export const updateTaskRoute = sessionRoute(
  { method: "POST", path: "/console/api/tasks/{id}", audit: { action: "task.update", resource: "task", idParam: "id" }, summary: "Change a task", query: NoQuery, scope: "tasks:write" },
  ({ principal: caller, params, request }) =>
    Effect.gen(function* () {
      yield* requireJson(request)
      const decoded = decodeChange(yield* parseJsonBody(yield* readBody(request, 16 * 1024)))
      if (Either.isLeft(decoded)) return yield* new InvalidBody({ errors: decoded.left })
      return json(200, yield* updateTask(caller.principal.workspace.id, params.id ?? "", decoded.right, caller.actor.id))
    })
)
