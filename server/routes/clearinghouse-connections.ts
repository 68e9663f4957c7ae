import { Effect, Schema } from "effect"
import { ClearinghouseConnection, ConnectionCreate, ConnectionPatch } from "../../lib/domain/clearinghouse-connection.js"
import { ConnectionActivity, pickupActivity } from "../../lib/domain/clearinghouse-transfers.js"
import { Page } from "../../lib/domain/page.js"
import { connectionActivity } from "../../lib/rules/sftp-activity.js"
import { createConnection, deleteConnection, getConnection, listConnections, updateConnection } from "../../lib/rules/sftp-connections.js"
import { retryPickup } from "../../lib/rules/sftp-pickups.js"
import { readJsonBody } from "../body.js"
import { authed, type HandlerInput, json, NoQuery, type Route } from "../route.js"
import { PageQuery, problemAs, problems } from "./shared.js"

const TAG = "Clearinghouse"
const SCOPE = "claims:write"
const BASE = "/api/clearinghouse/connections"

const ConnectionDoc = ClearinghouseConnection.annotations({
  identifier: "ClearinghouseConnection",
  description:
    "An SFTP connection to a clearinghouse: never its password or private key. last_error_code is fingerprint_mismatch, auth_failed, connect_failed, timeout, connection_lost, file_too_large, sftp_error or secret_unavailable. One read also carries pending_uploads and alerts."
})
const CreateDoc = ConnectionCreate.annotations({
  identifier: "ClearinghouseConnectionCreate",
  description:
    "Exactly one of password and private_key (unencrypted, OpenSSH or PEM). host_key_fingerprint pins the server's host key (SHA256:..., as ssh-keygen -lf prints it): any other key is refused. port 22, poll_every 5m (1s to 24h), upload_batches and enabled true unless given; without archive_dir picked-up files stay where they are."
})
const PatchDoc = ConnectionPatch.annotations({ identifier: "ClearinghouseConnectionPatch", description: "Any settings; a password or private_key replaces the stored secret" })
const ActivityPageDoc = Schema.Struct({
  items: Schema.Array(ConnectionActivity),
  next_page_token: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ClearinghouseConnectionActivityPage" })

/** A JSON body, refused before decoding when it nests too deep. */
const jsonBody = ({ request, config }: HandlerInput<unknown, unknown>) => readJsonBody(request, config.bodyLimit)

const id = (params: Readonly<Record<string, string>>) => params.id ?? ""

export const clearinghouseConnectionRoutes: ReadonlyArray<Route> = [
  authed(
    {
      method: "POST",
      path: BASE, audit: "none",
      operationId: "createClearinghouseConnection",
      tag: TAG,
      summary: "Connect to a clearinghouse over SFTP (scope claims:write)",
      description:
        "The server drops each new 837P batch into outbound_dir (a temporary name, then the final one) and, every poll_every, picks up the 999, 277CA and 835 files in inbound_dir, imports them as POST /api/x12/inbound does and moves them to archive_dir. The password or key is stored sealed and never shown again.",
      scope: SCOPE,
      query: NoQuery,
      requestBody: CreateDoc,
      responses: {
        201: { description: "The connection, without its secret", schema: ConnectionDoc },
        ...problems(400, 401, 403, 413, 415, 422, 429),
        ...problemAs(503, "webhooks_unavailable: the server has no secret key file to seal the secret with (PostgreSQL without --webhook-secret-key-file)")
      }
    },
    (input) =>
      Effect.gen(function* () {
        const body = yield* jsonBody(input)
        return json(201, yield* createConnection(input.principal.workspace.id, body))
      })
  ),
  authed(
    {
      method: "GET",
      path: BASE, audit: "none",
      operationId: "listClearinghouseConnections",
      tag: TAG,
      summary: "The workspace's clearinghouse connections, newest first",
      scope: SCOPE,
      query: PageQuery,
      responses: {
        200: { description: "A page of connections", schema: Page(ConnectionDoc).annotations({ identifier: "ClearinghouseConnectionPage" }) },
        ...problems(400, 401, 403, 429)
      }
    },
    ({ principal, query }) => Effect.map(listConnections(principal.workspace.id, query), (page) => json(200, page))
  ),
  authed(
    {
      method: "GET",
      path: `${BASE}/{id}`, audit: "none",
      operationId: "getClearinghouseConnection",
      tag: TAG,
      summary: "One connection, with its pending uploads and alerts",
      description:
        "alerts: no_999_for_batch (a batch uploaded more than 24 hours ago that no 999 has answered) and no_835_from_payer (a payer whose last 835 came more than 30 days ago).",
      scope: SCOPE,
      query: NoQuery,
      responses: { 200: { description: "The connection", schema: ConnectionDoc }, ...problems(401, 403, 404, 429) }
    },
    ({ principal, params }) => Effect.map(getConnection(principal.workspace.id, id(params)), (c) => json(200, c))
  ),
  authed(
    {
      method: "PATCH",
      path: `${BASE}/{id}`, audit: "none",
      operationId: "updateClearinghouseConnection",
      tag: TAG,
      summary: "Change a connection's settings or secret",
      description: "Turning upload_batches on uploads the batches created from then on. A new poll_every, secret or enabling makes a poll due at once.",
      scope: SCOPE,
      query: NoQuery,
      requestBody: PatchDoc,
      responses: { 200: { description: "The connection after the change", schema: ConnectionDoc }, ...problems(400, 401, 403, 404, 413, 415, 422, 429) }
    },
    (input) =>
      Effect.gen(function* () {
        const body = yield* jsonBody(input)
        return json(200, yield* updateConnection(input.principal.workspace.id, id(input.params), body))
      })
  ),
  authed(
    {
      method: "DELETE",
      path: `${BASE}/{id}`, audit: "none",
      operationId: "deleteClearinghouseConnection",
      tag: TAG,
      summary: "Delete a connection (its uploads and pickups stay on record)",
      scope: SCOPE,
      query: NoQuery,
      responses: { 204: { description: "Deleted" }, ...problems(401, 403, 404, 429) }
    },
    ({ principal, params }) => Effect.as(deleteConnection(principal.workspace.id, id(params)), json(204, null))
  ),
  authed(
    {
      method: "GET",
      path: `${BASE}/{id}/activity`, audit: "none",
      operationId: "listClearinghouseConnectionActivity",
      tag: TAG,
      summary: "A connection's uploads and pickups, newest first",
      description: "Each upload with its batch, file name, size, SHA-256, attempts and last error; each pickup with its file, status (pending, imported, duplicate, failed), the imported file's id and its archiving.",
      scope: SCOPE,
      query: PageQuery,
      responses: { 200: { description: "A page of activity", schema: ActivityPageDoc }, ...problems(400, 401, 403, 404, 429) }
    },
    ({ principal, params, query }) => Effect.map(connectionActivity(principal.workspace.id, id(params), query), (page) => json(200, page))
  ),
  authed(
    {
      method: "POST",
      path: `${BASE}/{id}/pickups/{pickup_id}/retry`, audit: { action: "x12_file.import", resource: "x12_file" },
      operationId: "retryClearinghousePickup",
      tag: TAG,
      summary: "Import a failed pickup again at the next poll (while the file is still there)",
      scope: SCOPE,
      query: NoQuery,
      responses: { 202: { description: "Queued for the next poll", schema: ConnectionActivity }, ...problems(401, 403, 404, 429) }
    },
    ({ principal, params }) =>
      Effect.map(retryPickup(principal.workspace.id, id(params), params.pickup_id ?? ""), (p) => json(202, pickupActivity(p)))
  )
]
