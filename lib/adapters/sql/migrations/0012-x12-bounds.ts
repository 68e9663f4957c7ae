import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { FILE_OUTCOMES_SHOWN, InboundClaimOutcome, summarize } from "../../../domain/x12-exchange.js"

// The outcome as it was stored when this migration was written (migration 15 added `response`).
const decodeOutcomes = Schema.decodeUnknownSync(Schema.parseJson(Schema.Array(InboundClaimOutcome.pipe(Schema.omit("response")))))

/**
 * Reads of the exchange that never load what one file can make unbounded:
 *
 * - A file's claim outcomes get a table of their own (`x12_file_outcomes`, paged in file order
 *   along `(workspace_id, file_id, position)`). The file's row keeps only its first outcomes and a
 *   summary (counts by outcome), so the list of files reads a few hundred bytes per file.
 * - A file's row keeps its size, so no read of files reads their bytes.
 * - Remittances are read newest first per claim along `(workspace_id, claim_id, received_at, id)`:
 *   a read of a claim takes its most recent ones, a page of them seeks; the index replaces the one
 *   on `(workspace_id, claim_id)`, its prefix.
 *
 * The outcomes of the files already stored move to the new table, file by file.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const zero = JSON.stringify(summarize([]))
  yield* sql`ALTER TABLE x12_files ADD COLUMN summary TEXT NOT NULL DEFAULT ${sql.literal(`'${zero}'`)}`
  yield* sql`ALTER TABLE x12_files ADD COLUMN size INTEGER NOT NULL DEFAULT 0`
  yield* sql.onDialectOrElse({
    pg: () => sql`UPDATE x12_files SET size = octet_length(body)`,
    orElse: () => sql`UPDATE x12_files SET size = length(body)`
  })
  yield* sql`CREATE TABLE x12_file_bodies (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    body ${sql.onDialectOrElse({ pg: () => sql.literal("BYTEA"), orElse: () => sql.literal("BLOB") })} NOT NULL
  )`
  yield* sql`INSERT INTO x12_file_bodies (id, workspace_id, body) SELECT id, workspace_id, body FROM x12_files`
  yield* sql`ALTER TABLE x12_files DROP COLUMN body`
  yield* sql`CREATE TABLE x12_file_outcomes (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    file_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    patient_control_number TEXT,
    claim_id TEXT,
    outcome TEXT NOT NULL,
    previous_status TEXT,
    status TEXT,
    detail TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX x12_file_outcomes_page ON x12_file_outcomes (workspace_id, file_id, position)`

  const files = yield* sql<{ readonly id: string; readonly workspace_id: string }>`SELECT id, workspace_id FROM x12_files WHERE claims <> '[]'`
  for (const file of files) {
    const [row] = yield* sql<{ readonly claims: string }>`SELECT claims FROM x12_files WHERE id = ${file.id}`
    const outcomes = row === undefined ? [] : decodeOutcomes(row.claims)
    for (let position = 0; position < outcomes.length; position++) {
      const o = outcomes[position]!
      yield* sql`INSERT INTO x12_file_outcomes (id, workspace_id, file_id, position, patient_control_number, claim_id, outcome, previous_status, status, detail)
        VALUES (${`${file.id}.${position}`}, ${file.workspace_id}, ${file.id}, ${position}, ${o.patient_control_number}, ${o.claim_id}, ${o.outcome}, ${o.previous_status}, ${o.status}, ${o.detail})`
    }
    yield* sql`UPDATE x12_files SET claims = ${JSON.stringify(outcomes.slice(0, FILE_OUTCOMES_SHOWN))}, summary = ${JSON.stringify(summarize(outcomes))} WHERE id = ${file.id}`
  }

  yield* sql`CREATE INDEX remittances_claim_page ON remittances (workspace_id, claim_id, received_at, id)`
  yield* sql`DROP INDEX remittances_claim`
})
