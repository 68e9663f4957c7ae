import { randomUUID } from "node:crypto"
import { Cause, Duration, Effect, Fiber, Layer, ManagedRuntime, Option, Schedule } from "effect"
import { FOLLOW_UP_SWEEP_MS, runFollowUpSweeper } from "../lib/rules/task-follow-ups.js"
import { ensureFirstRun } from "../lib/rules/workspaces.js"
import { defaultKeyFile } from "../lib/webhooks/secret-key.js"
import { WebhookSettings, webhookSettingsLayer } from "../lib/webhooks/settings.js"
import { sealedUnderAnotherKey } from "../lib/webhooks/stored-secrets.js"
import { runDeliveryWorker } from "../lib/webhooks/worker.js"
import { runSftpWorker } from "../lib/sftp/worker.js"
import { clearinghouseMetricsLayer } from "../server/clearinghouse-metrics.js"
import { runStatusCheckWorker } from "../lib/rules/status-checks-worker.js"
import { PURGE_EVERY_MS, purgeAll } from "../lib/rules/retention.js"
import { largeWorkRunning } from "../lib/large-work.js"
import { finishImports } from "../lib/rules/x12-import.js"
import { type ServerConfig, withDefaults } from "../server/config.js"
import { flushLog, log } from "../server/log.js"
import { collectAndSweep, collectInFull, collectYoung, cpuTimeMs, giveBackWhenLarge, heapUsed, makeHeapPacer, runHeapPacer } from "../server/heap-pacer.js"
import { startServer } from "../server/server.js"
import { makeServerMetrics } from "../server/server-metrics.js"
import { type CommandSpec, int, type Parsed, str, UsageError } from "./args.js"
import { consoleFlagSpecs, consoleLimits, trustedProxies } from "./console-flags.js"
import { relaunchWithEngineSettings } from "./engine-settings.js"
import { databaseLayer, describeDb, type StorageConfig, storageDefaults } from "./database.js"
import { oidcFlagSpecs, oidcSettings } from "./oidc-flags.js"
import { webhookFlagSpecs, webhookOptions } from "./webhook-flags.js"

export const serveSpec: CommandSpec = {
  usage:
    "encounterd serve [--port 8080] [--host 127.0.0.1] [--db FILE] [--public-url URL] [--body-limit BYTES] [--rate-limit N] [--console-session-max-age 12h] [--trusted-proxy ADDR] [--webhook-retry-schedule LIST] [--webhook-timeout 15s] [--webhook-allow-private] [--webhook-max-endpoints 50] [--webhook-secret-key-file FILE] [--status-check-poll 60] [--oidc-issuer URL --oidc-client-id ID --oidc-client-secret-file FILE]",
  summary: "Run the HTTP API. On an empty database, creates the workspace `default` and prints one API key.",
  options: {
    port: { type: "string", env: "ENCOUNTERD_PORT", help: "TCP port (default 8080; 0 picks a free one)" },
    host: { type: "string", env: "ENCOUNTERD_HOST", help: "Address to bind (default 127.0.0.1)" },
    db: { type: "string", env: "ENCOUNTERD_DB", help: "SQLite file, or a postgres:// URL (default ./data/encounterd.sqlite)" },
    "pool-size": { type: "string", env: "ENCOUNTERD_POOL_SIZE", help: "PostgreSQL connections per instance (default 10)" },
    "public-url": { type: "string", env: "ENCOUNTERD_PUBLIC_URL", help: "Base URL written into responses (default http://HOST:PORT)" },
    "body-limit": { type: "string", env: "ENCOUNTERD_BODY_LIMIT", help: "Largest request body in bytes (default 1048576)" },
    "rate-limit": { type: "string", env: "ENCOUNTERD_RATE_LIMIT", help: "Requests per second per key, 0 = off (default 100)" },
    "rate-burst": { type: "string", env: "ENCOUNTERD_RATE_BURST", help: "Burst per key above the rate (default 2x rate, at least 200)" },
    synchronous: { type: "string", env: "ENCOUNTERD_SYNCHRONOUS", help: "SQLite synchronous: FULL (default, survives power loss) or NORMAL" },
    "metrics-key": { type: "string", env: "ENCOUNTERD_METRICS_KEY", help: "Require Authorization: Bearer KEY on GET /metrics (default: open)" },
    "no-metrics": { type: "boolean", env: "ENCOUNTERD_NO_METRICS", help: "Turn GET /metrics off (404); the variable takes 1 or true" },
    "status-check-poll": { type: "string", env: "ENCOUNTERD_STATUS_CHECK_POLL", help: "Seconds between looks for due claim status follow-ups (default 60)" },
    ...consoleFlagSpecs,
    ...oidcFlagSpecs,
    ...webhookFlagSpecs
  }
}

