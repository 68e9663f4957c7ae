import type { Schema } from "effect"
import { ClearinghouseConnectionRecord } from "../domain/clearinghouse-connection.js"
import { ClearinghousePickupRecord, ClearinghouseUploadRecord } from "../domain/clearinghouse-transfers.js"
import { ClaimRecord, EncounterRow, RawRequestRecord } from "../domain/encounter.js"
import { StoredEvent } from "../domain/event.js"
import { RemittanceRecord } from "../domain/remittance.js"
import { StatusCheckRecord, StatusCheckSettingsRecord } from "../domain/status-check.js"
import { TaskRecord, WorkQueueSettingsRecord } from "../domain/task.js"
import { WebhookDeliveryRecord, WebhookEndpoint } from "../domain/webhook.js"
import { ApiKeyRecord, WorkspaceRecord } from "../domain/workspace.js"
import { AuditRecord } from "../domain/audit.js"
import { RetentionRecord } from "../domain/retention.js"
import { UserRecord } from "../domain/user.js"
import { ClearinghouseSettingsRecord, X12BatchRecord, X12FileBodyRecord, X12FileOutcomeRecord, X12FileRecord } from "../domain/x12-exchange.js"

/**
 * A stored table: the domain schema of its rows, the columns that hold JSON, and its unique keys
 * (by name). Every adapter stores exactly these records; the SQL statements, the row codec and the
 * memory adapter's indexes are all derived from this one definition.
 */
export interface TableDef<S extends Schema.Schema.AnyNoContext> {
  readonly name: string
  readonly record: S
  /** Columns stored as JSON text. */
  readonly json: ReadonlyArray<keyof Schema.Schema.Type<S> & string>
  /** Columns filled by the database (never inserted). */
  readonly generated: ReadonlyArray<keyof Schema.Schema.Type<S> & string>
  readonly unique: Readonly<Record<string, ReadonlyArray<keyof Schema.Schema.Type<S> & string>>>
  /** A number column every update adds one to, whatever else it sets (inserts write it as given). */
  readonly revision?: keyof Schema.Schema.Type<S> & string
  /** Number columns PostgreSQL stores as BIGINT, which its driver answers as text: read as numbers. */
  readonly bigint?: ReadonlyArray<keyof Schema.Schema.Type<S> & string>
  /**
   * JSON columns parsed (and checked against their schema) when first read rather than when the
   * row is: a read that answers with a render it already holds never needs them.
   */
  readonly lazy?: ReadonlyArray<keyof Schema.Schema.Type<S> & string>
}

const table = <S extends Schema.Schema.AnyNoContext>(def: TableDef<S>): TableDef<S> => def

