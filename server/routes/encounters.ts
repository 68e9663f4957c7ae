import { Effect, Schema } from "effect"
import { FilterableClaimStatus } from "../../lib/domain/claim-status.js"
import { Encounter, toEncounter } from "../../lib/domain/encounter.js"
import type { Principal } from "../../lib/domain/workspace.js"
import { EncounterCreate } from "../../lib/domain/encounter-input.js"
import { makePageAssembler, Page } from "../../lib/domain/page.js"
import { intakeEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter, listHeldEncounters } from "../../lib/rules/read-encounters.js"
import { readBody, requireJson } from "../body.js"
import { makeRenderCache, PAGES_KEPT, RENDERS_KEPT } from "../rendered.js"
import { authed, json, NoQuery, raw, text } from "../route.js"
import { CreatedResponse, DuplicateResponse, Limit, PageToken, problems } from "./shared.js"

const EncounterCreateDoc = EncounterCreate.annotations({
  identifier: "EncounterCreate",
  description: "The claims vendor's v4 EncounterCreate wire shape (snake_case); a null optional counts as absent, and unknown keys are ignored (kept in the stored raw request)"
})
const EncounterPage = Page(Encounter).annotations({ identifier: "EncounterPage" })

export const createEncounterRoute = authed(
  {
    method: "POST",
    path: "/api/encounters",
    operationId: "createEncounter",
    audit: { action: "encounter.create", resource: "encounter" },
    tag: "Encounters",
    summary: "Create an encounter (idempotent on external_id)",
    description:
      "Stores the raw request first, validates it, then creates the encounter, its first claim and the Created event in one transaction. A replay of a known external_id answers 200 with the existing id and duplicate: true, and records no event.",
    query: NoQuery,
    requestBody: EncounterCreateDoc,
    responses: {
      202: { description: "Created and durably stored", schema: CreatedResponse },
      200: { description: "Replay of an external_id already accepted in this workspace", schema: DuplicateResponse },
      ...problems(400, 401, 413, 415, 422, 429)
    }
  },
  ({ principal, request, config }) => Effect.gen(() => create(principal, request, config.bodyLimit))
)

function* create(principal: Principal, request: Request, bodyLimit: number) {
  yield* requireJson(request)
  const body = yield* readBody(request, bodyLimit)
  const result = yield* intakeEncounter({
    workspace_id: principal.workspace.id,
    key_id: principal.keyId,
    content_type: request.headers.get("content-type") ?? "",
    body,
    source: "api"
  })
  const ids = { encounter_id: result.encounter_id, encounterId: result.encounter_id }
  // Spec: the replay status is not shown; we answer 200 (nothing new was created).
  return result.duplicate ? json(200, { ...ids, duplicate: true }) : json(202, ids)
}

const day = (description: string) => Schema.String.annotations({ description, jsonSchema: { type: "string", format: "date" } })

/** The list's filters: every one given applies; see docs/api.md ("Finding an encounter"). */
const ListQuery = Schema.Struct({
  external_id: Schema.optional(Schema.String.annotations({ description: "The external id, exactly" })),
  claim_status: Schema.optional(FilterableClaimStatus),
  patient_last_name: Schema.optional(Schema.String.annotations({ description: "A prefix of the patient's last name, in any case (1 to 255 characters)" })),
  patient_date_of_birth: Schema.optional(day("The patient's date of birth, YYYY-MM-DD")),
  date_of_service_from: Schema.optional(day("The earliest date of service (the encounter's, else its first service line's), YYYY-MM-DD, inclusive")),
  date_of_service_to: Schema.optional(day("The latest date of service, YYYY-MM-DD, inclusive")),
  external_id_prefix: Schema.optional(Schema.String.annotations({ description: "A prefix of the external id, case as sent (1 to 255 characters)" })),
  payer_id: Schema.optional(Schema.String.annotations({ description: "The primary insurance card's payer id, exactly" })),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(PageToken)
})

/** The JSON of one normalized encounter, `JSON.stringify(toEncounter(row))`, rendered once per version (see `server/rendered.ts`). */
const encounterRenders = makeRenderCache(RENDERS_KEPT, (row) => JSON.stringify(toEncounter(row)))
const encounterPages = makePageAssembler(PAGES_KEPT, encounterRenders.unkept)

const listDoc = (path: string) =>
  ({
    method: "GET",
    path,
    operationId: path.startsWith("/api") ? "listEncountersApi" : "listEncounters",
    audit: { action: "encounter.list", resource: "encounter" },
    tag: "Encounters",
    summary: "List normalized encounters, newest first",
    description:
      "Filters combine (each given one applies) and page together; a page token is bound to the filters it was issued with. A malformed value, or a parameter not listed here, is 400 invalid_parameter naming it.",
    query: ListQuery,
    unknownParameters: "refuse",
    responses: { 200: { description: "A page of encounters", schema: EncounterPage }, ...problems(400, 401, 429) }
  }) as const

const listHandler = authed(listDoc("/encounters"), ({ principal, query }) =>
  Effect.map(listHeldEncounters(principal.workspace.id, query, "filterable", encounterRenders.held(query.page_token)), (page) =>
    raw(200, "application/json", encounterPages(page, (item) => encounterRenders.item(item)))
  )
)

const getDoc = (path: string) =>
  ({
    method: "GET",
    path,
    operationId: path.startsWith("/api") ? "getEncounterApi" : "getEncounter",
    audit: { action: "encounter.read", resource: "encounter", idParam: "id" },
    tag: "Encounters",
    summary: "Read one normalized encounter with its latest claim",
    query: NoQuery,
    responses: { 200: { description: "The encounter", schema: Encounter }, ...problems(401, 404, 429) }
  }) as const

const getHandler = authed(getDoc("/encounters/{id}"), ({ principal, params }) =>
  Effect.map(getEncounter(principal.workspace.id, params.id ?? ""), (row) => raw(200, "application/json", encounterRenders.json(row)))
)

/** The normalized reads answer with and without the `/api` prefix (spec: which one is authoritative is not shown). */
export const encounterReadRoutes = [
  listHandler,
  { ...listHandler, ...listDoc("/api/encounters") },
  getHandler,
  { ...getHandler, ...getDoc("/api/encounters/{id}") }
]
