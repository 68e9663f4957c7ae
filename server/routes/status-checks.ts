import { Effect } from "effect"
import { Page } from "../../lib/domain/page.js"
import { StatusCheck } from "../../lib/domain/status-check.js"
import { StatusCheckSettings, StatusCheckSettingsInput } from "../../lib/domain/status-check-settings.js"
import { getStatusCheckSettings, putStatusCheckSettings } from "../../lib/rules/status-check-settings.js"
import { getStatusCheck, listStatusChecks, requestStatusCheck } from "../../lib/rules/status-checks.js"
import { readJsonBody } from "../body.js"
import { authed, json, NoQuery } from "../route.js"
import { PageQuery, problemAs, problems } from "./shared.js"

const StatusCheckPage = Page(StatusCheck).annotations({ identifier: "StatusCheckPage" })

export const requestStatusCheckRoute = authed(
  {
    method: "POST",
    path: "/api/claims/{claim_id}/status-checks", audit: { action: "status_check.request", resource: "claim", idParam: "claim_id" },
    operationId: "requestStatusCheck",
    tag: "Status checks",
    summary: "Ask the payer for the claim's status: a 276 inquiry (scope claims:write)",
    description:
      "Queues a status check. With the workspace's core transport the server sends it at once over the CAQH CORE real-time envelope and records the 277's answer; with the file transport (also while the workspace has no status check settings) it stays queued until `encounterd x12 export-276` writes it into a 276 file, then it is sent, and the 277 imported at POST /api/x12/inbound answers it.",
    scope: "claims:write",
    query: NoQuery,
    responses: {
      202: { description: "The check, queued", schema: StatusCheck },
      ...problems(401, 403, 404, 429),
      ...problemAs(409, "not_submitted: the claim is draft or not_billable, never sent to a payer")
    }
  },
  ({ principal, params }) => Effect.map(requestStatusCheck(principal.workspace.id, params.claim_id ?? ""), (check) => json(202, check))
)

export const listStatusChecksRoute = authed(
  {
    method: "GET",
    path: "/api/claims/{claim_id}/status-checks", audit: { action: "status_check.list", resource: "claim", idParam: "claim_id" },
    operationId: "listStatusChecks",
    tag: "Status checks",
    summary: "A claim's status checks, newest first, with the payer's answers",
    query: PageQuery,
    responses: { 200: { description: "A page of the claim's checks", schema: StatusCheckPage }, ...problems(400, 401, 404, 429) }
  },
  ({ principal, params, query }) => Effect.map(listStatusChecks(principal.workspace.id, params.claim_id ?? "", query), (page) => json(200, page))
)

export const getStatusCheckRoute = authed(
  {
    method: "GET",
    path: "/api/status-checks/{id}", audit: { action: "status_check.read", resource: "status_check", idParam: "id" },
    operationId: "getStatusCheck",
    tag: "Status checks",
    summary: "One status check",
    query: NoQuery,
    responses: { 200: { description: "The check", schema: StatusCheck }, ...problems(401, 404, 429) }
  },
  ({ principal, params }) => Effect.map(getStatusCheck(principal.workspace.id, params.id ?? ""), (check) => json(200, check))
)

const SettingsInputDoc = StatusCheckSettingsInput.annotations({
  identifier: "StatusCheckSettingsInput",
  description: "The follow-up schedule and transport. core.password is write-only: sealed, never shown; left out, the stored one is kept"
})

export const putStatusCheckSettingsRoute = authed(
  {
    method: "PUT",
    path: "/api/workspace/status-checks", audit: "none",
    operationId: "putStatusCheckSettings",
    tag: "Status checks",
    summary: "Set the workspace's status check settings (scope claims:write)",
    scope: "claims:write",
    query: NoQuery,
    requestBody: SettingsInputDoc,
    responses: {
      200: { description: "The settings as stored (without the password)", schema: StatusCheckSettings },
      ...problems(400, 401, 403, 413, 415, 422, 429),
      ...problemAs(503, "webhooks_unavailable: the server has no secret key to seal the core password with (PostgreSQL without --webhook-secret-key-file)")
    }
  },
  ({ principal, request, config }) =>
    Effect.gen(function* () {
      const body = yield* readJsonBody(request, config.bodyLimit)
      return json(200, yield* putStatusCheckSettings(principal.workspace.id, body))
    })
)

export const getStatusCheckSettingsRoute = authed(
  {
    method: "GET",
    path: "/api/workspace/status-checks", audit: "none",
    operationId: "getStatusCheckSettings",
    tag: "Status checks",
    summary: "The workspace's status check settings (without the password)",
    query: NoQuery,
    responses: {
      200: { description: "The settings", schema: StatusCheckSettings },
      ...problems(401, 429),
      ...problemAs(404, "not_found: the workspace has no status check settings yet")
    }
  },
  ({ principal }) => Effect.map(getStatusCheckSettings(principal.workspace.id), (s) => json(200, s))
)

export const statusCheckRoutes = [requestStatusCheckRoute, listStatusChecksRoute, getStatusCheckRoute, putStatusCheckSettingsRoute, getStatusCheckSettingsRoute]