export const Tables = {
  workspaces: table({ name: "workspaces", record: WorkspaceRecord, json: [], generated: [], unique: { slug: ["slug"] } }),
  api_keys: table({ name: "api_keys", record: ApiKeyRecord, json: ["scopes"], generated: [], unique: { hash: ["hash"] } }),
  raw_requests: table({ name: "raw_requests", record: RawRequestRecord, json: ["result"], generated: [], unique: {} }),
  encounters: table({
    name: "encounters",
    record: EncounterRow,
    json: ["payload", "latest_claim_clearinghouse_transaction_ids"],
    // A read or a list page answered from its renders (server/rendered.ts) never looks at the payload.
    lazy: ["payload"],
    generated: [],
    unique: { external_id: ["workspace_id", "external_id"] },
    revision: "revision",
    // A claim's lines may add up past a 32-bit integer.
    bigint: ["billed_cents"]
  }),
  claims: table({
    name: "claims",
    record: ClaimRecord,
    json: ["clearinghouse_transaction_ids", "payload"],
    generated: [],
    unique: { patient_control_number: ["workspace_id", "patient_control_number"] }
  }),
  events: table({ name: "events", record: StoredEvent, json: ["payload"], generated: ["seq"], unique: {} }),
  clearinghouse_settings: table({
    name: "clearinghouse_settings",
    record: ClearinghouseSettingsRecord,
    json: ["settings"],
    generated: [],
    unique: { workspace: ["workspace_id"] }
  }),
  x12_batches: table({
    name: "x12_batches",
    record: X12BatchRecord,
    json: ["claim_ids", "transaction_sets"],
    generated: [],
    unique: {
      interchange: ["workspace_id", "interchange_control_number"],
      group: ["workspace_id", "group_control_number"]
    }
  }),
  // A file with the same content as an earlier one is a duplicate; the same sender and ISA13 is not.
  x12_files: table({
    name: "x12_files",
    record: X12FileRecord,
    json: ["claims", "summary"],
    generated: [],
    unique: { content: ["workspace_id", "content_key"] }
  }),
  // A file's bytes apart from its row: no read of files reads them.
  x12_file_bodies: table({ name: "x12_file_bodies", record: X12FileBodyRecord, json: [], generated: [], unique: {} }),
  x12_file_outcomes: table({ name: "x12_file_outcomes", record: X12FileOutcomeRecord, json: ["response"], generated: [], unique: {} }),
  remittances: table({
    name: "remittances",
    record: RemittanceRecord,
    json: ["adjustments", "service_lines", "discrepancies"],
    generated: [],
    unique: {}
  }),
  webhook_endpoints: table({
    name: "webhook_endpoints",
    record: WebhookEndpoint,
    json: ["event_types"],
    generated: [],
    unique: { slot: ["workspace_id", "slot"] }
  }),
  webhook_deliveries: table({ name: "webhook_deliveries", record: WebhookDeliveryRecord, json: [], generated: [], unique: {} }),
  clearinghouse_connections: table({
    name: "clearinghouse_connections",
    record: ClearinghouseConnectionRecord,
    json: ["settings", "payers"],
    generated: [],
    unique: {}
  }),
  clearinghouse_uploads: table({
    name: "clearinghouse_uploads",
    record: ClearinghouseUploadRecord,
    json: [],
    generated: [],
    unique: { batch: ["connection_id", "batch_id"] }
  }),
  clearinghouse_pickups: table({
    name: "clearinghouse_pickups",
    record: ClearinghousePickupRecord,
    json: [],
    generated: [],
    unique: { seen: ["connection_id", "seen_key"] },
    bigint: ["size", "mtime"]
  }),
  // A follow-up is decided once however many instances decide it: its round is unique.
  status_checks: table({
    name: "status_checks",
    record: StatusCheckRecord,
    json: ["statuses", "effect"],
    generated: [],
    unique: { round: ["workspace_id", "round_key"] }
  }),
  status_check_settings: table({
    name: "status_check_settings",
    record: StatusCheckSettingsRecord,
    json: ["settings"],
    generated: [],
    unique: { workspace: ["workspace_id"] }
  }),
  // One open task per claim and type: `open_key` is `claim|type` only while the task is open.
  tasks: table({
    name: "tasks",
    record: TaskRecord,
    json: ["causes", "notes"],
    generated: [],
    unique: { open: ["workspace_id", "open_key"] },
    revision: "revision"
  }),
  work_queue_settings: table({
    name: "work_queue_settings",
    record: WorkQueueSettingsRecord,
    json: [],
    generated: [],
    unique: { workspace: ["workspace_id"] }
  }),
  users: table({ name: "users", record: UserRecord, json: [], generated: [], unique: { email: ["workspace_id", "email"] } }),
  // Append-only: no rule updates or removes an entry, except the retention purge (rules/retention.ts).
  audit_log: table({ name: "audit_log", record: AuditRecord, json: [], generated: [], unique: {} }),
  retention_settings: table({
    name: "retention_settings",
    record: RetentionRecord,
    json: [],
    generated: [],
    unique: { workspace: ["workspace_id"] }
  })
} as const

export type Tables = typeof Tables
export type TableName = keyof Tables
/** The record stored in a table. */
export type RecordOf<T extends TableName> = Schema.Schema.Type<Tables[T]["record"]>
/** The names of a table's unique keys. */
export type UniqueOf<T extends TableName> = keyof Tables[T]["unique"] & string

/** Tables whose rows belong to a workspace (`workspace_id`): those `Storage.get` reads by id. */
export type WorkspaceTable = Exclude<TableName, "workspaces" | "events">

/** A table's newest-first page key: its time column (then `id`), and the columns a page may be filtered on. */
interface PageKey<T extends TableName> {
  readonly time: keyof RecordOf<T> & string
  readonly filters: ReadonlyArray<keyof RecordOf<T> & string>
  /** Oldest first instead (a queue by due date). */
  readonly oldestFirst?: true
}

/**
 * The tables `Storage.page` lists, newest first by (time, id) within a workspace, each served by
 * an index on (workspace or filter, time, id) (see the migrations).
 */
export const Pages = {
  x12_batches: { time: "created_at", filters: [] },
  // `import_state`: the files still importing, which a starting server finishes.
  x12_files: { time: "received_at", filters: ["import_state"] },
  // A claim's remittances (reads of the claim carry only its most recent).
  remittances: { time: "received_at", filters: ["claim_id"] },
  webhook_endpoints: { time: "created_at", filters: [] },
  // An encounter's claims (a correction adds one).
  claims: { time: "created_at", filters: ["encounter_id"] },
  webhook_deliveries: { time: "created_at", filters: ["endpoint_id", "status"] },
  clearinghouse_connections: { time: "created_at", filters: [] },
  clearinghouse_uploads: { time: "created_at", filters: ["connection_id", "status"] },
  clearinghouse_pickups: { time: "created_at", filters: ["connection_id", "status"] },
  // A claim's checks, and the checks in one state (the file export's queue, the core sender's).
  status_checks: { time: "created_at", filters: ["claim_id", "status"] },
  // The work queue, oldest due first (a claim's open tasks are read by `findOpenTasksOfClaim`).
  tasks: { time: "due_at", filters: ["status", "type", "category", "assignee", "claim_id"], oldestFirst: true },
  users: { time: "created_at", filters: [] },
  audit_log: { time: "at", filters: ["actor_id", "resource_id", "action"] }
} as const satisfies { readonly [T in TableName]?: PageKey<T> }

export type PagedTable = keyof typeof Pages
/** The columns a page of `T` may be filtered on. */
export type PageFilter<T extends PagedTable> = (typeof Pages)[T]["filters"][number]
