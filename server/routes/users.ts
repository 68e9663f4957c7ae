import { Effect, Schema } from "effect"
import { AuditEntry } from "../../lib/domain/audit.js"
import { Page } from "../../lib/domain/page.js"
import { RetentionPatch, RetentionView } from "../../lib/domain/retention.js"
import { UserCreate, UserCreated, UserPatch, UserView } from "../../lib/domain/user.js"
import { Passwords } from "../../lib/ports/passwords.js"
import { getRetention, patchRetention } from "../../lib/rules/retention.js"
import { createUser, listUsers, updateUser } from "../../lib/rules/users.js"
import { listAuditAfterReads } from "../audit.js"
import { readJsonBody } from "../body.js"
import { authed, json, NoQuery, type Route } from "../route.js"
import { Limit, PageQuery, PageToken, problemAs, problems } from "./shared.js"

const TAG = "Users and audit"
const SCOPE = "admin"

/** A users or retention body: small JSON objects. */
const BODY_LIMIT = 16 * 1024

const UserDoc = UserView.annotations({ identifier: "User" })
const UserPageDoc = Page(UserDoc).annotations({ identifier: "UserPage" })
const UserCreatedDoc = UserCreated.annotations({ identifier: "UserCreated" })

/** `GET /api/audit`'s filters: ids and an action as stored, and inclusive ISO times. */
export const AuditQuery = Schema.Struct({
  actor: Schema.optional(Schema.String.annotations({ description: "An actor's id: a user's or an API key's" })),
  resource: Schema.optional(Schema.String.annotations({ description: "A resource's id (an encounter's, a claim's, a file's...)" })),
  action: Schema.optional(Schema.String.annotations({ description: "e.g. encounter.read, encounter.list, claim.status" })),
  since: Schema.optional(Schema.String.annotations({ description: "Entries at or after this ISO 8601 time" })),
  until: Schema.optional(Schema.String.annotations({ description: "Entries at or before this ISO 8601 time" })),
  limit: Schema.optional(Limit),
  page_token: Schema.optional(PageToken)
})
const RetentionDocView = RetentionView.annotations({ identifier: "Retention" })
const AuditPageDoc = Page(AuditEntry.annotations({ identifier: "AuditEntry" })).annotations({ identifier: "AuditPage" })

export const userRoutes: ReadonlyArray<Route> = [
  authed(
    {
      method: "POST",
      path: "/api/users",
      operationId: "createUser",
      audit: { action: "user.create", resource: "user" },
      tag: TAG,
      summary: "Add a console user (scope admin)",
      description:
        "The answer carries a one-time password, shown this once; the user must change it at the first sign-in. An email is one user per workspace.",
      scope: SCOPE,
      query: NoQuery,
      requestBody: UserCreate,
      responses: {
        201: { description: "Created", schema: UserCreatedDoc },
        ...problems(400, 401, 403, 415, 422, 429),
        ...problemAs(409, "email_taken: the workspace has a user with this email")
      }
    },
    (input) =>
      Effect.gen(function* () {
        const body = yield* readJsonBody(input.request, BODY_LIMIT)
        return json(201, yield* createUser(input.principal.workspace.id, body).pipe(Effect.provideService(Passwords, input.server.passwords)))
      })
  ),
  authed(
    {
      method: "GET",
      path: "/api/users",
      operationId: "listUsers",
      audit: { action: "user.list", resource: "user" },
      tag: TAG,
      summary: "The workspace's console users, newest first (scope admin)",
      scope: SCOPE,
      query: PageQuery,
      responses: { 200: { description: "A page of users", schema: UserPageDoc }, ...problems(400, 401, 403, 429) }
    },
    ({ principal, query }) => Effect.map(listUsers(principal.workspace.id, query), (page) => json(200, page))
  ),
  authed(
    {
      method: "PATCH",
      path: "/api/users/{id}",
      operationId: "updateUser",
      audit: { action: "user.update", resource: "user", idParam: "id" },
      tag: TAG,
      summary: "Change a user's role, status or name (scope admin)",
      description: "A disabled user's console sessions end at their next request; a new role applies to the next request.",
      scope: SCOPE,
      query: NoQuery,
      requestBody: UserPatch,
      responses: {
        200: { description: "The user after the change", schema: UserDoc },
        ...problems(400, 401, 403, 404, 415, 422, 429),
        ...problemAs(409, "last_admin: the workspace's last active admin keeps its role and status")
      }
    },
    (input) =>
      Effect.gen(function* () {
        const body = yield* readJsonBody(input.request, BODY_LIMIT)
        return json(200, yield* updateUser(input.principal.workspace.id, input.params.id ?? "", body))
      })
  ),
  authed(
    {
      method: "GET",
      path: "/api/audit",
      operationId: "listAudit",
      audit: { action: "audit.list", resource: "audit" },
      tag: TAG,
      summary: "The workspace's audit log, newest first (scope admin)",
      description:
        "Who read or changed which patient data: actor, action, resource type and id, time, client address, request id and outcome; never the data. Filters combine; a page token is bound to them.",
      scope: SCOPE,
      query: AuditQuery,
      unknownParameters: "refuse",
      responses: { 200: { description: "A page of entries", schema: AuditPageDoc }, ...problems(400, 401, 403, 429) }
    },
    ({ principal, query, server }) => Effect.map(listAuditAfterReads(server, principal.workspace.id, query), (page) => json(200, page))
  ),
  authed(
    {
      method: "GET",
      path: "/api/retention",
      operationId: "getRetention",
      audit: { action: "retention.read", resource: "retention" },
      tag: TAG,
      summary: "How long the workspace keeps raw requests and audit entries (scope admin)",
      description: "`raw_request_days` null: raw requests are kept. The server purges what is past these once a day (`encounterd purge` by hand).",
      scope: SCOPE,
      query: NoQuery,
      responses: { 200: { description: "The retention in force", schema: RetentionDocView }, ...problems(401, 403, 429) }
    },
    ({ principal }) => Effect.map(getRetention(principal.workspace.id), (retention) => json(200, retention))
  ),
  authed(
    {
      method: "PATCH",
      path: "/api/retention",
      operationId: "updateRetention",
      audit: { action: "retention.update", resource: "retention" },
      tag: TAG,
      summary: "Change how long the workspace keeps raw requests and audit entries (scope admin)",
      description:
        "What is not given stays. `raw_request_days`: whole days, 1 or more, or null to keep raw requests; `audit_days`: whole days, 366 or more. The same as `encounterd retention set`.",
      scope: SCOPE,
      query: NoQuery,
      requestBody: RetentionPatch,
      responses: { 200: { description: "The retention in force after the change", schema: RetentionDocView }, ...problems(400, 401, 403, 415, 422, 429) }
    },
    (input) =>
      Effect.gen(function* () {
        const body = yield* readJsonBody(input.request, BODY_LIMIT)
        return json(200, yield* patchRetention(input.principal.workspace.id, body))
      })
  )
]