/** The database settings of `serve` (and of every command that opens the database). */
export const storageConfig = (p: Parsed): StorageConfig => {
  const sync = str(p, "synchronous")?.toUpperCase()
  if (sync !== undefined && sync !== "FULL" && sync !== "NORMAL") throw new UsageError("--synchronous must be FULL or NORMAL")
  const poolSize = int(p, "pool-size", 1)
  return {
    db: str(p, "db") ?? storageDefaults.db,
    synchronous: sync ?? storageDefaults.synchronous,
    ...(poolSize !== undefined ? { poolSize } : {})
  }
}

export const serveConfig = (p: Parsed): ServerConfig => {
  const port = int(p, "port", 0)
  if (port !== undefined && port > 65535) throw new UsageError("--port must be at most 65535")
  const publicUrl = str(p, "public-url")
  if (publicUrl !== undefined && !/^https?:\/\/\S+$/.test(publicUrl)) throw new UsageError("--public-url must be an http(s) URL")
  const metricsKey = str(p, "metrics-key")
  if (metricsKey !== undefined && !/^\S{16,}$/.test(metricsKey)) throw new UsageError("--metrics-key must be at least 16 characters without spaces")
  const noMetrics = p.values["no-metrics"]
  if (typeof noMetrics === "string" && !/^(1|true|0|false|)$/i.test(noMetrics)) throw new UsageError("ENCOUNTERD_NO_METRICS must be 1, true, 0 or false")
  const oidc = oidcSettings(p)
  if (oidc !== undefined && publicUrl === undefined) throw new UsageError("--oidc-issuer needs --public-url (the provider sends browsers back to it)")
  const metrics = !(noMetrics === true || (typeof noMetrics === "string" && /^(1|true)$/i.test(noMetrics)))
  return withDefaults({
    ...(port !== undefined ? { port } : {}),
    ...(str(p, "host") !== undefined ? { host: str(p, "host")! } : {}),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    ...(int(p, "body-limit", 1) !== undefined ? { bodyLimit: int(p, "body-limit", 1)! } : {}),
    ...(int(p, "rate-limit", 0) !== undefined ? { rateLimit: int(p, "rate-limit", 0)! } : {}),
    ...(int(p, "rate-burst", 1) !== undefined ? { rateBurst: int(p, "rate-burst", 1)! } : {}),
    metrics,
    ...(metricsKey !== undefined ? { metricsKey } : {}),
    console: consoleLimits(p),
    trustedProxies: trustedProxies(p),
    ...(oidc !== undefined ? { oidc } : {})
  })
}

