import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Finding an encounter, and the money of the claims by status. The values live in the stored
 * payload (JSON); they become columns of their own, written at intake (`searchColumns`) and filled
 * here for the rows stored before:
 *
 * - `patient_last_name_lower`, `patient_date_of_birth`, `date_of_service` (the encounter's or its
 *   first line's), `payer_id` (the primary insurance card's): the list filters, each read along an
 *   index on (workspace, column, created_at, id). A prefix or a date range reads the index
 *   entries of its range only (they hold the newest-first key), then the page's rows.
 * - `external_id_prefix` reads `encounters_external_prefix` the same way: the unique key on
 *   (workspace, external id) holds no time, and a broad prefix would look up every row it holds.
 * - `billed_cents` (the sum of the lines' charges): the counts per status sum it along
 *   (workspace, status, billed_cents, id), which also orders a status's work list by amount;
 *   (workspace, status, status_changed_at, id) orders it by age.
 *
 * Prefixes are ranges of byte order: SQLite compares text so; on PostgreSQL the name column and
 * the external id take the "C" collation (equality is unchanged: deterministic collations compare
 * bytes for equality), so a range means the same on both and under any database locale.
 *
 * Case folding: SQL `lower()` folds ASCII alone on SQLite (and depends on the locale on
 * PostgreSQL), so names with other characters are folded again here, as intake folds them
 * (`foldName`; written out here, since a migration must not change once released).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const bytewise = sql.onDialectOrElse({ pg: () => sql.literal('TEXT COLLATE "C"'), orElse: () => sql.literal("TEXT") })
  const bigint = sql.onDialectOrElse({ pg: () => sql.literal("BIGINT"), orElse: () => sql.literal("INTEGER") })
  yield* sql`ALTER TABLE encounters ADD COLUMN patient_last_name_lower ${bytewise} NOT NULL DEFAULT ''`
  yield* sql`ALTER TABLE encounters ADD COLUMN patient_date_of_birth TEXT NOT NULL DEFAULT ''`
  yield* sql`ALTER TABLE encounters ADD COLUMN date_of_service TEXT`
  yield* sql`ALTER TABLE encounters ADD COLUMN payer_id TEXT`
  yield* sql`ALTER TABLE encounters ADD COLUMN billed_cents ${bigint} NOT NULL DEFAULT 0`
  yield* sql.onDialectOrElse({
    pg: () => sql`ALTER TABLE encounters ALTER COLUMN external_id TYPE TEXT COLLATE "C"`,
    orElse: () => Effect.void
  })

  yield* sql.onDialectOrElse({
    pg: () => sql`UPDATE encounters SET
        patient_last_name_lower = lower(coalesce(s.p #>> '{patient,last_name}', '')),
        patient_date_of_birth = coalesce(s.p #>> '{patient,date_of_birth}', ''),
        date_of_service = coalesce(s.p ->> 'date_of_service', s.p #>> '{service_lines,0,date_of_service}'),
        payer_id = s.p #>> '{subscriber_primary,insurance_card,payer_id}',
        billed_cents = coalesce((
          SELECT sum((l ->> 'charge_amount_cents')::bigint)
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(s.p -> 'service_lines') = 'array' THEN s.p -> 'service_lines' ELSE '[]'::jsonb END) l
        ), 0)
      FROM (SELECT id, payload::jsonb AS p FROM encounters) s
      WHERE s.id = encounters.id`,
    orElse: () => sql`UPDATE encounters SET
        patient_last_name_lower = lower(coalesce(json_extract(payload, '$.patient.last_name'), '')),
        patient_date_of_birth = coalesce(json_extract(payload, '$.patient.date_of_birth'), ''),
        date_of_service = coalesce(json_extract(payload, '$.date_of_service'), json_extract(payload, '$.service_lines[0].date_of_service')),
        payer_id = json_extract(payload, '$.subscriber_primary.insurance_card.payer_id'),
        billed_cents = coalesce((
          SELECT sum(json_extract(l.value, '$.charge_amount_cents'))
          FROM json_each(payload, '$.service_lines') l
          WHERE json_type(payload, '$.service_lines') = 'array'
        ), 0)`
  })

  // Names with characters beyond ASCII (more bytes than characters), folded as intake folds them.
  const beyondAscii = sql.onDialectOrElse({
    pg: () => sql`SELECT id, payload FROM encounters WHERE octet_length(patient_last_name_lower) <> length(patient_last_name_lower)`,
    orElse: () => sql`SELECT id, payload FROM encounters WHERE length(CAST(patient_last_name_lower AS BLOB)) <> length(patient_last_name_lower)`
  })
  for (const row of yield* beyondAscii) {
    const payload: unknown = typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload
    const patient = typeof payload === "object" && payload !== null ? Reflect.get(payload, "patient") : undefined
    const lastName = typeof patient === "object" && patient !== null ? Reflect.get(patient, "last_name") : undefined
    if (typeof lastName !== "string") continue
    yield* sql`UPDATE encounters SET patient_last_name_lower = ${lastName.normalize("NFC").toLowerCase()} WHERE id = ${String(row.id)}`
  }

  yield* sql`CREATE INDEX encounters_last_name ON encounters (workspace_id, patient_last_name_lower, created_at, id)`
  yield* sql`CREATE INDEX encounters_birth_date ON encounters (workspace_id, patient_date_of_birth, created_at, id)`
  yield* sql`CREATE INDEX encounters_service_date ON encounters (workspace_id, date_of_service, created_at, id)`
  yield* sql`CREATE INDEX encounters_payer ON encounters (workspace_id, payer_id, created_at, id)`
  yield* sql`CREATE INDEX encounters_external_prefix ON encounters (workspace_id, external_id, created_at, id)`
  yield* sql`CREATE INDEX encounters_status_billed ON encounters (workspace_id, latest_claim_status, billed_cents, id)`
  yield* sql`CREATE INDEX encounters_status_age ON encounters (workspace_id, latest_claim_status, latest_claim_status_changed_at, id)`
})
