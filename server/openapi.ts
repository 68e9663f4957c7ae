import { JSONSchema, type Schema } from "effect"
import { ClaimTransitions } from "../lib/domain/claim-status.js"
import type { Route } from "./route.js"

const schemaOf = (schema: Schema.Schema.Any): unknown => {
  const { $schema: _drop, ...rest } = JSONSchema.make(schema)
  return rest
}

const transitionTable = Object.entries(ClaimTransitions)
  .map(([from, to]) => `| ${from} | ${to.length === 0 ? "(terminal)" : to.join(", ")} |`)
  .join("\n")

/** The OpenAPI 3.1 document, generated from the same route declarations that serve the requests. */
export const makeOpenApi = (routes: ReadonlyArray<Route>, version: string) => {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" }
    }))
    const query = r.query === undefined ? undefined : schemaOf(r.query)
    const queryParams =
      typeof query === "object" && query !== null && "properties" in query && typeof query.properties === "object" && query.properties !== null
        ? Object.entries(query.properties).map(([name, schema]) => ({ name, in: "query", required: false, schema }))
        : []
    paths[r.path] = {
      ...paths[r.path],
      [r.method.toLowerCase()]: {
        operationId: r.operationId,
        summary: r.summary,
        ...(r.description !== undefined ? { description: r.description } : {}),
        tags: [r.tag],
        ...(r.auth ? {} : { security: [] }),
        parameters: [...params, ...queryParams],
        ...(r.requestBody !== undefined
          ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(r.requestBody) } } } }
          : {}),
        responses: Object.fromEntries(
          Object.entries(r.responses).map(([status, doc]) => [
            status,
            {
              description: doc.description,
              ...(doc.schema !== undefined
                ? { content: { [Number(status) >= 400 ? "application/problem+json" : "application/json"]: { schema: schemaOf(doc.schema) } } }
                : {})
            }
          ])
        )
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "encounterd",
      version,
      description: `Encounter intake and claim status service.\n\nClaim status transitions:\n\n| from | allowed next statuses |\n|---|---|\n${transitionTable}`
    },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "Workspace API key (eik_...)" } } },
    security: [{ bearer: [] }],
    paths
  }
}
