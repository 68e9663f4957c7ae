import type { CustomFetch } from "openid-client"
import { Effect, Fiber, Layer, ManagedRuntime } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { liveServices } from "../../lib/layers.js"
import { ephemeralWebhookSettings, type WebhookSettingsOptions } from "../../lib/webhooks/settings.js"
import { runDeliveryWorker, type WorkerOptions } from "../../lib/webhooks/worker.js"
import { createApiKey, createWorkspace } from "../../lib/rules/workspaces.js"
import { sqliteLayer } from "../../lib/sqlite-bun.js"
import { type ServerSettings, withDefaults } from "../../server/config.js"
import { setLogSink } from "../../server/log.js"
import { type RunningServer, startServer } from "../../server/server.js"
import { argon2idPasswords } from "../../server/passwords.js"
import type { PasswordHasher } from "../../lib/ports/passwords.js"

export interface TestServer {
  readonly url: string
  /**
   * Keys of workspace `a` (scope encounters), with claims:write, with webhooks:write, with tasks:write,
   * with admin; of workspace `b`, with webhooks:write, with admin.
   */
  readonly keys: {
    readonly a: string
    readonly aWriter: string
    readonly aHooks: string
    readonly aTasks: string
    readonly aAdmin: string
    readonly b: string
    readonly bHooks: string
    readonly bAdmin: string
  }
  readonly workspaces: { readonly a: string; readonly b: string }
  /** The password hashing the server uses (argon2id, at a test's cost). */
  readonly passwords: PasswordHasher
  readonly runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof ephemeralWebhookSettings>> | Layer.Layer.Success<typeof MemoryStorage.layer> | Layer.Layer.Success<typeof liveServices>, never>
  readonly server: RunningServer
  readonly close: () => Promise<void>
}

/** Argon2id at its lowest cost: the same code path as the binary's, without 64 MiB per hash. */
export const testPasswords: PasswordHasher = argon2idPasswords({ memoryCost: 256, timeCost: 1 })

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
export const startTestServer = async (
  options: {
    readonly db?: string
    readonly config?: ServerSettings
    /** Webhook settings (a fresh key per server; private targets refused unless `allowPrivate`). */
    readonly webhooks?: Omit<WebhookSettingsOptions, "db" | "keyFile">
    /** Runs the delivery worker beside the server. */
    readonly worker?: WorkerOptions
    /** How the console's OpenID Connect client reaches the provider (a test may interpose). */
    readonly oidcFetch?: CustomFetch
  } = {}
): Promise<TestServer> => {
  const storage = options.db === undefined ? Layer.merge(MemoryStorage.layer, liveServices) : Layer.orDie(sqliteLayer(options.db))
  const runtime = ManagedRuntime.make(Layer.merge(storage, ephemeralWebhookSettings(options.webhooks)))
  const setup = await runtime.runPromise(
    Effect.gen(function* () {
      const a = yield* createWorkspace("clinic-a", "Clinic A")
      const b = yield* createWorkspace("clinic-b", "Clinic B")
      const keyA = yield* createApiKey("clinic-a")
      const keyAWriter = yield* createApiKey("clinic-a", ["claims:write"])
      const keyB = yield* createApiKey("clinic-b", ["claims:write"])
      const keyAHooks = yield* createApiKey("clinic-a", ["webhooks:write"])
      const keyBHooks = yield* createApiKey("clinic-b", ["webhooks:write"])
      const keyATasks = yield* createApiKey("clinic-a", ["tasks:write"])
      const keyAAdmin = yield* createApiKey("clinic-a", ["admin"])
      const keyBAdmin = yield* createApiKey("clinic-b", ["admin"])
      return { a, b, keyA, keyAWriter, keyB, keyAHooks, keyBHooks, keyATasks, keyAAdmin, keyBAdmin }
    })
  )
  const config = withDefaults({ port: 0, rateLimit: 0, ...options.config })
  const server = startServer(runtime, config, { passwords: testPasswords, ...(options.oidcFetch !== undefined ? { oidcFetch: options.oidcFetch } : {}) })
  const worker = options.worker === undefined ? undefined : runtime.runFork(runDeliveryWorker(options.worker))
  return {
    url: server.url,
    keys: {
      a: setup.keyA.key,
      aWriter: setup.keyAWriter.key,
      aHooks: setup.keyAHooks.key,
      aTasks: setup.keyATasks.key,
      aAdmin: setup.keyAAdmin.key,
      b: setup.keyB.key,
      bHooks: setup.keyBHooks.key,
      bAdmin: setup.keyBAdmin.key
    },
    workspaces: { a: setup.a.id, b: setup.b.id },
    passwords: testPasswords,
    runtime,
    server,
    close: async () => {
      await server.stop()
      if (worker !== undefined) await runtime.runPromise(Fiber.interrupt(worker))
      await runtime.dispose()
    }
  }
}
