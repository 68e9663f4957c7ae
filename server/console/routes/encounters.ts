import { Effect, Schema } from "effect"
import { correctionsAllowed } from "../../../lib/domain/claim-correction.js"
import { allowedTransitions } from "../../../lib/domain/claim-status.js"
import { toEncounter } from "../../../lib/domain/encounter.js"
import { totalChargeCents } from "../../../lib/domain/encounter-summary.js"
import { browseEncounters } from "../../../lib/rules/browse-encounters.js"
import { encounterTimeline } from "../../../lib/rules/encounter-timeline.js"
import { encounterIntakeRequestId } from "../../../lib/rules/encounter-intake.js"
import { getEncounter } from "../../../lib/rules/read-encounters.js"
import { json, NoQuery } from "../../route.js"
import { Limit } from "../../routes/shared.js"
import { sessionRoute } from "../route.js"

const BrowseQuery = Schema.Struct({
  external_id: Schema.optional(Schema.String),
  claim_status: Schema.optional(Schema.String),
  patient_last_name: Schema.optional(Schema.String),
  patient_date_of_birth: Schema.optional(Schema.String),
  date_of_service_from: Schema.optional(Schema.String),
  date_of_service_to: Schema.optional(Schema.String),
  external_id_prefix: Schema.optional(Schema.String),
  payer_id: Schema.optional(Schema.String),
  created_from: Schema.optional(Schema.String),
  created_to: Schema.optional(Schema.String),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(Schema.String)
})

export const browseEncountersRoute = sessionRoute(
  { method: "GET", path: "/console/api/encounters", audit: { action: "encounter.list", resource: "encounter" }, summary: "Encounter rows, newest first", query: BrowseQuery },
  ({ principal: caller, query }) =>
    Effect.map(browseEncounters(caller.principal.workspace.id, { ...query, claim_status: query.claim_status || undefined }), (page) =>
      json(200, page)
    )
)

/**
 * One encounter with what the page shows beside it: the total charge, the statuses its claim may
 * move to, its events and the intake request it came from.
 */
export const encounterDetailRoute = sessionRoute(
  { method: "GET", path: "/console/api/encounters/{id}", audit: { action: "encounter.read", resource: "encounter", idParam: "id" }, summary: "One encounter with its timeline", query: NoQuery },
  ({ principal: caller, params }) =>
    Effect.gen(function* () {
      const ws = caller.principal.workspace.id
      const row = yield* getEncounter(ws, params.id ?? "")
      const timeline = yield* encounterTimeline(ws, row.encounter)
      const intakeRequestId = yield* encounterIntakeRequestId(ws, row.encounter)
      return json(200, {
        encounter: toEncounter(row),
        total_charge_cents: totalChargeCents(row.encounter.payload.service_lines),
        allowed_transitions: allowedTransitions(row.claim.status),
        allowed_corrections: correctionsAllowed(row.claim.status),
        timeline,
        intake_request_id: intakeRequestId
      })
    })
)
