import type { CustomFetch } from "openid-client"
import type { PasswordHasher } from "../lib/ports/passwords.js"
import { randomUUID } from "node:crypto"
import type { ManagedRuntime } from "effect"
import type { ServerConfig } from "./config.js"
import { describeThrown, internalResponse, logFault } from "./fault.js"
import { makeAuditQueue } from "./audit.js"
import { makeFetch } from "./http.js"
import type { Route, Services } from "./route.js"
import { makeServerMetrics, type ServerMetrics } from "./server-metrics.js"

export interface RunningServer {
  readonly port: number
  readonly url: string
  readonly metrics: ServerMetrics
  /** Stops accepting connections and resolves when in-flight requests have been answered. */
  readonly stop: () => Promise<void>
}

export interface ServerOptions {
  /**
   * The registry `/metrics` shows. Pass the one whose `layer` the storage layer was given, so
   * that database commits and fsyncs are counted; a fresh one otherwise.
   */
  readonly metrics?: ServerMetrics
  /** The routes served (all of the API unless given; tests serve others). */
  readonly routes?: ReadonlyArray<Route>
  /** Password hashing (argon2id at Bun's defaults unless given; tests give a cheaper one). */
  readonly passwords?: PasswordHasher
  /** How the OpenID Connect client reaches the provider (tests interpose on it). */
  readonly oidcFetch?: CustomFetch
}

/**
 * Bun's last-resort handler, for a fetch that threw past the pipeline's own guard. The request is
 * not known here: the answer gets a fresh request id, the same one as its log line.
 */
export const serverError = (e: unknown): Response => {
  const requestId = randomUUID()
  logFault(requestId, describeThrown(e))
  return internalResponse(requestId, false)
}

/** Serves the API with Bun.serve on the given runtime (storage, clock, ids). */
export const startServer = (
  runtime: ManagedRuntime.ManagedRuntime<Services, never>,
  requested: ServerConfig,
  options: ServerOptions = {}
): RunningServer => {
  let config = requested
  const metrics = options.metrics ?? makeServerMetrics()
  const fetch = (request: Request) => handle(request)
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // Bodies are limited while read (server/body.ts); this is only a backstop far above the limit.
    maxRequestBodySize: Math.max(config.bodyLimit * 4, 16 * 1024 * 1024),
    idleTimeout: config.idleTimeout,
    fetch,
    error: serverError
  })
  const port = server.port ?? config.port
  // Port 0 picks a free port: the default public URL names the one actually bound.
  if (requested.port === 0) config = { ...config, publicUrl: config.publicUrl.replace(/:0$/, `:${port}`) }
  const auditReads = makeAuditQueue(runtime)
  const handle = makeFetch(runtime, config, metrics, options.routes, {
    auditReads,
    peerAddress: (request) => server.requestIP(request)?.address,
    ...(options.passwords !== undefined ? { passwords: options.passwords } : {}),
    ...(options.oidcFetch !== undefined ? { oidcFetch: options.oidcFetch } : {})
  })
  return {
    port,
    url: `http://${config.host}:${port}`,
    metrics,
    // Reads answered before the stop have their entries written before the storage closes.
    stop: () => server.stop(false).then(auditReads.drain)
  }
}
