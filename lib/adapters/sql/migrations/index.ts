import { Migrator } from "@effect/sql"
import init from "./0001-init.js"
import encounterClaimColumns from "./0002-encounter-claim-columns.js"

/**
 * Versioned migrations, imported statically: a compiled binary has no migrations folder on disk.
 * Keys are `<id>_<name>`; add new ones with the next id, never edit a released one.
 */
export const migrations = Migrator.fromRecord({
  "1_init": init,
  "2_encounter_claim_columns": encounterClaimColumns
})

/** The id of the newest migration (a database that has it applied is current). */
export const latestMigrationId = 2

/** Runs the migrations not yet applied (recorded in `effect_sql_migrations`). */
export const migrate = Migrator.make({})({ loader: migrations })
