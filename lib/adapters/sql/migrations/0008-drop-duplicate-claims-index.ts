import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * `claims_pcn` (migration 5) indexed exactly the columns of the claims table's own
 * `UNIQUE (workspace_id, patient_control_number)`, which both SQLite and PostgreSQL already back
 * with an index: lookups by control number use that one, and every claim insert wrote both.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP INDEX IF EXISTS claims_pcn`
})
