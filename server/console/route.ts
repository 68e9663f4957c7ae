import { Effect, type Schema } from "effect"
import type { Scope } from "../../lib/domain/workspace.js"
import { PasswordChangeRequired } from "../../lib/domain/user-errors.js"
import { type AuditDecl, audited } from "../audit.js"
import { Forbidden, type HttpFailure, RateLimited } from "../problem.js"
import type { RateDecision } from "../rate-limit.js"
import { decodeQuery, type HandlerInput, type Reply, type Route, type ServerContext, type Services } from "../route.js"
import { type ConsoleCaller, requireCsrf, requireSession } from "./guard.js"
import { privateHeaders } from "./headers.js"

export interface ConsoleDoc<Q, I> {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly summary: string
  readonly query: Schema.Schema<Q, I, never>
  /**
   * The key must hold this scope, or the user's role (`roleScopes`); the console shows the control
   * only then. Without one, every role may call it (reads).
   */
  readonly scope?: Scope
  /** The patient data it reads or changes, as on API routes: every call appends an audit entry. */
  readonly audit?: AuditDecl | "none"
  /** Callable while the session must change its one-time password (session, sign-out, the change itself). */
  readonly beforePasswordChange?: boolean
}

type ConsoleHandler<Q> = (input: HandlerInput<Q, ConsoleCaller>) => Effect.Effect<Reply, HttpFailure, Services>

/** A route of the console's own API, outside the public API's description. */
export const consoleRoute = (
  doc: { readonly method: "GET" | "POST"; readonly path: string; readonly summary: string; readonly audit?: AuditDecl | "none" },
  run: Route["run"]
): Route => ({
  ...doc,
  operationId: `console:${doc.method}:${doc.path}`,
  tag: "Console",
  responses: {},
  auth: false,
  run
})

const rateHeaders = (rate: RateDecision | undefined): Record<string, string> =>
  rate === undefined
    ? {}
    : { "ratelimit-limit": String(rate.limit), "ratelimit-remaining": String(rate.remaining), "ratelimit-reset": String(rate.resetSeconds) }

const withHeaders = (reply: Reply, rate: RateDecision | undefined): Reply => ({
  ...reply,
  headers: { ...privateHeaders, ...rateHeaders(rate), ...reply.headers }
})

/** A console request spends a token of its key's bucket, the one the key's API requests spend. */
const chargeKey = (server: ServerContext, caller: ConsoleCaller): Effect.Effect<RateDecision | undefined, RateLimited> => {
  const rate = server.keyRate?.(caller.rateKey)
  if (rate === undefined || rate.allowed) return Effect.succeed(rate)
  server.rateLimited()
  return Effect.fail(new RateLimited({ retryAfterSeconds: rate.resetSeconds }))
}

/**
 * A console endpoint behind the session cookie: the session's key is checked again and charged to
 * its rate limit, a POST needs the session's CSRF token, and a declared scope must be held. Then
 * the same rules as the API run.
 */
export const sessionRoute = <Q, I>(doc: ConsoleDoc<Q, I>, handler: ConsoleHandler<Q>): Route => {
  const decode = decodeQuery(doc.query)
  return consoleRoute(doc, (input) =>
    Effect.gen(function* () {
      const caller = yield* requireSession(input.request, input.config, input.server.console.sessions)
      const rate = yield* chargeKey(input.server, caller)
      if (doc.method === "POST") yield* requireCsrf(input.request, input.config, caller.session)
      const subject = caller.session.subject
      const refusal =
        subject.kind === "user" && subject.mustChangePassword && doc.beforePasswordChange !== true
          ? new PasswordChangeRequired()
          : doc.scope !== undefined && !caller.principal.scopes.includes(doc.scope)
            ? new Forbidden(caller.role === null ? { scope: doc.scope } : { scope: doc.scope, role: caller.role })
            : undefined
      const work = refusal !== undefined ? Effect.fail(refusal) : Effect.flatMap(decode(input.query), (query) => handler({ ...input, principal: caller, query }))
      const audit = doc.audit
      const reply =
        audit === undefined || audit === "none"
          ? yield* work
          : yield* audited(audit, { workspaceId: caller.principal.workspace.id, actor: caller.actor, params: input.params, clientIp: input.server.clientAddress(input.request), requestId: input.requestId, method: input.request.method, reads: input.server.auditReads }, work)
      return withHeaders(reply, rate)
    })
  )
}
