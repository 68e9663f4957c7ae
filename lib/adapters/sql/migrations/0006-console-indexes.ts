import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An encounter's own events, read directly: each event's encounter id (from its payload) as a
 * column the database keeps, and an index on (workspace, encounter, seq) that holds an
 * encounter's timeline in recorded order. The column is generated, so no write names it and
 * events stored before are covered too: SQLite computes it when the index is built and on every
 * insert (a virtual column: the only kind ALTER TABLE adds there); PostgreSQL stores it, filled
 * for existing rows by the ALTER TABLE. The claim counts need no index of their own: they count
 * along `encounters_status_page`, whose leading columns are (workspace, latest claim status).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const column = sql.onDialectOrElse({
    pg: () => sql.literal("encounter_id TEXT GENERATED ALWAYS AS ((payload::jsonb) ->> 'encounter_id') STORED"),
    orElse: () => sql.literal("encounter_id TEXT GENERATED ALWAYS AS (json_extract(payload, '$.encounter_id')) VIRTUAL")
  })
  yield* sql`ALTER TABLE events ADD COLUMN ${column}`
  yield* sql`CREATE INDEX events_encounter ON events (workspace_id, encounter_id, seq)`
})
