-- The SQLite tables and indexes of encounterd (lib/adapters/sql/migrations/0001-init.ts, and the audit log of 0018), for the
-- reference servers. Safe to apply to an existing database.

CREATE TABLE IF NOT EXISTS workspaces (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_workspace ON api_keys (workspace_id);

CREATE TABLE IF NOT EXISTS raw_requests (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  key_id TEXT,
  received_at TEXT NOT NULL,
  content_type TEXT NOT NULL,
  body BLOB NOT NULL,
  outcome TEXT,
  result TEXT
);

CREATE TABLE IF NOT EXISTS encounters (
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
);
CREATE INDEX IF NOT EXISTS encounters_page ON encounters (workspace_id, created_at, id);
CREATE INDEX IF NOT EXISTS encounters_status_page ON encounters (workspace_id, latest_claim_status, created_at, id);

CREATE TABLE IF NOT EXISTS claims (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  encounter_id TEXT NOT NULL REFERENCES encounters (id),
  created_at TEXT NOT NULL,
  status TEXT NOT NULL,
  status_changed_at TEXT NOT NULL,
  patient_control_number TEXT NOT NULL,
  UNIQUE (workspace_id, patient_control_number)
);

CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  workspace_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  created_at TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_feed ON events (workspace_id, seq);
CREATE INDEX IF NOT EXISTS events_type_feed ON events (workspace_id, event_type, seq);

CREATE TABLE IF NOT EXISTS audit_log (
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
);
CREATE INDEX IF NOT EXISTS audit_log_page ON audit_log (workspace_id, at, id);
CREATE INDEX IF NOT EXISTS audit_log_actor ON audit_log (workspace_id, actor_id, at, id);
CREATE INDEX IF NOT EXISTS audit_log_resource ON audit_log (workspace_id, resource_id, at, id);
CREATE INDEX IF NOT EXISTS audit_log_action ON audit_log (workspace_id, action, at, id);
