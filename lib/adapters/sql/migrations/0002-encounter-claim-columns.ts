import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The latest claim's creation time, status time and control number, copied onto its encounter
 * (its status already is): a read of an encounter is then one row of one table, without a join.
 * The claims table stays the record; every write of a claim's status writes the copy in the same
 * transaction. Existing rows are filled from their claims.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE encounters ADD COLUMN latest_claim_created_at TEXT`
  yield* sql`ALTER TABLE encounters ADD COLUMN latest_claim_status_changed_at TEXT`
  yield* sql`ALTER TABLE encounters ADD COLUMN latest_claim_patient_control_number TEXT`
  yield* sql`UPDATE encounters SET
    latest_claim_created_at = (SELECT c.created_at FROM claims c WHERE c.id = encounters.latest_claim_id),
    latest_claim_status_changed_at = (SELECT c.status_changed_at FROM claims c WHERE c.id = encounters.latest_claim_id),
    latest_claim_patient_control_number = (SELECT c.patient_control_number FROM claims c WHERE c.id = encounters.latest_claim_id)`
})
