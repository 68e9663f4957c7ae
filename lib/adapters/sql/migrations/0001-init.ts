import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The first schema. Dialect differences (the event sequence, the blob type) are kept here, in
 * `onDialectOrElse`; everything else is portable SQL.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const seq = sql.onDialectOrElse({
    pg: () => sql.literal("seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
    orElse: () => sql.literal("seq INTEGER PRIMARY KEY AUTOINCREMENT")
  })
  const blob = sql.onDialectOrElse({ pg: () => sql.literal("BYTEA"), orElse: () => sql.literal("BLOB") })

  yield* sql`CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  )`
  yield* sql`CREATE INDEX api_keys_workspace ON api_keys (workspace_id)`
  yield* sql`CREATE TABLE raw_requests (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    key_id TEXT,
    received_at TEXT NOT NULL,
    content_type TEXT NOT NULL,
    body ${blob} NOT NULL,
    outcome TEXT,
    result TEXT
  )`
  yield* sql`CREATE TABLE encounters (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    external_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    source TEXT NOT NULL,
    payload TEXT NOT NULL,
    latest_claim_id TEXT NOT NULL,
    latest_claim_status TEXT NOT NULL,
    initial_claim_status TEXT NOT NULL,
    initial_patient_control_number TEXT NOT NULL,
    last_event_at TEXT NOT NULL,
    UNIQUE (workspace_id, external_id)
  )`
  yield* sql`CREATE INDEX encounters_page ON encounters (workspace_id, created_at, id)`
  yield* sql`CREATE INDEX encounters_status_page ON encounters (workspace_id, latest_claim_status, created_at, id)`
  yield* sql`CREATE TABLE claims (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    encounter_id TEXT NOT NULL REFERENCES encounters (id),
    created_at TEXT NOT NULL,
    status TEXT NOT NULL,
    status_changed_at TEXT NOT NULL,
    patient_control_number TEXT NOT NULL,
    UNIQUE (workspace_id, patient_control_number)
  )`
  yield* sql`CREATE TABLE events (
    ${seq},
    id TEXT NOT NULL UNIQUE,
    workspace_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    created_at TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    payload TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX events_feed ON events (workspace_id, seq)`
  yield* sql`CREATE INDEX events_type_feed ON events (workspace_id, event_type, seq)`
})
