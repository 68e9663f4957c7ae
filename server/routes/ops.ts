import { Effect, Schema } from "effect"
import { Workspace } from "../../lib/domain/workspace.js"
import { Storage } from "../../lib/ports/storage.js"
import { authed, json, NoQuery, open } from "../route.js"
import { problems } from "./shared.js"

export const workspaceRoute = authed(
  {
    method: "GET",
    path: "/api/workspace",
    operationId: "getWorkspace",
    tag: "Workspace",
    summary: "The workspace of the API key (a credentials check)",
    query: NoQuery,
    responses: { 200: { description: "The workspace", schema: Workspace }, ...problems(401, 429) }
  },
  ({ principal }) => Effect.succeed(json(200, principal.workspace))
)

const Health = Schema.Struct({ status: Schema.String })

export const healthRoute = open(
  {
    method: "GET",
    path: "/healthz",
    operationId: "health",
    tag: "Operations",
    summary: "Liveness: the process answers",
    responses: { 200: { description: "Alive", schema: Health } }
  },
  () => Effect.succeed(json(200, { status: "ok" }))
)

export const readyRoute = open(
  {
    method: "GET",
    path: "/readyz",
    operationId: "ready",
    tag: "Operations",
    summary: "Readiness: the database answers",
    responses: { 200: { description: "Ready", schema: Health }, 503: { description: "The database does not answer" } }
  },
  () =>
    Effect.flatMap(Storage, (s) => s.ping()).pipe(
      Effect.as(json(200, { status: "ready" })),
      Effect.catchTag("StorageError", () => Effect.succeed(json(503, { status: "unavailable" })))
    )
)
