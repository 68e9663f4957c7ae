import type { ManagedRuntime } from "effect"
import type { ServerConfig } from "./config.js"
import { makeFetch } from "./http.js"
import { problemBody, internalProblem } from "./problem.js"
import type { Services } from "./route.js"

export interface RunningServer {
  readonly port: number
  readonly url: string
  /** Stops accepting connections and resolves when in-flight requests have been answered. */
  readonly stop: () => Promise<void>
}

/** Serves the API with Bun.serve on the given runtime (storage, clock, ids). */
export const startServer = (runtime: ManagedRuntime.ManagedRuntime<Services, never>, config: ServerConfig): RunningServer => {
  const fetch = makeFetch(runtime, config)
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // Bodies are limited while read (server/body.ts); this is only a backstop far above the limit.
    maxRequestBodySize: Math.max(config.bodyLimit * 4, 16 * 1024 * 1024),
    idleTimeout: config.idleTimeout,
    fetch,
    error: () =>
      new Response(JSON.stringify(problemBody(internalProblem, "unknown")), {
        status: 500,
        headers: { "content-type": "application/problem+json" }
      })
  })
  const port = server.port ?? config.port
  return {
    port,
    url: `http://${config.host}:${port}`,
    stop: () => server.stop(false).then(() => undefined)
  }
}
