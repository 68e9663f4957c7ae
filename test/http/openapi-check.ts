import SwaggerParser from "@apidevtools/swagger-parser"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020"
import addFormats from "ajv-formats"

/**
 * Independent checks of the served OpenAPI document: two validators of the document itself, and
 * ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) for response bodies against the schema
 * the document declares for them.
 */

type Json = { readonly [key: string]: unknown }
export const isJson = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const at = (u: unknown, ...keys: ReadonlyArray<string>): unknown => keys.reduce<unknown>((node, k) => (isJson(node) ? node[k] : undefined), u)

/** Redocly's recommended ruleset: each problem as `severity rule: message @ pointer`. */
export const redoclyProblems = async (doc: unknown) => {
  const config = await createConfig({ extends: ["recommended"] })
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "/openapi.json", config })
  return problems.map((p) => ({ severity: p.severity, rule: p.ruleId, text: `${p.ruleId}: ${p.message} @ ${p.location[0]?.pointer ?? ""}` }))
}

type ParserInput = Parameters<typeof SwaggerParser.validate>[0]
const isDocument = (u: unknown): u is ParserInput => isJson(u) && u.openapi === "3.1.0" && isJson(u.info) && isJson(u.paths)

/** Swagger Parser's validate(): schema of the document plus every `$ref` resolved. Null when valid. */
export const swaggerParserError = async (doc: unknown): Promise<string | null> => {
  // validate() dereferences in place: it gets its own copy.
  const copy: unknown = structuredClone(doc)
  if (!isDocument(copy)) return "not an OpenAPI 3.1 document"
  try {
    await SwaggerParser.validate(copy)
    return null
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

/** Every `$id` value in the document, with repeats. */
export const allIds = (u: unknown): Array<string> => {
  if (Array.isArray(u)) return u.flatMap(allIds)
  if (!isJson(u)) return []
  return Object.entries(u).flatMap(([k, v]) => (k === "$id" && typeof v === "string" ? [v, ...allIds(v)] : allIds(v)))
}

const BASE = "https://encounterd.test/components"

/** The document's `#/components/schemas/X` refs, pointed at the components registered with ajv. */
const retarget = (u: unknown): unknown => {
  if (Array.isArray(u)) return u.map(retarget)
  if (!isJson(u)) return u
  return Object.fromEntries(
    Object.entries(u).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" ? v.replace(/^#\/components\/schemas\//, `${BASE}#/$defs/`) : retarget(v)
    ])
  )
}

export interface Seen {
  readonly template: string
  readonly method: string
  readonly status: number
  readonly contentType: string
  readonly body: unknown
}

const makeAjv = (doc: unknown) => {
  const ajv = new Ajv2020({ strict: true, allErrors: true })
  addFormats(ajv)
  ajv.addSchema({ $id: BASE, $defs: retarget(at(doc, "components", "schemas")) })
  return ajv
}

/** Checks a request body the server accepted against the operation's declared request body. */
export const makeRequestChecker = (doc: unknown) => {
  const ajv = makeAjv(doc)
  const compiled = new Map<string, ValidateFunction>()
  return (method: string, template: string, body: unknown): Array<string> => {
    const schema = retarget(at(doc, "paths", template, method.toLowerCase(), "requestBody", "content", "application/json", "schema"))
    if (!isJson(schema)) return [`${method} ${template}: no request body schema`]
    const validate = compiled.get(`${method} ${template}`) ?? ajv.compile(schema)
    compiled.set(`${method} ${template}`, validate)
    if (validate(body)) return []
    return (validate.errors ?? []).map((e) => `${method} ${template} request: ${e.instancePath || "/"} ${e.message ?? ""}`)
  }
}

/** Checks one recorded response against the document; the problems found (empty when valid). */
export const makeResponseChecker = (doc: unknown) => {
  const ajv = makeAjv(doc)
  const compiled = new Map<string, ValidateFunction>()
  return (s: Seen): Array<string> => {
    const where = `${s.method} ${s.template} ${s.status}`
    const operation = at(doc, "paths", s.template, s.method.toLowerCase())
    if (!isJson(operation)) return [`${where}: the document has no such operation`]
    const declared = at(operation, "responses", String(s.status))
    if (!isJson(declared)) return [`${where}: answered, but the document declares no ${s.status} response`]
    if (s.status === 204) {
      const empty = s.body === undefined || s.body === ""
      return at(declared, "content") === undefined && empty && s.contentType === "" ? [] : [`${where}: a 204 carries no content`]
    }
    const essence = (t: string) => t.split(";")[0]!.trim()
    const mediaType = essence(s.contentType)
    // Declared media types may carry parameters (text/plain; version=0.0.4): match on the essence.
    const content = at(declared, "content")
    const declaredType = isJson(content) ? Object.keys(content).find((t) => essence(t) === mediaType) : undefined
    const schema = declaredType === undefined ? undefined : at(declared, "content", declaredType, "schema")
    if (schema === undefined) return [`${where}: no schema declared for ${mediaType}`]
    const key = `${where} ${mediaType}`
    const target = retarget(schema)
    if (!isJson(target)) return [`${where}: the declared schema is not an object`]
    const validate = compiled.get(key) ?? ajv.compile(target)
    compiled.set(key, validate)
    if (validate(s.body)) return []
    return (validate.errors ?? []).map((e) => `${where}: ${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`)
  }
}
