import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Pending deliveries by endpoint, soonest first: the delivery worker reads the due deliveries of
 * the endpoints not at their limit through it, without walking the backlog of those that are.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX webhook_deliveries_due_by_endpoint ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending'`
})
