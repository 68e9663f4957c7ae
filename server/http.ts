import { randomUUID } from "node:crypto"
import { Cause, Effect, Exit, Fiber, type ManagedRuntime, Option, Runtime } from "effect"
import type { Principal } from "../lib/domain/workspace.js"
import { authenticate } from "../lib/rules/workspaces.js"
import { routes as allRoutes } from "./api.js"
import type { ServerConfig } from "./config.js"
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
import type { Reply, Route, Services } from "./route.js"

interface Compiled {
  readonly route: Route
  readonly segments: ReadonlyArray<string>
}

const compile = (routes: ReadonlyArray<Route>): ReadonlyArray<Compiled> =>
  routes.map((route) => ({ route, segments: route.path.split("/").slice(1) }))

type Match =
  | { readonly _tag: "Found"; readonly route: Route; readonly params: Record<string, string> }
  | { readonly _tag: "WrongMethod"; readonly allow: ReadonlyArray<string> }
  | { readonly _tag: "None" }

const matchPath = (c: Compiled, parts: ReadonlyArray<string>): Record<string, string> | undefined => {
  if (c.segments.length !== parts.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    const seg = c.segments[i]!
    const part = parts[i]!
    if (seg.startsWith("{")) {
      if (part === "") return undefined
      params[seg.slice(1, -1)] = part
    } else if (seg !== part) return undefined
  }
  return params
}

const decodeSegment = (s: string): string | undefined => {
  try {
    return decodeURIComponent(s)
  } catch {
    return undefined
  }
}

const route = (table: ReadonlyArray<Compiled>, method: string, pathname: string): Match => {
  const raw = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname
  const parts: Array<string> = []
  for (const s of raw.split("/").slice(1)) {
    const d = decodeSegment(s)
    if (d === undefined) return { _tag: "None" }
    parts.push(d)
  }
  const allow: Array<string> = []
  for (const c of table) {
    const params = matchPath(c, parts)
    if (params === undefined) continue
    // HEAD is answered as GET without a body.
    if (c.route.method === method || (method === "HEAD" && c.route.method === "GET")) {
      return { _tag: "Found", route: c.route, params }
    }
    allow.push(c.route.method)
  }
  return allow.length > 0 ? { _tag: "WrongMethod", allow: [...new Set(allow)] } : { _tag: "None" }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
const BEARER = /^Bearer\s+(\S+)\s*$/i

const presentedKey = (request: Request): string | undefined => {
  const header = request.headers.get("authorization")
  if (header === null) return undefined
  return BEARER.exec(header)?.[1] ?? "(malformed)"
}

/**
 * The request pipeline: route, authenticate, rate-limit, check scope, run the handler, and turn
 * every failure into problem+json in one place. Returns the `fetch` function for Bun.serve.
 */
export const makeFetch = (
  runtime: ManagedRuntime.ManagedRuntime<Services, never>,
  config: ServerConfig,
  routes: ReadonlyArray<Route> = allRoutes
) => {
  const table = compile(routes)
  const limiter = config.rateLimit > 0 ? makeRateLimiter(config.rateLimit, config.rateBurst) : undefined

  const respond = (
    status: number,
    body: unknown,
    requestId: string,
    contentType: string,
    extra: Record<string, string> | undefined,
    head: boolean
  ) => {
    const headers: Record<string, string> = { "content-type": contentType, "x-request-id": requestId, ...extra }
    return new Response(head || status === 204 ? null : JSON.stringify(body), { status, headers })
  }

  return (request: Request): Response | Promise<Response> => {
    const started = performance.now()
    const incomingId = request.headers.get("x-request-id")
    const requestId = incomingId !== null && REQUEST_ID.test(incomingId) ? incomingId : randomUUID()
    const url = new URL(request.url)
    const match = route(table, request.method, url.pathname)
    let principal: Principal | undefined
    let rate: RateDecision | undefined

    const program = Effect.gen(function* () {
      if (match._tag === "None") return yield* new RouteNotFound({ path: url.pathname })
      if (match._tag === "WrongMethod") return yield* new MethodNotAllowed({ allow: match.allow })
      const r = match.route
      if (r.auth) {
        principal = yield* authenticate(presentedKey(request))
        rate = limiter?.(principal.keyId)
        if (rate !== undefined && !rate.allowed) return yield* new RateLimited({ retryAfterSeconds: rate.resetSeconds })
        if (r.scope !== undefined && !principal.scopes.includes(r.scope)) return yield* new Forbidden({ scope: r.scope })
      }
      return yield* r.run({ principal, params: match.params, query: url.searchParams, request, config })
    })

    const finish = (exit: Exit.Exit<Reply, HttpFailure>): Response => {
      const rateHeaders: Record<string, string> | undefined =
        rate === undefined
          ? undefined
          : {
              "ratelimit-limit": String(rate.limit),
              "ratelimit-remaining": String(rate.remaining),
              "ratelimit-reset": String(rate.resetSeconds)
            }
      const head = request.method === "HEAD"
      let status: number
      let response: Response
      if (Exit.isSuccess(exit)) {
        status = exit.value.status
        response = respond(status, exit.value.body, requestId, "application/json", { ...rateHeaders, ...exit.value.headers }, head)
      } else {
        const failure = Cause.failureOption(exit.cause)
        const problem: Problem = Option.isSome(failure) ? toProblem(failure.value) : internalProblem
        if (problem.status >= 500) {
          // The cause names the failing operation; request bodies never reach the log.
          log("error", "request failed", { request_id: requestId, cause: describeCause(exit.cause) })
        }
        status = problem.status
        response = respond(status, problemBody(problem, requestId), requestId, "application/problem+json", { ...rateHeaders, ...problem.headers }, head)
      }
      log("info", "request", {
        method: request.method,
        route: match._tag === "Found" ? match.route.path : null,
        status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        request_id: requestId,
        workspace_id: principal?.workspace.id ?? null
      })
      return response
    }

    // A request with a body always waits (for the body, then for its write): it runs as a promise.
    // Others mostly complete without waiting (reads on SQLite, refusals): they are answered in the
    // same call, without a promise; those that do wait (PostgreSQL) go on and are awaited.
    if (request.body !== null) return runtime.runPromiseExit(program).then(finish)
    const exit = runtime.runSyncExit(program)
    const pending = asyncFiber(exit)
    return pending === undefined ? finish(exit) : runtime.runPromise(Fiber.await(pending)).then(finish)
  }
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
