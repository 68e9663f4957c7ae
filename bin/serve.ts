import { Effect, ManagedRuntime } from "effect"
import { createApiKey, createWorkspace, listWorkspaces } from "../lib/rules/workspaces.js"
import { type ServerConfig, withDefaults } from "../server/config.js"
import { flushLog, log } from "../server/log.js"
import { startServer } from "../server/server.js"
import { type CommandSpec, int, type Parsed, str, UsageError } from "./args.js"
import { databaseLayer, describeDb } from "./database.js"

export const serveSpec: CommandSpec = {
  usage: "encounterd serve [--port 8080] [--host 127.0.0.1] [--db FILE] [--public-url URL] [--body-limit BYTES] [--rate-limit N]",
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
    synchronous: { type: "string", env: "ENCOUNTERD_SYNCHRONOUS", help: "SQLite synchronous: FULL (default, survives power loss) or NORMAL" }
  }
}

export const serveConfig = (p: Parsed): ServerConfig => {
  const sync = str(p, "synchronous")?.toUpperCase()
  if (sync !== undefined && sync !== "FULL" && sync !== "NORMAL") throw new UsageError("--synchronous must be FULL or NORMAL")
  const port = int(p, "port", 0)
  if (port !== undefined && port > 65535) throw new UsageError("--port must be at most 65535")
  const publicUrl = str(p, "public-url")
  if (publicUrl !== undefined && !/^https?:\/\/\S+$/.test(publicUrl)) throw new UsageError("--public-url must be an http(s) URL")
  return withDefaults({
    ...(port !== undefined ? { port } : {}),
    ...(str(p, "host") !== undefined ? { host: str(p, "host")! } : {}),
    ...(str(p, "db") !== undefined ? { db: str(p, "db")! } : {}),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    ...(int(p, "body-limit", 1) !== undefined ? { bodyLimit: int(p, "body-limit", 1)! } : {}),
    ...(int(p, "rate-limit", 0) !== undefined ? { rateLimit: int(p, "rate-limit", 0)! } : {}),
    ...(int(p, "rate-burst", 1) !== undefined ? { rateBurst: int(p, "rate-burst", 1)! } : {}),
    ...(sync !== undefined ? { synchronous: sync } : {})
  })
}

/** On an empty database: the workspace `default` and one key, printed once. */
const firstRun = Effect.gen(function* () {
  const existing = yield* listWorkspaces()
  if (existing.length > 0) return undefined
  const ws = yield* createWorkspace("default", "Default workspace")
  return yield* createApiKey(ws.slug, ["claims:write"])
}).pipe(
  // Several instances starting together on one empty PostgreSQL database: one of them creates it.
  Effect.catchTag("SlugTaken", () => Effect.succeed(undefined))
)

export const serve = async (p: Parsed): Promise<never> => {
  const config = serveConfig(p)
  const poolSize = int(p, "pool-size", 1)
  const runtime = ManagedRuntime.make(
    databaseLayer(config.db, { synchronous: config.synchronous, ...(poolSize !== undefined ? { poolSize } : {}) })
  )
  const key = await runtime.runPromise(firstRun)
  if (key !== undefined) {
    process.stdout.write(`${JSON.stringify({ first_run: true, workspace: "default", ...key })}\n`)
    process.stderr.write(`First run: created workspace "default" and this API key (shown once):\n  ${key.key}\n`)
  }
  const server = startServer(runtime, config)
  log("info", "listening", { url: server.url, db: describeDb(config.db), synchronous: config.synchronous, pid: process.pid })

  return new Promise<never>(() => {
    let stopping = false
    const shutdown = (signal: string) => {
      if (stopping) return
      stopping = true
      log("info", "shutting down", { signal })
      // Stop accepting, let in-flight requests finish, then close the database.
      const force = setTimeout(() => {
        log("error", "shutdown timed out", {})
        flushLog()
        process.exit(1)
      }, 9_000)
      void server
        .stop()
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
