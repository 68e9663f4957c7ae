import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The intake log's filters without index entries for accepted creates, the bulk of the log.
 *
 * By external id: an index keyed by external id takes every insert at a random place, so each
 * create dirtied a page of its own in it (written to the WAL, then checkpointed). Every external
 * id already has one random-place entry per create, the encounter's unique key; the accepted
 * request is now found through it: the encounter names the raw request that created it
 * (`raw_request_id`, filled here for the encounters stored before), and the external-id index
 * keeps only the other requests (replays and rejections).
 *
 * By outcome: the outcome index keeps the replays and rejections only. Accepted requests, the
 * usual outcome, are read along the log's own time index, skipping the others.
 *
 * `rawRequestPage` writes the reads that use them.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE encounters ADD COLUMN raw_request_id TEXT`
  yield* sql`UPDATE encounters SET raw_request_id = (
    SELECT r.id FROM raw_requests r
    WHERE r.workspace_id = encounters.workspace_id AND r.external_id = encounters.external_id AND r.outcome = 'accepted'
    ORDER BY r.received_at, r.id LIMIT 1
  )`
  yield* sql`DROP INDEX raw_requests_external_page`
  yield* sql`CREATE INDEX raw_requests_unaccepted_external ON raw_requests (workspace_id, external_id, received_at, id) WHERE outcome <> 'accepted'`
  yield* sql`DROP INDEX raw_requests_outcome_page`
  yield* sql`CREATE INDEX raw_requests_unaccepted_outcome ON raw_requests (workspace_id, outcome, received_at, id) WHERE outcome <> 'accepted'`
})
