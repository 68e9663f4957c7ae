import { Effect, Either, Schema } from "effect"
import { FieldIssue, InvalidQuery } from "../lib/domain/errors.js"
import { requestDecoder } from "../lib/domain/field-issues.js"
import { capProblems } from "../lib/domain/problems.js"
import type { Principal, Scope } from "../lib/domain/workspace.js"
import type { Clock, Ids } from "../lib/ports/clock.js"
import type { PasswordHasher } from "../lib/ports/passwords.js"
import type { Storage } from "../lib/ports/storage.js"
import type { WebhookSettings } from "../lib/webhooks/settings.js"
import type { ServerConfig } from "./config.js"
import type { ConsoleState } from "./console/state.js"
import type { OidcClient } from "./console/oidc.js"
import type { Registry } from "./metrics.js"
import type { AuditDecl } from "./audit.js"
import type { AuditQueue } from "./audit.js"
import type { HttpFailure } from "./problem.js"
import type { RateLimiter } from "./rate-limit.js"

export type Services = Storage | Clock | Ids | WebhookSettings

export interface Reply {
  readonly status: number
  /** Serialized as JSON, unless `contentType` is given: then it is sent as the text it is. */
  readonly body: unknown
  readonly headers?: Record<string, string>
  readonly contentType?: string
}

/** What one server keeps for its routes beside the runtime's services: made once, when it starts. */
export interface ServerContext {
  /** The per-key rate limit API requests are charged to (undefined when off); console requests are charged to it too. */
  readonly keyRate: RateLimiter | undefined
  /** Counts a request refused by a rate limit (`/metrics`). */
  readonly rateLimited: () => void
  /** The client of a request: its TCP peer, or what a trusted proxy forwarded (`--trusted-proxy`). */
  readonly clientAddress: (request: Request) => string | undefined
  readonly console: ConsoleState
  /** Password hashing for sign-ins and password changes (argon2id on the binary). */
  readonly passwords: PasswordHasher
  /** The console's OpenID Connect client, when the server has a provider (`--oidc-issuer`). */
  readonly oidc: OidcClient | undefined
  /** Reads' audit entries, gathered and written together (`makeAuditQueue`). */
  readonly auditReads: AuditQueue
}

export interface HandlerInput<Q, P> {
  readonly principal: P
  /** The request's id (`x-request-id`, given or made), as its log line and answer carry it. */
  readonly requestId: string
  readonly params: Readonly<Record<string, string>>
  readonly query: Q
  readonly request: Request
  readonly config: ServerConfig
  readonly metrics: Registry
  readonly server: ServerContext
}

/** What the OpenAPI document says of one response. */
export interface ResponseDoc {
  readonly description: string
  readonly schema?: Schema.Schema.Any
  /** Of the body; `application/json` when not given. */
  readonly contentType?: string
  /** Response headers worth naming, with what they carry. */
  readonly headers?: Readonly<Record<string, string>>
}

interface RouteDoc {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /**
   * What patient data the route reads or changes: each request (answered or refused once its
   * caller is known) appends an audit entry before it is answered (`server/audit.ts`). `"none"`
   * for a route that touches no patient data; every authenticated route says one or the other
   * (`test/http/audit.test.ts`).
   */
  readonly audit?: AuditDecl | "none"
  readonly path: string
  readonly operationId: string
  readonly summary: string
  readonly description?: string
  readonly tag: string
  readonly requestBody?: Schema.Schema.Any
  /** The media types the request body may have; `application/json` when not given. */
  readonly requestContentTypes?: ReadonlyArray<string>
  readonly responses: Readonly<Record<number, ResponseDoc>>
}

/** A route as the router and the OpenAPI generator see it: the declaration is the single source. */
export interface Route extends RouteDoc {
  readonly auth: boolean
  readonly scope?: Scope
  readonly query?: Schema.Schema.Any
  readonly run: (input: HandlerInput<URLSearchParams, Principal | undefined>) => Effect.Effect<Reply, HttpFailure, Services>
}

/** Query values: one string, or an array when the parameter is repeated (one pass over the parameters). */
const toRecord = (params: URLSearchParams): Record<string, string | ReadonlyArray<string>> => {
  const out = new Map<string, string | Array<string>>()
  for (const [key, value] of params) {
    const seen = out.get(key)
    if (seen === undefined) out.set(key, value)
    else if (typeof seen === "string") out.set(key, [seen, value])
    else seen.push(value)
  }
  return Object.fromEntries(out)
}

