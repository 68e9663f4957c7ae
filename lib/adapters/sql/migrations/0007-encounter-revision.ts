import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Each encounter row's revision: how many times it was written after its insert. Every update of
 * the row adds one (`TableDef.revision`), so a reader that kept an encounter it read knows, from
 * the revision alone, whether the row is still the one it read. Rows stored before start at 0:
 * no reader has kept anything of them yet.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE encounters ADD COLUMN revision INTEGER NOT NULL DEFAULT 0`
})
