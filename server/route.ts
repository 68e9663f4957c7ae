import { Effect, Either, ParseResult, Schema } from "effect"
import { FieldIssue, InvalidQuery } from "../lib/domain/errors.js"
import { formatPath } from "../lib/domain/validate.js"
import type { Principal, Scope } from "../lib/domain/workspace.js"
import type { Clock, Ids } from "../lib/ports/clock.js"
import type { Storage } from "../lib/ports/storage.js"
import type { ServerConfig } from "./config.js"
import type { HttpFailure } from "./problem.js"

export type Services = Storage | Clock | Ids

export interface Reply {
  readonly status: number
  readonly body: unknown
  readonly headers?: Record<string, string>
}

export interface HandlerInput<Q, P> {
  readonly principal: P
  readonly params: Readonly<Record<string, string>>
  readonly query: Q
  readonly request: Request
  readonly config: ServerConfig
}

/** What the OpenAPI document says of one response. */
export interface ResponseDoc {
  readonly description: string
  readonly schema?: Schema.Schema.Any
}

interface RouteDoc {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly operationId: string
  readonly summary: string
  readonly description?: string
  readonly tag: string
  readonly requestBody?: Schema.Schema.Any
  readonly responses: Readonly<Record<number, ResponseDoc>>
}

/** A route as the router and the OpenAPI generator see it: the declaration is the single source. */
export interface Route extends RouteDoc {
  readonly auth: boolean
  readonly scope?: Scope
  readonly query?: Schema.Schema.Any
  readonly run: (input: HandlerInput<URLSearchParams, Principal | undefined>) => Effect.Effect<Reply, HttpFailure, Services>
}

/** Query values: one string, or an array when the parameter is repeated. */
const toRecord = (params: URLSearchParams): Record<string, string | ReadonlyArray<string>> => {
  const out: Record<string, string | Array<string>> = {}
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key)
    out[key] = all.length === 1 ? all[0]! : all
  }
  return out
}

const decodeQuery = <Q, I>(schema: Schema.Schema<Q, I, never>) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })
  // Without declared parameters there is nothing to check (unknown ones are ignored everywhere).
  const ast = Schema.encodedSchema(schema).ast
  const empty = decode({})
  if (ast._tag === "TypeLiteral" && ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0 && Either.isRight(empty)) {
    const none = Effect.succeed(empty.right)
    return (_params: URLSearchParams): Effect.Effect<Q, InvalidQuery> => none
  }
  return (params: URLSearchParams): Effect.Effect<Q, InvalidQuery> =>
    Either.match(decode(toRecord(params)), {
      onRight: Effect.succeed,
      onLeft: (e) =>
        Effect.fail(
          new InvalidQuery({
            errors: ParseResult.ArrayFormatter.formatErrorSync(e).map(
              (i) => new FieldIssue({ path: formatPath(i.path), message: i.message })
            )
          })
        )
    })
}

type Handler<Q, P> = (input: HandlerInput<Q, P>) => Effect.Effect<Reply, HttpFailure, Services>

/** A route that needs an API key (and optionally a scope); the handler gets the principal. */
export const authed = <Q, I>(
  doc: RouteDoc & { readonly scope?: Scope; readonly query: Schema.Schema<Q, I, never> },
  handler: Handler<Q, Principal>
): Route => {
  const decode = decodeQuery(doc.query)
  return {
    ...doc,
    auth: true,
    run: (input) =>
      Effect.gen(function* () {
        const principal = input.principal
        if (principal === undefined) return yield* Effect.dieMessage("authenticated route without a principal")
        const query = yield* decode(input.query)
        return yield* handler({ ...input, principal, query })
      })
  }
}

/** For routes that take no query parameters (unknown ones are ignored everywhere). */
export const NoQuery = Schema.Struct({})

/** A route open without a key (health, readiness, the API description). */
export const open = (doc: RouteDoc, handler: Handler<Record<string, never>, undefined>): Route => ({
  ...doc,
  auth: false,
  run: (input) => handler({ ...input, principal: undefined, query: {} })
})

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply =>
  headers === undefined ? { status, body } : { status, body, headers }