/**
 * What a route does with a query parameter it does not declare: `ignore` it (the default, and what
 * every route did before `refuse` existed: clients add cache busters such as `_`, and the compat
 * routes take requests from the vendor's SDKs), or `refuse` it, naming it in a 400
 * `invalid_parameter`, so that a misspelt filter is not answered as an unfiltered list.
 */
export type UnknownParameters = "ignore" | "refuse"

/** Decodes query parameters with a schema; failures name each parameter (400). */
export const decodeQuery = <Q, I>(schema: Schema.Schema<Q, I, never>, unknown: UnknownParameters = "ignore") => {
  const decode = requestDecoder(schema)
  const ast = Schema.encodedSchema(schema).ast
  const declared = new Set(ast._tag === "TypeLiteral" ? ast.propertySignatures.map((p) => String(p.name)) : [])
  // Without declared parameters there is nothing to check (unless unknown ones are refused).
  const empty = decode({})
  if (unknown === "ignore" && ast._tag === "TypeLiteral" && declared.size === 0 && ast.indexSignatures.length === 0 && Either.isRight(empty)) {
    const none = Effect.succeed(empty.right)
    return (_params: URLSearchParams): Effect.Effect<Q, InvalidQuery> => none
  }
  const undeclared = (params: URLSearchParams): Array<FieldIssue> => {
    if (unknown === "ignore") return []
    const names = new Set<string>()
    for (const name of params.keys()) if (!declared.has(name)) names.add(name)
    return [...names].map((path) => new FieldIssue({ path, message: "is not a parameter of this route" }))
  }
  return (params: URLSearchParams): Effect.Effect<Q, InvalidQuery> => {
    const decoded = decode(toRecord(params))
    const strays = undeclared(params)
    if (Either.isRight(decoded) && strays.length === 0) return Effect.succeed(decoded.right)
    const errors = capProblems([...(Either.isLeft(decoded) ? decoded.left : []), ...strays])
    return Effect.fail(new InvalidQuery({ errors }))
  }
}

type Handler<Q, P> = (input: HandlerInput<Q, P>) => Effect.Effect<Reply, HttpFailure, Services>

/** A route that needs an API key (and optionally a scope); the handler gets the principal. */
export const authed = <Q, I>(
  doc: RouteDoc & { readonly scope?: Scope; readonly query: Schema.Schema<Q, I, never>; readonly unknownParameters?: UnknownParameters },
  handler: Handler<Q, Principal>
): Route => {
  const decode = decodeQuery(doc.query, doc.unknownParameters)
  return { ...doc, auth: true, run: (input) => Effect.gen(() => runAuthed(input, decode, handler)) }
}

function* runAuthed<Q>(
  input: HandlerInput<URLSearchParams, Principal | undefined>,
  decode: (params: URLSearchParams) => Effect.Effect<Q, InvalidQuery>,
  handler: Handler<Q, Principal>
) {
  const principal = input.principal
  if (principal === undefined) return yield* Effect.dieMessage("authenticated route without a principal")
  const query = yield* decode(input.query)
  return yield* handler({ ...input, principal, query })
}

/** For routes that take no query parameters (unknown ones are ignored, unless the route refuses them). */
export const NoQuery = Schema.Struct({})

/** A route open without a key (health, readiness, the API description). */
export const open = (doc: RouteDoc, handler: Handler<Record<string, never>, undefined>): Route => ({
  ...doc,
  auth: false,
  run: (input) => handler({ ...input, principal: undefined, query: {} })
})

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply =>
  headers === undefined ? { status, body } : { status, body, headers }

/** A text reply (HTML, CSS, scripts, metrics) sent as it is, with its content type. */
export const text = (status: number, body: string, contentType: string, headers?: Record<string, string>): Reply =>
  headers === undefined ? { status, body, contentType } : { status, body, contentType, headers }

/** A body sent as it is (text, bytes or a blob), with its own media type. */
export const raw = (status: number, contentType: string, body: string | Uint8Array | Blob, headers?: Record<string, string>): Reply =>
  headers === undefined ? { status, body, contentType } : { status, body, contentType, headers }
