import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * SFTP connections to clearinghouses (settings as JSON, the secret sealed), the uploads of batch
 * files to them and the files picked up from them. Each (connection, batch) is uploaded once and
 * each file seen (connection, name|size|mtime) picked up once: unique keys, so two instances
 * cannot both queue or record one. Lists read along (workspace or connection, created_at, id).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE clearinghouse_connections (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    settings TEXT NOT NULL,
    auth_method TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    uploads_since TEXT,
    last_success_at TEXT,
    last_error TEXT,
    last_error_code TEXT,
    last_error_at TEXT,
    failures INTEGER NOT NULL,
    retry_at TEXT,
    next_poll_at TEXT NOT NULL,
    lease_owner TEXT,
    lease_expires_at TEXT,
    payers TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX clearinghouse_connections_page ON clearinghouse_connections (workspace_id, created_at, id)`
  yield* sql`CREATE TABLE clearinghouse_uploads (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    batch_kind TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    group_control_number INTEGER,
    file_name TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    next_attempt_at TEXT,
    uploaded_at TEXT,
    acknowledged_at TEXT,
    created_at TEXT NOT NULL
  )`
  yield* sql`CREATE UNIQUE INDEX clearinghouse_uploads_batch ON clearinghouse_uploads (connection_id, batch_id)`
  yield* sql`CREATE INDEX clearinghouse_uploads_page ON clearinghouse_uploads (connection_id, created_at, id)`
  yield* sql`CREATE INDEX clearinghouse_uploads_status ON clearinghouse_uploads (connection_id, status, created_at, id)`
  yield* sql`CREATE TABLE clearinghouse_pickups (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    file_name TEXT NOT NULL,
    size ${sql.onDialectOrElse({ pg: () => sql.literal("BIGINT"), orElse: () => sql.literal("INTEGER") })} NOT NULL,
    mtime ${sql.onDialectOrElse({ pg: () => sql.literal("BIGINT"), orElse: () => sql.literal("INTEGER") })} NOT NULL,
    seen_key TEXT NOT NULL,
    status TEXT NOT NULL,
    sha256 TEXT,
    file_id TEXT,
    kind TEXT,
    error TEXT,
    attempts INTEGER NOT NULL,
    archived_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE UNIQUE INDEX clearinghouse_pickups_seen ON clearinghouse_pickups (connection_id, seen_key)`
  yield* sql`CREATE INDEX clearinghouse_pickups_page ON clearinghouse_pickups (connection_id, created_at, id)`
  yield* sql`CREATE INDEX clearinghouse_pickups_status ON clearinghouse_pickups (connection_id, status, created_at, id)`
})
