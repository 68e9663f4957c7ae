import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Claim status inquiries: a claim (and its copy on the encounter's row) gains `last_checked_at`;
 * the checks are a table paged per claim and per state (the file export's queue and the `core`
 * sender read the queued ones), unique per follow-up round; each workspace's follow-up settings
 * are one JSON row.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE claims ADD COLUMN last_checked_at TEXT`
  yield* sql`ALTER TABLE encounters ADD COLUMN latest_claim_last_checked_at TEXT`
  yield* sql`CREATE TABLE status_checks (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    claim_id TEXT NOT NULL,
    transport TEXT NOT NULL,
    status TEXT NOT NULL,
    trace_number TEXT NOT NULL,
    origin TEXT NOT NULL,
    round_key TEXT NOT NULL,
    created_at TEXT NOT NULL,
    sent_at TEXT,
    answered_at TEXT,
    statuses TEXT NOT NULL,
    effect TEXT,
    error TEXT,
    attempts INTEGER NOT NULL,
    next_attempt_at TEXT,
    lease_owner TEXT,
    lease_expires_at TEXT,
    UNIQUE (workspace_id, round_key)
  )`
  yield* sql`CREATE INDEX status_checks_claim_page ON status_checks (workspace_id, claim_id, created_at, id)`
  yield* sql`CREATE INDEX status_checks_status_page ON status_checks (workspace_id, status, created_at, id)`
  yield* sql`CREATE TABLE status_check_settings (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL UNIQUE,
    settings TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
})
