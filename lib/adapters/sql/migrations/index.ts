import { Migrator } from "@effect/sql"
import init from "./0001-init.js"
import encounterClaimColumns from "./0002-encounter-claim-columns.js"
import intakeLog from "./0003-intake-log.js"
import webhooks from "./0004-webhooks.js"
import clearinghouse from "./0005-clearinghouse.js"
import consoleIndexes from "./0006-console-indexes.js"
import encounterRevision from "./0007-encounter-revision.js"
import dropDuplicateClaimsIndex from "./0008-drop-duplicate-claims-index.js"
import deliveriesDueByEndpoint from "./0009-deliveries-due-by-endpoint.js"
import acceptedRequestByEncounter from "./0010-accepted-request-by-encounter.js"
import webhookEndpointSlots from "./0011-webhook-endpoint-slots.js"
import x12Bounds from "./0012-x12-bounds.js"
import encounterSearch from "./0013-encounter-search.js"
import claimCorrections from "./0014-claim-corrections.js"
import x12ContentKey from "./0015-x12-content-key.js"
import statusChecks from "./0016-status-checks.js"
import clearinghouseConnections from "./0017-clearinghouse-connections.js"
import usersAuditRetention from "./0018-users-audit-retention.js"
import tasks from "./0019-tasks.js"
import x12ImportProgress from "./0020-x12-import-progress.js"

/**
 * Versioned migrations, imported statically: a compiled binary has no migrations folder on disk.
 * Keys are `<id>_<name>`; add new ones with the next id, never edit a released one. Ids need not
 * be contiguous (the migrator runs every id above the newest one applied, in order), but a
 * database runs an id only while it is above that newest one: an id below one already released
 * would never run on the databases that have it.
 */
const all = {
  "1_init": init,
  "2_encounter_claim_columns": encounterClaimColumns,
  "3_intake_log": intakeLog,
  "4_webhooks": webhooks,
  "5_clearinghouse": clearinghouse,
  "6_console_indexes": consoleIndexes,
  "7_encounter_revision": encounterRevision,
  "8_drop_duplicate_claims_index": dropDuplicateClaimsIndex,
  "9_deliveries_due_by_endpoint": deliveriesDueByEndpoint,
  "10_accepted_request_by_encounter": acceptedRequestByEncounter,
  "11_webhook_endpoint_slots": webhookEndpointSlots,
  "12_x12_bounds": x12Bounds,
  "13_encounter_search": encounterSearch,
  "14_claim_corrections": claimCorrections,
  "15_x12_content_key": x12ContentKey,
  "16_status_checks": statusChecks,
  "17_clearinghouse_connections": clearinghouseConnections,
  "18_users_audit_retention": usersAuditRetention,
  "19_tasks": tasks,
  "20_x12_import_progress": x12ImportProgress
}

export const migrations = Migrator.fromRecord(all)

/** The migrations up to `id`, inclusive, by key: what a database made before a later one had (for tests of that later one). */
export const migrationsThrough = (id: number): Record<string, (typeof all)[keyof typeof all]> =>
  Object.fromEntries(Object.entries(all).filter(([key]) => Number(key.split("_")[0]) <= id))

/** The id of the newest migration (a database that has it applied is current). */
export const latestMigrationId = 20

/** Runs the migrations not yet applied (recorded in `effect_sql_migrations`). */
export const migrate = Migrator.make({})({ loader: migrations })
