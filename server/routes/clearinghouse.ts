import { Effect } from "effect"
import { ClearinghouseSettings } from "../../lib/domain/clearinghouse.js"
import { getClearinghouseSettings, putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { preview837P } from "../../lib/rules/x12-export.js"
import { readJsonBody } from "../body.js"
import { authed, json, NoQuery, raw } from "../route.js"
import { X12Text } from "./x12-docs.js"
import { problemAs, problems } from "./shared.js"

const SettingsDoc = ClearinghouseSettings.annotations({
  identifier: "ClearinghouseSettings",
  description:
    "Who the workspace is and whom it sends to in the X12 envelopes: printable ASCII only, none of * ~ : ^, no edge spaces; a contact phone (10 digits) or email is required"
})

export const putClearinghouseRoute = authed(
  {
    method: "PUT",
    path: "/api/workspace/clearinghouse",
    operationId: "putClearinghouseSettings",
    audit: "none",
    tag: "Clearinghouse",
    summary: "Set the workspace's clearinghouse settings (scope claims:write)",
    description: "Replaces the settings; the control numbers of later batches go on counting up from the last one sent.",
    scope: "claims:write",
    query: NoQuery,
    requestBody: SettingsDoc,
    responses: { 200: { description: "The settings as stored", schema: SettingsDoc }, ...problems(400, 401, 403, 413, 415, 422, 429) }
  },
  ({ principal, request, config }) =>
    Effect.gen(function* () {
      const body = yield* readJsonBody(request, config.bodyLimit)
      return json(200, yield* putClearinghouseSettings(principal.workspace.id, body))
    })
)

export const getClearinghouseRoute = authed(
  {
    method: "GET",
    path: "/api/workspace/clearinghouse",
    operationId: "getClearinghouseSettings",
    audit: "none",
    tag: "Clearinghouse",
    summary: "The workspace's clearinghouse settings",
    query: NoQuery,
    responses: {
      200: { description: "The settings", schema: SettingsDoc },
      ...problems(401, 429),
      ...problemAs(404, "not_found: the workspace has no clearinghouse settings yet")
    }
  },
  ({ principal }) => Effect.map(getClearinghouseSettings(principal.workspace.id), (s) => json(200, s))
)

export const preview837PRoute = authed(
  {
    method: "GET",
    path: "/api/claims/{claim_id}/837p",
    operationId: "preview837P",
    audit: { action: "claim.837p", resource: "claim", idParam: "claim_id" },
    tag: "Clearinghouse",
    summary: "A claim as an 837P interchange, to look at before sending (changes nothing)",
    description:
      "One interchange holding this claim alone, with the control number the next batch would take. Nothing is stored and the claim does not move: send claims with POST /api/x12/837p-batches.",
    query: NoQuery,
    responses: {
      200: { description: "The 837P (005010X222A1)", schema: X12Text, contentType: "application/edi-x12" },
      ...problems(401, 404, 429),
      ...problemAs(409, "clearinghouse_not_configured: set the workspace's clearinghouse settings first"),
      ...problemAs(422, "not_exportable: what keeps the claim out of an 837P, one entry per problem in errors (claims[ID].field)")
    }
  },
  ({ principal, params }) => Effect.map(preview837P(principal.workspace.id, params.claim_id ?? ""), (text) => raw(200, "application/edi-x12", text))
)

export const clearinghouseRoutes = [putClearinghouseRoute, getClearinghouseRoute, preview837PRoute]
