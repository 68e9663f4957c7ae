import { Effect, Layer, ManagedRuntime } from "effect"
import { memoryLayer } from "../../lib/layers.js"
import { createApiKey, createWorkspace } from "../../lib/rules/workspaces.js"
import { sqliteLayer } from "../../lib/sqlite-bun.js"
import { type ServerConfig, withDefaults } from "../../server/config.js"
import { setLogSink } from "../../server/log.js"
import { type RunningServer, startServer } from "../../server/server.js"

export interface TestServer {
  readonly url: string
  /** Keys of workspace `a` (scope encounters) and with claims:write, and of workspace `b`. */
  readonly keys: { readonly a: string; readonly aWriter: string; readonly b: string }
  readonly workspaces: { readonly a: string; readonly b: string }
  readonly runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<typeof memoryLayer>, never>
  readonly server: RunningServer
  readonly close: () => Promise<void>
}

const quiet = process.env.ENCOUNTERD_TEST_LOGS === undefined
/** Log lines written by in-process servers, for tests that check what is logged. */
export const capturedLogs: Array<string> = []
setLogSink((lines) => {
  // One write may carry several lines (those of one turn of the event loop).
  for (const line of lines.split("\n")) if (line !== "") capturedLogs.push(`${line}\n`)
  if (capturedLogs.length > 10_000) capturedLogs.splice(0, 5_000)
  if (!quiet) process.stdout.write(lines)
})

/**
 * The whole API in process over real HTTP on a free port: storage in memory (default) or in a
 * SQLite file, two workspaces with keys.
 */
export const startTestServer = async (options: { readonly db?: string; readonly config?: Partial<ServerConfig> } = {}): Promise<TestServer> => {
  const layer = options.db === undefined ? memoryLayer : Layer.orDie(sqliteLayer(options.db))
  const runtime = ManagedRuntime.make(layer)
  const setup = await runtime.runPromise(
    Effect.gen(function* () {
      const a = yield* createWorkspace("clinic-a", "Clinic A")
      const b = yield* createWorkspace("clinic-b", "Clinic B")
      const keyA = yield* createApiKey("clinic-a")
      const keyAWriter = yield* createApiKey("clinic-a", ["claims:write"])
      const keyB = yield* createApiKey("clinic-b", ["claims:write"])
      return { a, b, keyA, keyAWriter, keyB }
    })
  )
  const config = withDefaults({ port: 0, rateLimit: 0, ...options.config })
  const server = startServer(runtime, config)
  return {
    url: server.url,
    keys: { a: setup.keyA.key, aWriter: setup.keyAWriter.key, b: setup.keyB.key },
    workspaces: { a: setup.a.id, b: setup.b.id },
    runtime,
    server,
    close: async () => {
      await server.stop()
      await runtime.dispose()
    }
  }
}
