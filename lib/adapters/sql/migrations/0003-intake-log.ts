import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The intake log: a raw request's external id beside its outcome, and the indexes its filters
 * page on (newest first by received_at, id). Requests stored before have no external id.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE raw_requests ADD COLUMN external_id TEXT`
  yield* sql`CREATE INDEX raw_requests_page ON raw_requests (workspace_id, received_at, id)`
  yield* sql`CREATE INDEX raw_requests_outcome_page ON raw_requests (workspace_id, outcome, received_at, id)`
  yield* sql`CREATE INDEX raw_requests_external_page ON raw_requests (workspace_id, external_id, received_at, id)`
})
