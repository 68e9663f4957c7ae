import type { CustomFetch } from "openid-client"
import { makeOidcClient } from "./console/oidc.js"
import { randomUUID } from "node:crypto"
import { Cause, Effect, Exit, Fiber, type ManagedRuntime, Option, Runtime } from "effect"
import type { Principal } from "../lib/domain/workspace.js"
import { authenticate } from "../lib/rules/workspaces.js"
import { servedRoutes as allRoutes } from "./api.js"
import { type AuditContext, type AuditQueue, audited, keyActor, makeAuditQueue } from "./audit.js"
import { clientAddress, trustedSet } from "./client-address.js"
import type { ServerConfig } from "./config.js"
import { privateHeaders } from "./console/headers.js"
import { makeConsoleState } from "./console/state.js"
import { argon2idPasswords } from "./passwords.js"
import type { PasswordHasher } from "../lib/ports/passwords.js"
import { describeThrown, internalResponse, logFault } from "./fault.js"
import { log } from "./log.js"
import {
  Forbidden,
  type HttpFailure,
  internalProblem,
  MethodNotAllowed,
  type Problem,
  problemBody,
  RateLimited,
  RouteNotFound,
  toProblem
} from "./problem.js"
import { makeRateLimiter, type RateDecision } from "./rate-limit.js"
import type { Reply, Route, ServerContext, Services } from "./route.js"
import { compile, type Match, type RequestTarget, requestUrl, route } from "./router.js"
import type { ServerMetrics } from "./server-metrics.js"

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
const BEARER = /^Bearer\s+(\S+)\s*$/i

const presentedKey = (request: Request): string | undefined => {
  const header = request.headers.get("authorization")
  if (header === null) return undefined
  return BEARER.exec(header)?.[1] ?? "(malformed)"
}

/**
 * Text and blobs (a page of renders, whose bytes a response shares) as they are; bytes of their own
 * buffer (an answer made as UTF-8) as they are; other bytes (a view into a larger or shared buffer,
 * as a stored X12 file may be) as a blob of exactly those bytes.
 */
const asBodyInit = (body: unknown): string | Blob | Uint8Array<ArrayBuffer> => {
  if (body instanceof Blob) return body
  if (!(body instanceof Uint8Array)) return String(body)
  return ownsBuffer(body) ? body : new Blob([new Uint8Array(body)])
}

const ownsBuffer = (bytes: Uint8Array): bytes is Uint8Array<ArrayBuffer> =>
  bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength

const respond = (status: number, reply: { readonly body: unknown; readonly contentType?: string }, requestId: string, extra: Record<string, string> | undefined, head: boolean) => {
  const contentType = reply.contentType ?? "application/json"
  // A 204 has no body, so it names no content type.
  const headers: Record<string, string> = { ...(status === 204 ? {} : { "content-type": contentType }), "x-request-id": requestId, ...extra }
  const sendAsIs = reply.contentType !== undefined && (typeof reply.body === "string" || reply.body instanceof Uint8Array || reply.body instanceof Blob)
  const body = head || status === 204 || status === 304 ? null : sendAsIs ? asBodyInit(reply.body) : JSON.stringify(reply.body)
  return new Response(body, { status, headers })
}

/** Console answers (pages, data, and every refusal under /console) carry the console's CSP and are not stored. */
const isConsolePath = (pathname: string): boolean => pathname === "/console" || pathname.startsWith("/console/")

export interface FetchOptions {
  /** The TCP peer of a request (Bun's `server.requestIP`); requests handled in process have none. */
  readonly peerAddress?: (request: Request) => string | undefined
  /** Password hashing (argon2id when not given). */
  readonly passwords?: PasswordHasher
  /** How the OpenID Connect client reaches the provider (tests interpose on it); global fetch when not given. */
  readonly oidcFetch?: CustomFetch
  /** Where reads' audit entries are gathered (the server drains it when it stops); one of its own when not given. */
  readonly auditReads?: AuditQueue
}

/**
 * The request pipeline: route, authenticate, rate-limit, check scope, run the handler, and turn
 * every failure into problem+json in one place. Returns the `fetch` function for Bun.serve.
 * Whatever throws on the way (even while answering) becomes a 500 with the request id, logged once.
 */
