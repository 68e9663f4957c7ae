import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The endpoint limit per workspace: each endpoint holds a slot, unique in its workspace, so two
 * creates that race for the last one cannot both succeed (on one instance or several). Existing
 * endpoints take slots 0, 1, 2... in the order they were created; a workspace that has more than
 * the limit keeps them, and creates nothing more until it is under it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_endpoints ADD COLUMN slot INTEGER NOT NULL DEFAULT 0`
  yield* sql`UPDATE webhook_endpoints SET slot = (
    SELECT COUNT(*) FROM webhook_endpoints o
    WHERE o.workspace_id = webhook_endpoints.workspace_id
      AND (o.created_at < webhook_endpoints.created_at OR (o.created_at = webhook_endpoints.created_at AND o.id < webhook_endpoints.id))
  )`
  yield* sql`CREATE UNIQUE INDEX webhook_endpoints_slot ON webhook_endpoints (workspace_id, slot)`
})
