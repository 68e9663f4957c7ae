import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Console users, the audit log and retention settings.
 *
 * - `users`: one email once per workspace (`UNIQUE(workspace_id, email)`); sign-in names no
 *   workspace, so emails are also looked up across workspaces (`users_email`).
 * - `audit_log`: append-only. Read newest first per workspace, or along one actor, resource or
 *   action (an index each, (workspace, filter, at, id)); the retention purge reads the oldest along
 *   `audit_log_page`.
 * - `retention_settings`: one row per workspace that has set anything.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE users (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    email TEXT NOT NULL,
    name TEXT,
    role TEXT NOT NULL,
    status TEXT NOT NULL,
    password_hash TEXT,
    password_state TEXT NOT NULL,
    failed_sign_ins INTEGER NOT NULL,
    locked_until TEXT,
    last_sign_in_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (workspace_id, email)
  )`
  yield* sql`CREATE INDEX users_email ON users (email)`
  yield* sql`CREATE INDEX users_page ON users (workspace_id, created_at, id)`
  yield* sql`CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    at TEXT NOT NULL,
    actor_kind TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    actor_name TEXT NOT NULL,
    action TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id TEXT,
    client_ip TEXT,
    request_id TEXT,
    outcome TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX audit_log_page ON audit_log (workspace_id, at, id)`
  yield* sql`CREATE INDEX audit_log_actor ON audit_log (workspace_id, actor_id, at, id)`
  yield* sql`CREATE INDEX audit_log_resource ON audit_log (workspace_id, resource_id, at, id)`
  yield* sql`CREATE INDEX audit_log_action ON audit_log (workspace_id, action, at, id)`
  yield* sql`CREATE TABLE retention_settings (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL UNIQUE REFERENCES workspaces (id),
    raw_request_days INTEGER,
    audit_days INTEGER NOT NULL,
    updated_at TEXT NOT NULL
  )`
})
