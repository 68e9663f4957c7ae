import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Push delivery: the endpoints a workspace registers (secrets sealed, see secret-box.ts) and the
 * outbox of deliveries, written in the same transaction as their event. The partial index serves
 * the worker's poll for due deliveries; the page indexes serve the lists (newest first; the
 * delivery log's status filter reads along the endpoint's page, keeping the outbox insert, which
 * every create pays, to three indexes).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    url TEXT NOT NULL,
    event_types TEXT NOT NULL,
    description TEXT,
    status TEXT NOT NULL,
    disabled_reason TEXT,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expires_at TEXT,
    failing_since TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX webhook_endpoints_page ON webhook_endpoints (workspace_id, created_at, id)`
  yield* sql`CREATE INDEX webhook_endpoints_status ON webhook_endpoints (workspace_id, status)`
  yield* sql`CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_attempt_at TEXT,
    last_response_status INTEGER,
    last_error TEXT,
    next_attempt_at TEXT,
    created_at TEXT NOT NULL,
    lease_owner TEXT,
    lease_expires_at TEXT
  )`
  yield* sql`CREATE INDEX webhook_deliveries_page ON webhook_deliveries (endpoint_id, created_at, id)`
  yield* sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`
})
