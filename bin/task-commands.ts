import { Effect } from "effect"
import { TaskStatuses, type TaskStatus } from "../lib/domain/task.js"
import { getWorkQueueSettings, putWorkQueueSettings } from "../lib/rules/task-follow-ups.js"
import { getTask, listTasks, updateTask } from "../lib/rules/tasks.js"
import { findWorkspace } from "../lib/rules/workspaces.js"
import { type Parsed, required, str, UsageError } from "./args.js"
import type { Command } from "./db-command.js"
import { dbOption, dbPath, withDb } from "./db-command.js"

const workspaceOption = { type: "string", help: "Workspace slug" } as const

const whole = (p: Parsed, name: string, from: number, to: number): number | undefined => {
  const value = str(p, name)
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < from || Number(value) > to) throw new UsageError(`--${name} must be a whole number from ${from} to ${to}`)
  return Number(value)
}

const taskStatus = (value: string | undefined): TaskStatus | undefined => {
  if (value === undefined) return undefined
  const found = TaskStatuses.find((s) => s === value)
  if (found === undefined) throw new UsageError(`unknown status ${value}; known: ${TaskStatuses.join(", ")}`)
  return found
}

/** The work queue from the command line: the API's list, read and change, and its settings. */
export const taskCommands: Record<string, Command> = {
  "tasks list": {
    spec: {
      usage:
        "encounterd tasks list --workspace SLUG [--status S] [--type T] [--category C] [--assignee NAME] [--claim CLAIM_ID] [--due-before TIME] [--limit N] [--page-token TOKEN] [--db FILE]",
      summary: "A page of the work queue, oldest due first, filtered as GET /api/tasks is. Prints the page.",
      options: {
        workspace: workspaceOption,
        status: { type: "string", help: `One of ${TaskStatuses.join(", ")}` },
        type: { type: "string", help: "rejection_resolution, denial_resolution, payment_review or claim_follow_up" },
        category: { type: "string", help: "A category (see the README's work queue)" },
        assignee: { type: "string", help: "Tasks assigned to this name" },
        claim: { type: "string", help: "One claim's tasks" },
        "due-before": { type: "string", help: "ISO 8601: tasks due before this time" },
        limit: { type: "string", help: "Page size, 1 to 100 (default 100)" },
        "page-token": { type: "string", help: "next_page_token or prev_page_token of a previous page" },
        db: dbOption
      }
    },
    run: (p) => {
      const query = {
        status: str(p, "status"),
        type: str(p, "type"),
        category: str(p, "category"),
        assignee: str(p, "assignee"),
        claim_id: str(p, "claim"),
        due_before: str(p, "due-before"),
        limit: whole(p, "limit", 1, 100),
        page_token: str(p, "page-token")
      }
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => listTasks(ws.id, query)))
    }
  },
  "tasks show": {
    spec: {
      usage: "encounterd tasks show TASK_ID --workspace SLUG [--db FILE]",
      summary: "One task with its causes and notes.",
      options: { workspace: workspaceOption, db: dbOption },
      positionals: ["TASK_ID"]
    },
    run: (p) => {
      const id = p.positionals[0]!
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => getTask(ws.id, id)))
    }
  },
  "tasks update": {
    spec: {
      usage: "encounterd tasks update TASK_ID --workspace SLUG [--status S] [--assignee NAME | --unassign] [--due-at TIME] [--note TEXT] [--db FILE]",
      summary: "Change a task (status, assignee, due date) and add a note, as PATCH /api/tasks/{id} does. Prints the task.",
      options: {
        workspace: workspaceOption,
        status: { type: "string", help: `One of ${TaskStatuses.join(", ")}` },
        assignee: { type: "string", help: "Whom it is assigned to" },
        unassign: { type: "boolean", help: "Assign it to no one" },
        "due-at": { type: "string", help: "ISO 8601" },
        note: { type: "string", help: "Appended to the task's notes" },
        db: dbOption
      },
      positionals: ["TASK_ID"]
    },
    run: (p) => {
      const id = p.positionals[0]!
      const assignee = str(p, "assignee")
      if (assignee !== undefined && p.values.unassign === true) throw new UsageError("--assignee and --unassign cannot both be given")
      const change = {
        status: taskStatus(str(p, "status")),
        assignee: p.values.unassign === true ? null : assignee,
        due_at: str(p, "due-at"),
        note: str(p, "note")
      }
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => updateTask(ws.id, id, change)))
    }
  },
  "tasks settings": {
    spec: {
      usage: "encounterd tasks settings --workspace SLUG [--follow-up-after-days N | --no-follow-up] [--db FILE]",
      summary: "Show, or set, the work queue's settings: after how many days without an answer from the payer a sent claim gets a follow-up task.",
      options: {
        workspace: workspaceOption,
        "follow-up-after-days": { type: "string", help: "1 to 365" },
        "no-follow-up": { type: "boolean", help: "Make no follow-up tasks" },
        db: dbOption
      }
    },
    run: (p) => {
      const days = whole(p, "follow-up-after-days", 1, 365)
      const none = p.values["no-follow-up"] === true
      if (days !== undefined && none) throw new UsageError("--follow-up-after-days and --no-follow-up cannot both be given")
      return withDb(
        dbPath(p),
        Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) =>
          days === undefined && !none ? getWorkQueueSettings(ws.id) : putWorkQueueSettings(ws.id, { follow_up_after_days: days ?? null })
        )
      )
    }
  }
}
