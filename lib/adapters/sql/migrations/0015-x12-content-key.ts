import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Files as clearinghouses send them:
 *
 * - A file is a duplicate of an earlier one when it has the same content (`content_key`: the hash
 *   of its segments, whatever its line breaks), no longer when it has the same sender and ISA13:
 *   some clearinghouses reuse control numbers, and a different 999 under a reused number must be
 *   imported. `interchange_key` stays, indexed, to flag such a file (`reused_control_number_of`,
 *   the earlier file's id). The unique key moves from `(workspace_id, interchange_key)` to
 *   `(workspace_id, content_key)`; SQLite cannot drop a table constraint, so its table is rebuilt.
 *   Files stored before keep the hash of their bytes as their content key (`sha256:` + hash): the
 *   same bytes again are still found by `sha256`.
 * - A file's claim outcomes keep the response's structured detail (`response`: 999 IK3/IK4, 277CA
 *   statuses, JSON); outcomes stored before have none (null), in their rows and in the copy of the
 *   first ones on the file's row.
 * - A remittance lists what does not add up (`discrepancies`, JSON: the charge against the billed
 *   total, lines that match no billed line); remittances stored before have none.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE x12_files ADD COLUMN content_key TEXT`
  yield* sql`ALTER TABLE x12_files ADD COLUMN reused_control_number_of TEXT`
  yield* sql`UPDATE x12_files SET content_key = CASE WHEN kind = 'invalid' THEN interchange_key ELSE 'sha256:' || sha256 END`
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        yield* sql`ALTER TABLE x12_files ALTER COLUMN content_key SET NOT NULL`
        yield* sql`ALTER TABLE x12_files DROP CONSTRAINT x12_files_workspace_id_interchange_key_key`
      }),
    orElse: () =>
      Effect.gen(function* () {
        yield* sql`CREATE TABLE x12_files_rebuilt (
          id TEXT PRIMARY KEY,
          workspace_id TEXT NOT NULL,
          received_at TEXT NOT NULL,
          key_id TEXT,
          content_type TEXT NOT NULL,
          kind TEXT NOT NULL,
          sender_id TEXT,
          interchange_control_number TEXT,
          interchange_key TEXT NOT NULL,
          sha256 TEXT NOT NULL,
          claims TEXT NOT NULL,
          error TEXT,
          summary TEXT NOT NULL,
          size INTEGER NOT NULL,
          content_key TEXT NOT NULL,
          reused_control_number_of TEXT
        )`
        yield* sql`INSERT INTO x12_files_rebuilt (id, workspace_id, received_at, key_id, content_type, kind, sender_id, interchange_control_number,
            interchange_key, sha256, claims, error, summary, size, content_key, reused_control_number_of)
          SELECT id, workspace_id, received_at, key_id, content_type, kind, sender_id, interchange_control_number,
            interchange_key, sha256, claims, error, summary, size, content_key, reused_control_number_of FROM x12_files`
        yield* sql`DROP TABLE x12_files`
        yield* sql`ALTER TABLE x12_files_rebuilt RENAME TO x12_files`
        yield* sql`CREATE INDEX x12_files_page ON x12_files (workspace_id, received_at, id)`
        yield* sql`CREATE INDEX x12_files_sha ON x12_files (workspace_id, sha256)`
      })
  })
  yield* sql`CREATE UNIQUE INDEX x12_files_content ON x12_files (workspace_id, content_key)`
  yield* sql`CREATE INDEX x12_files_interchange ON x12_files (workspace_id, interchange_key, received_at, id)`

  yield* sql`ALTER TABLE x12_file_outcomes ADD COLUMN response TEXT`
  // The first outcomes copied on each file's row take the new field too (null: no detail kept then).
  const files = yield* sql<{ readonly id: string; readonly claims: string }>`SELECT id, claims FROM x12_files WHERE claims <> '[]'`
  for (const file of files) {
    const outcomes: unknown = JSON.parse(file.claims)
    if (!Array.isArray(outcomes)) continue
    const withResponse = outcomes.map((o: unknown) => (typeof o === "object" && o !== null ? { ...o, response: null } : o))
    yield* sql`UPDATE x12_files SET claims = ${JSON.stringify(withResponse)} WHERE id = ${file.id}`
  }

  yield* sql`ALTER TABLE remittances ADD COLUMN discrepancies TEXT NOT NULL DEFAULT '[]'`
})
