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
export const startServer = (runtime: ManagedRuntime.ManagedRuntime<Services, never>, requested: ServerConfig): RunningServer => {
  let config = requested
  const fetch = (request: Request) => handle(request)
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
  // Port 0 picks a free port: the default public URL names the one actually bound.
  if (requested.port === 0) config = { ...config, publicUrl: config.publicUrl.replace(/:0$/, `:${port}`) }
  const handle = makeFetch(runtime, config)
  return {
    port,
    url: `http://${config.host}:${port}`,
    stop: () => server.stop(false).then(() => undefined)
  }
}