export const makeFetch = (
  runtime: ManagedRuntime.ManagedRuntime<Services, never>,
  config: ServerConfig,
  metrics: ServerMetrics,
  routes: ReadonlyArray<Route> = allRoutes,
  options: FetchOptions = {}
) => {
  const table = compile(routes)
  const limiter = config.rateLimit > 0 ? makeRateLimiter(config.rateLimit, config.rateBurst) : undefined
  const trusted = trustedSet(config.trustedProxies)
  const peerAddress = options.peerAddress
  const context: ServerContext = {
    keyRate: limiter,
    rateLimited: metrics.rateLimited,
    clientAddress: (request) => clientAddress(peerAddress?.(request), request.headers.get("x-forwarded-for"), trusted),
    console: makeConsoleState(config.console),
    passwords: options.passwords ?? argon2idPasswords(),
    oidc: config.oidc === undefined ? undefined : makeOidcClient(config.oidc, config, options.oidcFetch !== undefined ? { fetch: options.oidcFetch } : {}),
    auditReads: options.auditReads ?? makeAuditQueue(runtime)
  }

  return (request: Request): Response | Promise<Response> => {
    const started = performance.now()
    const incomingId = request.headers.get("x-request-id")
    const requestId = incomingId !== null && REQUEST_ID.test(incomingId) ? incomingId : randomUUID()
    const head = request.method === "HEAD"
    let routePath: string | undefined
    let consoleAnswer: Record<string, string> | undefined
    const learned: Learned = { principal: undefined, rate: undefined }

    /** The request's log line and metrics: once per request, whatever the outcome. */
    const done = (status: number, response: Response): Response => {
      const seconds = (performance.now() - started) / 1000
      metrics.observeRequest(routePath, request.method, status, seconds)
      log("info", "request", {
        method: request.method,
        route: routePath ?? null,
        status,
        duration_ms: Math.round(seconds * 100_000) / 100,
        request_id: requestId,
        workspace_id: learned.principal?.workspace.id ?? null
      })
      return response
    }
    const fault = (e: unknown): Response => {
      logFault(requestId, describeThrown(e))
      return done(500, internalResponse(requestId, head, consoleAnswer))
    }

    try {
      const url = requestUrl(request.url)
      if (isConsolePath(url.pathname)) consoleAnswer = privateHeaders
      const match = route(table, request.method, url.pathname)
      if (match._tag === "Found") routePath = match.route.path
      else if (match._tag === "WrongMethod") routePath = match.path
      const program = Effect.gen(() => runRoute(match, url, request, config, metrics, context, learned, requestId))

      const finish = (exit: Exit.Exit<Reply, HttpFailure>): Response => {
        const rate = learned.rate
        const rateHeaders: Record<string, string> | undefined =
          rate === undefined
            ? undefined
            : {
                "ratelimit-limit": String(rate.limit),
                "ratelimit-remaining": String(rate.remaining),
                "ratelimit-reset": String(rate.resetSeconds)
              }
        if (Exit.isSuccess(exit)) {
          const reply = exit.value
          return done(reply.status, respond(reply.status, reply, requestId, { ...consoleAnswer, ...rateHeaders, ...reply.headers }, head))
        }
        const failure = Cause.failureOption(exit.cause)
        const problem: Problem = Option.isSome(failure) ? toProblem(failure.value) : internalProblem
        // The cause names the failing operation; request bodies never reach the log.
        if (problem.status >= 500) logFault(requestId, describeCause(exit.cause))
        const body = { body: problemBody(problem, requestId), contentType: "application/problem+json" }
        return done(problem.status, respond(problem.status, body, requestId, { ...consoleAnswer, ...rateHeaders, ...problem.headers }, head))
      }

      // A request with a body always waits (for the body, then for its write): it runs as a promise.
      // Others mostly complete without waiting (reads on SQLite, refusals): they are answered in the
      // same call, without a promise; those that do wait (PostgreSQL) go on and are awaited.
      if (request.body !== null) return runtime.runPromiseExit(program).then(finish).catch(fault)
      const exit = runtime.runSyncExit(program)
      const pending = asyncFiber(exit)
      return pending === undefined ? finish(exit) : runtime.runPromise(Fiber.await(pending)).then(finish).catch(fault)
    } catch (e) {
      return fault(e)
    }
  }
}

/** What running a request learns on the way, for its log line and its rate-limit headers. */
interface Learned {
  principal: Principal | undefined
  rate: RateDecision | undefined
}

/**
 * Runs the matched route: authenticates, rate-limits and checks the scope when the route needs a
 * key. Declared once, not as a closure per request (see ARCHITECTURE.md, "Effects on the request
 * path").
 */
function* runRoute(
  match: Match,
  url: RequestTarget,
  request: Request,
  config: ServerConfig,
  metrics: ServerMetrics,
  context: ServerContext,
  learned: Learned,
  requestId: string
) {
  if (match._tag === "None") return yield* new RouteNotFound({ path: url.pathname })
  if (match._tag === "WrongMethod") return yield* new MethodNotAllowed({ allow: match.allow })
  const r = match.route
  let principal: Principal | undefined
  if (r.auth) {
    principal = yield* authenticate(presentedKey(request))
    learned.principal = principal
    const rate = context.keyRate?.(principal.keyId)
    learned.rate = rate
    if (rate !== undefined && !rate.allowed) {
      metrics.rateLimited()
      return yield* new RateLimited({ retryAfterSeconds: rate.resetSeconds })
    }
  }
  const input = { principal, params: match.params, query: url.searchParams, request, config, metrics: metrics.registry, server: context, requestId }
  if (principal === undefined) return yield* r.run(input)
  const audit = r.audit
  const forbidden = r.scope !== undefined && !principal.scopes.includes(r.scope) ? new Forbidden({ scope: r.scope }) : undefined
  if (audit === undefined || audit === "none") return yield* forbidden === undefined ? r.run(input) : Effect.fail(forbidden)
  const entry: AuditContext = {
    workspaceId: principal.workspace.id,
    actor: keyActor(principal),
    params: match.params,
    clientIp: context.clientAddress(request),
    requestId,
    method: request.method,
    reads: context.auditReads
  }
  return yield* audited(audit, entry, forbidden === undefined ? r.run(input) : Effect.fail(forbidden))
}

/** The fiber still running when a synchronous run had to stop at an asynchronous step. */
const asyncFiber = <A, E>(exit: Exit.Exit<A, E>): Fiber.RuntimeFiber<A, E> | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const defect = Cause.dieOption(exit.cause)
  return Option.isSome(defect) && Runtime.isAsyncFiberException(defect.value)
    ? (defect.value.fiber as Fiber.RuntimeFiber<A, E>)
    : undefined
}

/** The first line of a failure's description, for the log; never throws. */
const describeCause = (cause: Cause.Cause<unknown>): string => {
  try {
    return Cause.pretty(cause).split("\n")[0] ?? "unknown"
  } catch {
    return String(Cause.squash(cause)).split("\n")[0] ?? "unknown"
  }
}
