import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The work queue (`tasks`) and its settings per workspace.
 *
 * - `open_key` is unique in the workspace and holds `claim|type` while a task is open (its id once
 *   closed): two writers, on one instance or several, cannot both open a task of one type for a claim.
 * - Lists are oldest due first, by `(due_at, id)`, within the workspace or one filter (status,
 *   claim, assignee, type, category); a claim's open tasks are read along `open_claim_id`.
 * - `work_queue_settings` holds the follow-up delay and the lease of the sweep that makes the
 *   follow-ups (so of several instances one sweeps a workspace at a time).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    type TEXT NOT NULL,
    category TEXT NOT NULL,
    claim_id TEXT NOT NULL,
    encounter_id TEXT NOT NULL,
    external_id TEXT NOT NULL,
    status TEXT NOT NULL,
    assignee TEXT,
    due_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    closed_reason TEXT,
    causes TEXT NOT NULL,
    notes TEXT NOT NULL,
    open_key TEXT NOT NULL,
    open_claim_id TEXT,
    revision INTEGER NOT NULL
  )`
  yield* sql`CREATE UNIQUE INDEX tasks_open_key ON tasks (workspace_id, open_key)`
  yield* sql`CREATE INDEX tasks_due ON tasks (workspace_id, due_at, id)`
  for (const column of ["status", "type", "category", "assignee", "claim_id", "open_claim_id"]) {
    yield* sql`CREATE INDEX ${sql.literal(`tasks_${column}_due`)} ON tasks (workspace_id, ${sql.literal(column)}, due_at, id)`
  }
  yield* sql`CREATE TABLE work_queue_settings (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    follow_up_after_days INTEGER,
    updated_at TEXT NOT NULL,
    lease_owner TEXT,
    lease_expires_at TEXT
  )`
  yield* sql`CREATE UNIQUE INDEX work_queue_settings_workspace ON work_queue_settings (workspace_id)`
})
