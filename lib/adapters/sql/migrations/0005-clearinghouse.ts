import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The clearinghouse exchange: per-workspace settings (with the control number counter), the 837P
 * batches sent, the X12 files received, and the remittances of each claim. A claim gains the
 * payer's claim control number and the time processing started, copied onto its encounter's row
 * like its status (with the time of its latest remittance, so reads look remittances up only
 * where there are some).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const blob = sql.onDialectOrElse({ pg: () => sql.literal("BYTEA"), orElse: () => sql.literal("BLOB") })

  yield* sql`ALTER TABLE claims ADD COLUMN payer_claim_control_number TEXT`
  yield* sql`ALTER TABLE claims ADD COLUMN processing_started_at TEXT`
  yield* sql`ALTER TABLE encounters ADD COLUMN latest_claim_payer_claim_control_number TEXT`
  yield* sql`ALTER TABLE encounters ADD COLUMN latest_claim_processing_started_at TEXT`
  yield* sql`ALTER TABLE encounters ADD COLUMN latest_claim_remittances_at TEXT`
  yield* sql`CREATE INDEX claims_pcn ON claims (workspace_id, patient_control_number)`

  yield* sql`CREATE TABLE clearinghouse_settings (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL UNIQUE,
    settings TEXT NOT NULL,
    last_control_number INTEGER NOT NULL,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE x12_batches (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    interchange_control_number INTEGER NOT NULL,
    group_control_number INTEGER NOT NULL,
    claim_ids TEXT NOT NULL,
    transaction_sets TEXT NOT NULL,
    file ${blob} NOT NULL,
    UNIQUE (workspace_id, interchange_control_number),
    UNIQUE (workspace_id, group_control_number)
  )`
  yield* sql`CREATE INDEX x12_batches_page ON x12_batches (workspace_id, created_at, id)`
  yield* sql`CREATE TABLE x12_files (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    received_at TEXT NOT NULL,
    key_id TEXT,
    content_type TEXT NOT NULL,
    kind TEXT NOT NULL,
    sender_id TEXT,
    interchange_control_number TEXT,
    interchange_key TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    body ${blob} NOT NULL,
    claims TEXT NOT NULL,
    error TEXT,
    UNIQUE (workspace_id, interchange_key)
  )`
  yield* sql`CREATE INDEX x12_files_page ON x12_files (workspace_id, received_at, id)`
  yield* sql`CREATE INDEX x12_files_sha ON x12_files (workspace_id, sha256)`
  yield* sql`CREATE TABLE remittances (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    claim_id TEXT NOT NULL,
    file_id TEXT NOT NULL,
    received_at TEXT NOT NULL,
    check_number TEXT NOT NULL,
    payment_date TEXT NOT NULL,
    payer_claim_control_number TEXT,
    charge_amount_cents INTEGER NOT NULL,
    paid_amount_cents INTEGER NOT NULL,
    patient_responsibility_cents INTEGER,
    adjustments TEXT NOT NULL,
    service_lines TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX remittances_claim ON remittances (workspace_id, claim_id)`
})
