import { Effect, Schema } from "effect"
import { Unauthorized } from "../../lib/domain/errors.js"
import { Workspace } from "../../lib/domain/workspace.js"
import { Storage } from "../../lib/ports/storage.js"
import { buildInfo } from "../build-info.js"
import { RouteNotFound } from "../problem.js"
import { sameSecret } from "../same-secret.js"
import { authed, json, NoQuery, open, text } from "../route.js"
import { problems } from "./shared.js"

export const workspaceRoute = authed(
  {
    method: "GET",
    path: "/api/workspace",
    operationId: "getWorkspace",
    audit: "none",
    tag: "Workspace",
    summary: "The workspace of the API key (a credentials check)",
    query: NoQuery,
    responses: { 200: { description: "The workspace", schema: Workspace.annotations({ identifier: "Workspace" }) }, ...problems(401, 429) }
  },
  ({ principal }) => Effect.succeed(json(200, principal.workspace))
)

const Health = Schema.Struct({ status: Schema.String }).annotations({ identifier: "Health" })
const Version = Schema.Struct({ version: Schema.String, commit: Schema.String, built: Schema.String }).annotations({ identifier: "Version" })
const Readiness = Schema.Struct({ status: Schema.String, version: Version }).annotations({ identifier: "Readiness" })

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
    responses: {
      200: { description: "Ready, with the version, commit and build date", schema: Readiness },
      503: { description: "The database does not answer", schema: Readiness }
    }
  },
  () =>
    Effect.flatMap(Storage, (s) => s.ping()).pipe(
      Effect.as(json(200, { status: "ready", version: buildInfo() })),
      Effect.catchTag("StorageError", () => Effect.succeed(json(503, { status: "unavailable", version: buildInfo() })))
    )
)

const BEARER = /^Bearer\s+(\S+)\s*$/i

export const metricsRoute = open(
  {
    method: "GET",
    path: "/metrics",
    operationId: "metrics",
    tag: "Operations",
    summary: "Metrics in the Prometheus text format (0.0.4)",
    description:
      "Requests by route template and status, latency histograms, database commit and fsync durations, group-commit sizes, " +
      "rate-limit refusals and process figures. Open unless the server runs with `--metrics-key` (then `Authorization: Bearer <that key>`); " +
      "`--no-metrics` turns it off (404). No label carries a path parameter, a body value or patient data.",
    responses: {
      200: { description: "The metrics", contentType: "text/plain; version=0.0.4", schema: Schema.String },
      ...problems(401, 404)
    }
  },
  ({ config, request, metrics }) =>
    Effect.gen(function* () {
      if (!config.metrics) return yield* new RouteNotFound({ path: "/metrics" })
      if (config.metricsKey !== undefined) {
        const presented = BEARER.exec(request.headers.get("authorization") ?? "")?.[1]
        if (presented === undefined || !sameSecret(presented, config.metricsKey)) {
          return yield* new Unauthorized({ reason: "This endpoint needs the metrics key (--metrics-key)" })
        }
      }
      return text(200, metrics.render(), "text/plain; version=0.0.4; charset=utf-8")
    })
)
