import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Several claims per encounter (corrections, issue "a claim's second life"): each claim's frequency
 * code (CLM05-3), the claim it was made from and how, the payer's number of the claim it replaces
 * or voids, the exchange's identifiers, the primary claim a secondary claim carries, and its own
 * content when that is no longer its encounter's. The encounter's row copies the new columns of its
 * latest claim (`latest_claim_*`), as it copies the others. Existing claims are originals (`1`)
 * with none of the rest. An encounter's claims are listed along (workspace, encounter, created_at, id).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const [table, prefix] of [["claims", ""], ["encounters", "latest_claim_"]] as const) {
    const t = sql.literal(table)
    const c = (name: string) => sql.literal(prefix + name)
    yield* sql`ALTER TABLE ${t} ADD COLUMN ${c("frequency_code")} TEXT NOT NULL DEFAULT '1'`
    yield* sql`ALTER TABLE ${t} ADD COLUMN ${c("resubmission_original_claim_id")} TEXT`
    yield* sql`ALTER TABLE ${t} ADD COLUMN ${c("resubmission_action")} TEXT`
    yield* sql`ALTER TABLE ${t} ADD COLUMN ${c("original_payer_claim_control_number")} TEXT`
    yield* sql`ALTER TABLE ${t} ADD COLUMN ${c("clearinghouse_transaction_ids")} TEXT NOT NULL DEFAULT '[]'`
    yield* sql`ALTER TABLE ${t} ADD COLUMN ${c("primary_claim_id")} TEXT`
  }
  yield* sql`ALTER TABLE claims ADD COLUMN payload TEXT`
  yield* sql`CREATE INDEX claims_encounter_page ON claims (workspace_id, encounter_id, created_at, id)`
})