export const serve = async (p: Parsed): Promise<never> => {
  const config = serveConfig(p)
  const storage = storageConfig(p)
  const webhooks = webhookOptions(p, storage.db)
  // The flags are valid: start over under the engine settings before anything is opened or written.
  const notRelaunched = relaunchWithEngineSettings()
  if (notRelaunched !== undefined) {
    log("warn", "could not start over under the engine settings; running with the engine's defaults", { reason: notRelaunched })
  }
  // One registry: the storage reports commits and fsyncs into the one /metrics shows.
  const metrics = makeServerMetrics()
  // The key is read (or made) once the database is open: a missing key file is made only while
  // the database holds no sealed secret; with some, serve refuses to start (see settings.ts).
  const runtime = ManagedRuntime.make(
    Layer.provideMerge(Layer.orDie(webhookSettingsLayer(webhooks)), databaseLayer(storage).pipe(Layer.provide(metrics.layer)))
  )
  const first = await runtime.runPromise(ensureFirstRun())
  if (await runtime.runPromise(Effect.flatMap(WebhookSettings, (settings) => sealedUnderAnotherKey(settings.key)))) {
    log("warn", "webhook secret key opens not every stored signing secret: deliveries to those endpoints fail until the key they were sealed under is put back", {
      key_file: webhooks.keyFile ?? defaultKeyFile(storage.db) ?? null
    })
  }
  if (Option.isSome(first)) {
    const key = first.value
    process.stdout.write(`${JSON.stringify({ first_run: true, workspace: "default", ...key })}\n`)
    process.stderr.write(`First run: created workspace "default" and this API key (shown once):\n  ${key.key}\n`)
  }
  const server = startServer(runtime, config, { metrics })
  // Collections paced by the heap's growth (in full) and by the CPU time used (the young generation): see heap-pacer.ts.
  const stopPacer = runHeapPacer(
    makeHeapPacer({
      heapSize: heapUsed,
      collect: collectInFull,
      giveBack: giveBackWhenLarge,
      collectIdle: collectAndSweep,
      onCollect: metrics.heapCollected,
      cpuTimeMs,
      collectYoung,
      held: () => largeWorkRunning() > 0,
      onCollectYoung: metrics.heapYoungCollected
    })
  )
  // Deliveries left pending by an earlier run (a crash included) are due at once: the worker resumes them.
  const worker = runtime.runFork(runDeliveryWorker().pipe(Effect.provide(metrics.layer)))
  // Clearinghouse connections: uploads and pickups left pending by an earlier run are taken up again.
  const sftpWorker = runtime.runFork(
    runSftpWorker({
      // The code only: an error's text may name a remote file.
      onRun: (run) => {
        if (run.outcome === "failed") log("warn", "clearinghouse session failed", { connection: run.connection_id, code: run.error?.code ?? null })
      }
    }).pipe(Effect.provide(clearinghouseMetricsLayer(metrics.registry)))
  )
  // Follow-ups due while the server was down are made at start; queued core checks are sent again.
  const statusCheckPoll = int(p, "status-check-poll", 1)
  const checks = runtime.runFork(runStatusCheckWorker({ pollMs: (statusCheckPoll ?? 60) * 1000 }))
  // Follow-up tasks for claims the payer has not answered (per the workspaces' settings); leased per workspace.
  const sweeper = runtime.runFork(runFollowUpSweeper(randomUUID(), FOLLOW_UP_SWEEP_MS, (e) => log("warn", "follow-up sweep failed", { operation: e.operation })))
  // Retention: a minute after start, then daily; a failed run is logged and tried again the next day.
  const purger = runtime.runFork(
    purgeAll().pipe(
      Effect.tap((reports) => {
        const removed = reports.filter((r) => r.raw_requests > 0 || r.audit_entries > 0)
        if (removed.length > 0) log("info", "retention purge", { workspaces: removed.length, raw_requests: removed.reduce((n, r) => n + r.raw_requests, 0), audit_entries: removed.reduce((n, r) => n + r.audit_entries, 0) })
      }),
      Effect.catchAll((e) => Effect.sync(() => log("error", "retention purge failed", { error: e._tag }))),
      Effect.delay(Duration.minutes(1)),
      Effect.repeat(Schedule.spaced(Duration.millis(PURGE_EVERY_MS)))
    )
  )
  // Files an earlier run left importing (stopped between two of a file's writes) are finished.
  const imports = runtime.runFork(
    finishImports.pipe(
      Effect.tap((files) => (files > 0 ? Effect.sync(() => log("info", "finished imports", { files })) : Effect.void)),
      Effect.catchAllCause((cause) => Effect.sync(() => log("error", "finishing imports failed", { error: Cause.isFailType(cause) ? cause.error._tag : "defect" })))
    )
  )
  if (storage.db.startsWith("postgres") && webhooks.keyFile === undefined) {
    log("warn", "webhooks unavailable: no --webhook-secret-key-file on PostgreSQL", {})
  }
  log("info", "listening", { url: server.url, db: describeDb(storage.db), synchronous: storage.synchronous, pid: process.pid })

  return new Promise<never>(() => {
    let stopping = false
    const shutdown = (signal: string) => {
      if (stopping) return
      stopping = true
      stopPacer()
      log("info", "shutting down", { signal })
      // Stop accepting, let in-flight requests finish, stop the delivery worker (attempts under
      // way give their leases back), then close the database.
      const force = setTimeout(() => {
        log("error", "shutdown timed out", {})
        flushLog()
        process.exit(1)
      }, 9_000)
      void server
        .stop()
        .then(() =>
          runtime.runPromise(
            Effect.all([Fiber.interrupt(worker), Fiber.interrupt(sftpWorker), Fiber.interrupt(checks), Fiber.interrupt(sweeper), Fiber.interrupt(purger), Fiber.interrupt(imports)], {
              concurrency: "unbounded"
            })
          )
        )
        .then(() => runtime.dispose())
        .then(() => {
          clearTimeout(force)
          log("info", "stopped", {})
          flushLog()
          process.exit(0)
        })
    }
    process.on("SIGTERM", () => shutdown("SIGTERM"))
    process.on("SIGINT", () => shutdown("SIGINT"))
  })
}
