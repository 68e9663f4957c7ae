import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A file naming many claims is applied in several writes, each short, so that the server answers
 * other requests between them; the file's row says how far it got (`import_resume_at`, the
 * outcomes applied) while `import_state` is `importing`, and a server that starts finishes such
 * files. Files stored before were applied in one write: `imported`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE x12_files ADD COLUMN import_state TEXT NOT NULL DEFAULT 'imported'`
  yield* sql`ALTER TABLE x12_files ADD COLUMN import_resume_at INTEGER`
  yield* sql`CREATE INDEX x12_files_import_state ON x12_files (workspace_id, import_state, received_at, id)`
})
