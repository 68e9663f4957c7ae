import { Effect, Schema } from "effect"
import { IntakeOutcome } from "../../lib/domain/encounter.js"
import { Page } from "../../lib/domain/page.js"
import { getIntakeRequest, listIntakeRequests } from "../../lib/rules/intake-log.js"
import { authed, json, NoQuery } from "../route.js"
import { FieldIssueDoc, Limit, problems } from "./shared.js"

/** One stored create request and what became of it. */
export const IntakeRequestView = Schema.Struct({
  id: Schema.String,
  received_at: Schema.String,
  outcome: Schema.NullOr(IntakeOutcome),
  external_id: Schema.NullOr(Schema.String),
  encounter_id: Schema.NullOr(Schema.String),
  errors: Schema.Array(FieldIssueDoc)
}).annotations({ identifier: "IntakeRequest" })

export const IntakeRequestDetailView = Schema.Struct({
  ...IntakeRequestView.fields,
  content_type: Schema.String,
  body: Schema.String
}).annotations({ identifier: "IntakeRequestDetail" })

/** The intake log's query parameters (the console's intake view takes the same). */
export const IntakeListQuery = Schema.Struct({
  outcome: Schema.optional(Schema.String),
  external_id: Schema.optional(Schema.String),
  received_after: Schema.optional(Schema.String),
  received_before: Schema.optional(Schema.String),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(Schema.String)
})

export const intakeListRoute = authed(
  {
    method: "GET",
    path: "/api/intake-requests",
    operationId: "listIntakeRequests",
    audit: { action: "intake_request.list", resource: "intake_request" },
    tag: "Intake log",
    summary: "The intake log: every create request as stored, newest first",
    description:
      "Filters: outcome (accepted, duplicate, rejected), external_id (when the body had one), received_after and received_before (inclusive ISO 8601 times). Keyset-paged both ways.",
    scope: "encounters",
    query: IntakeListQuery,
    responses: { 200: { description: "A page of intake requests", schema: Page(IntakeRequestView) }, ...problems(400, 401, 429) }
  },
  ({ principal, query }) => Effect.map(listIntakeRequests(principal.workspace.id, query), (page) => json(200, page))
)

export const intakeGetRoute = authed(
  {
    method: "GET",
    path: "/api/intake-requests/{id}",
    operationId: "getIntakeRequest",
    audit: { action: "intake_request.read", resource: "intake_request", idParam: "id" },
    tag: "Intake log",
    summary: "One intake request, with its body exactly as received",
    scope: "encounters",
    query: NoQuery,
    responses: { 200: { description: "The intake request", schema: IntakeRequestDetailView }, ...problems(401, 404, 429) }
  },
  ({ principal, params }) => Effect.map(getIntakeRequest(principal.workspace.id, params.id ?? ""), (r) => json(200, r))
)
