import { JSONSchema, Schema } from "effect"
import { ClaimTransitions } from "../lib/domain/claim-status.js"
import type { ResponseDoc, Route } from "./route.js"
import { problems } from "./routes/shared.js"

const transitionTable = Object.entries(ClaimTransitions)
  .map(([from, to]) => `| ${from} | ${to.length === 0 ? "(terminal)" : to.join(", ")} |`)
  .join("\n")

const tagDescriptions: Readonly<Record<string, string>> = {
  Encounters: "Create encounters and read them in the normalized shape",
  Compat: "Encounters in the claims vendor's v4 wire shape",
  Events: "The event feed: creations and claim status changes, in recorded order",
  Claims: "Claim status changes",
  Workspace: "The API key's workspace",
  Clearinghouse: "The clearinghouse exchange: 837P batches out; 999, 277CA and 835 files in, driving claim statuses",
  Operations: "Liveness, readiness and this description"
}

type JsonObject = { readonly [key: string]: unknown }
const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Effect marks its built-in schemas (unknown, any, object, {}) with a relative `$id` such as
 * `/schemas/unknown`. In one document those ids repeat and collide, and they identify nothing a
 * reader can resolve: they are dropped, leaving the plain schema (`{}` for unknown).
 */
const dropBuiltInIds = (u: unknown): unknown => {
  if (Array.isArray(u)) return u.map(dropBuiltInIds)
  if (!isObject(u)) return u
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(u)) {
    if (k === "$id" && typeof v === "string" && v.startsWith("/schemas/")) continue
    out[k] = dropBuiltInIds(v)
  }
  return out
}

/** The document's own shape: `GET /api/openapi.json` declares it like any other response. */
export const OpenApiDocument = Schema.Struct({
  openapi: Schema.Literal("3.1.0"),
  info: Schema.Struct({ title: Schema.String, version: Schema.String, description: Schema.String }),
  servers: Schema.Array(Schema.Struct({ url: Schema.String, description: Schema.String })),
  tags: Schema.Array(Schema.Struct({ name: Schema.String, description: Schema.String })),
  security: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })),
  paths: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
  components: Schema.Struct({
    schemas: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
    securitySchemes: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  })
}).annotations({ identifier: "OpenApiDocument", description: "An OpenAPI 3.1 document" })
export type OpenApiDocument = typeof OpenApiDocument.Type

const pathParameters = (path: string) =>
  [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }))

const response = (doc: ResponseDoc, schemaOf: (s: Schema.Schema.Any) => unknown) => ({
  description: doc.description,
  ...(doc.headers !== undefined
    ? {
        headers: Object.fromEntries(
          Object.entries(doc.headers).map(([name, description]) => [name, { description, schema: { type: "string" } }])
        )
      }
    : {}),
  ...(doc.schema !== undefined ? { content: { [doc.contentType ?? "application/json"]: { schema: schemaOf(doc.schema) } } } : {})
})

const requestBodyOf = (r: Route, schemaOf: (s: Schema.Schema.Any) => unknown) => {
  const body = r.requestBody
  if (body === undefined) return {}
  const content = Object.fromEntries((r.requestContentTypes ?? ["application/json"]).map((t) => [t, { schema: schemaOf(body) }]))
  return { requestBody: { required: true, content } }
}

/**
 * The OpenAPI 3.1 document, generated from the same route declarations that serve the requests.
 * Every schema with an `identifier` annotation becomes one entry of `components/schemas`, and
 * every use of it a `$ref` to that entry (one shared definitions table for all routes).
 */
export const makeOpenApi = (routes: ReadonlyArray<Route>, version: string, publicUrl: string): OpenApiDocument => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const schemaOf = (schema: Schema.Schema.Any): unknown =>
    dropBuiltInIds(
      JSONSchema.fromAST(schema.ast, { definitions, definitionPath: "#/components/schemas/", target: "openApi3.1" })
    )
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const query = r.query === undefined ? undefined : schemaOf(r.query)
    const properties = isObject(query) && isObject(query.properties) ? query.properties : {}
    const required = isObject(query) && Array.isArray(query.required) ? query.required : []
    const queryParams = Object.entries(properties).map(([name, schema]) => ({
      name,
      in: "query",
      required: required.includes(name),
      schema
    }))
    paths[r.path] = {
      ...paths[r.path],
      [r.method.toLowerCase()]: {
        operationId: r.operationId,
        summary: r.summary,
        ...(r.description !== undefined ? { description: r.description } : {}),
        tags: [r.tag],
        ...(r.auth ? {} : { security: [] }),
        parameters: [...pathParameters(r.path), ...queryParams],
        ...requestBodyOf(r, schemaOf),
        // Every route behind a key reads the database: each may answer 503 storage_unavailable.
        responses: Object.fromEntries(
          Object.entries(r.auth ? { ...problems(503), ...r.responses } : r.responses).map(([status, doc]) => [status, response(doc, schemaOf)])
        )
      }
    }
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({ name, description: tagDescriptions[name] ?? name }))
  const schemas = dropBuiltInIds(definitions)
  return {
    openapi: "3.1.0",
    info: {
      title: "encounterd",
      version,
      description: `Encounter intake and claim status service.\n\nClaim status transitions:\n\n| from | allowed next statuses |\n|---|---|\n${transitionTable}`
    },
    servers: [{ url: publicUrl, description: "This server (its public URL)" }],
    tags,
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: isObject(schemas) ? schemas : {},
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "Workspace API key (eik_...)" } }
    }
  }
}
