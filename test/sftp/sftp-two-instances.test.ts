import assert from "node:assert/strict"
import { readdirSync } from "node:fs"
import { afterAll, beforeAll, test } from "bun:test"
import { Effect, Fiber, Layer, ManagedRuntime } from "effect"
import type { SessionRun } from "../../lib/sftp/session.js"
import { postgresLayer } from "../../lib/postgres.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { connectionActivity } from "../../lib/rules/sftp-activity.js"
import { createConnection } from "../../lib/rules/sftp-connections.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { listX12Files } from "../../lib/rules/x12-reads.js"
import { DEFAULT_SFTP_SETTINGS, SftpSettings } from "../../lib/sftp/settings.js"
import { runSftpWorker } from "../../lib/sftp/worker.js"
import { ephemeralWebhookSettings, WebhookSettings } from "../../lib/webhooks/settings.js"
import { clearinghouseSettingsInput } from "../contract/clearinghouse.contract.js"
import { createScratchDb, describePg } from "../support/postgres.js"
import { startSftpServer, type SftpTestServer } from "../support/sftp-server.js"
import { make277 } from "../support/x12-files.js"

let sftp: SftpTestServer
beforeAll(async () => {
  sftp = await startSftpServer()
})
afterAll(async () => {
  await sftp.stop()
})

describePg("two instances on PostgreSQL polling one connection", (adminUrl) => {
  test("each file is imported once, by one of them", async () => {
    const scratch = await createScratchDb(adminUrl)
    // One sealing key, as every instance reads the same key file.
    const settings = await Effect.runPromise(Effect.provide(WebhookSettings, ephemeralWebhookSettings()))
    const fast = Layer.succeed(SftpSettings, { ...DEFAULT_SFTP_SETTINGS, tickMs: 50, backoffMs: 200, connectTimeoutMs: 5000, readTimeoutMs: 5000 })
    const instance = () => ManagedRuntime.make(Layer.mergeAll(postgresLayer(scratch.url, { maxConnections: 4 }), Layer.succeed(WebhookSettings, settings), fast))
    const a = instance()
    const b = instance()
    const runs: Array<SessionRun & { readonly by: string }> = []
    try {
      const { ws, connectionId } = await a.runPromise(
        Effect.gen(function* () {
          const ws = (yield* createWorkspace("clinic-two", "Two")).id
          yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
          const connection = yield* createConnection(ws, {
            name: "Shared",
            host: sftp.host,
            port: sftp.port,
            username: sftp.keyUser,
            private_key: sftp.privateKey,
            host_key_fingerprint: sftp.fingerprint,
            outbound_dir: sftp.remote.outbound,
            inbound_dir: sftp.remote.inbound,
            archive_dir: sftp.remote.archive,
            poll_every: "1s"
          })
          return { ws, connectionId: connection.id }
        })
      )
      const workers = [
        a.runFork(runSftpWorker({ owner: "instance-a", onRun: (r) => runs.push({ ...r, by: "a" }) })),
        b.runFork(runSftpWorker({ owner: "instance-b", onRun: (r) => runs.push({ ...r, by: "b" }) }))
      ]
      const names: Array<string> = []
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 4; i++) {
          const n = round * 4 + i
          const name = `f-${String(n).padStart(2, "0")}.x12`
          names.push(name)
          sftp.dropInbound(name, make277(800 + n, [{ pcn: `NOCLAIM${n}`, category: "A2" }]))
        }
        const until = Date.now() + 20_000
        while (readdirSync(sftp.local.inbound).length > 0 && Date.now() < until) await Bun.sleep(50)
      }
      // A session reports when it ends, after moving its files: wait for the reports before stopping the workers.
      const pickedUp = () => runs.filter((r) => r.outcome === "succeeded").reduce((n, r) => n + r.picked_up, 0)
      const reported = Date.now() + 20_000
      while (pickedUp() < names.length && Date.now() < reported) await Bun.sleep(50)
      for (const w of workers) await Effect.runPromise(Fiber.interrupt(w))
      assert.deepEqual(readdirSync(sftp.local.inbound), [])
      assert.deepEqual(readdirSync(sftp.local.archive).sort(), names)
      const { files, pickups } = await b.runPromise(
        Effect.gen(function* () {
          const files = (yield* listX12Files(ws, {})).items
          const pickups = (yield* connectionActivity(ws, connectionId)).items
          return { files, pickups }
        })
      )
      assert.equal(files.length, names.length)
      assert.equal(new Set(files.map((f) => f.sha256)).size, names.length)
      assert.equal(pickups.length, names.length)
      assert.ok(pickups.every((p) => p.type === "pickup" && p.status === "imported" && p.attempts === 1))
      // Both polled; never at once on the connection (the lease), and no session failed.
      assert.ok(runs.every((r) => r.outcome !== "failed"), JSON.stringify(runs.filter((r) => r.outcome === "failed")))
      assert.equal(pickedUp(), names.length)
    } finally {
      await a.dispose()
      await b.dispose()
      await scratch.drop()
    }
  }, 120_000)
})
