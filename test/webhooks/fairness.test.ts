import { afterAll, describe, expect, test } from "bun:test"
import { join } from "node:path"
import type { TCPSocketListener } from "bun"
import { api } from "../http/client.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { tempDir, removeTemps } from "../support/binary.js"
import { waitFor } from "../binary/webhook-receiver.js"
import { startReceiver } from "./receiver.js"

/**
 * Fair delivery between workspaces, end to end over real HTTP, with the delivery worker at its
 * defaults (16 attempts at once, 4 per endpoint, the 15 s attempt timeout, the default schedule).
 * Workspace a registers 20 endpoints on black-hole listeners (TCP servers that accept and never
 * answer) and writes a burst of events; workspace b's one healthy receiver must still get its
 * delivery within 2 s.
 */

/** A TCP listener on loopback that accepts connections and never answers. */
const blackHole = () => {
  let opened = 0
  const listener: TCPSocketListener<undefined> = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: () => {
        opened++
      },
      data: () => undefined
    }
  })
  return { url: `http://127.0.0.1:${listener.port}/hook`, opened: () => opened, stop: () => listener.stop(true) }
}

afterAll(removeTemps)

const fairness = (name: string, db: () => string | undefined) =>
  test(`${name}: a workspace with 20 black-hole endpoints does not hold back another workspace's delivery`, async () => {
    let secret = ""
    const receiver = startReceiver(() => secret)
    const holes = Array.from({ length: 20 }, blackHole)
    const path = db()
    const server: TestServer = await startTestServer({ ...(path !== undefined ? { db: path } : {}), webhooks: { allowPrivate: true }, worker: {} })
    const call = api(server)
    try {
      for (const hole of holes) {
        const r = await call("POST", "/api/webhooks/endpoints", { key: server.keys.aHooks, body: { url: hole.url } })
        expect(r.status).toBe(201)
      }
      // The burst: 5 events, 100 deliveries to endpoints that hold every attempt for the whole timeout.
      for (let i = 0; i < 5; i++) {
        expect((await call("POST", "/api/encounters", { key: server.keys.a, body: validPayload(`${name}-a-${i}`) })).status).toBe(202)
      }
      const opened = () => holes.reduce((n, h) => n + h.opened(), 0)
      expect(await waitFor(() => opened() >= 8, 5000)).toBe(true)

      const healthy = await call("POST", "/api/webhooks/endpoints", { key: server.keys.bHooks, body: { url: receiver.url("/b") } })
      expect(healthy.status).toBe(201)
      secret = healthy.body.secret
      const began = Date.now()
      expect((await call("POST", "/api/encounters", { key: server.keys.b, body: validPayload(`${name}-b`) })).status).toBe(202)
      const arrived = await waitFor(() => receiver.received.some((m) => m.path === "/b"), 100_000)
      const latency = Date.now() - began
      process.stderr.write(`fairness (${name}): workspace b's delivery after ${latency} ms; black holes opened ${opened()} connections\n`)
      expect(arrived).toBe(true)
      expect(latency).toBeLessThan(2000)
      expect(receiver.received.find((m) => m.path === "/b")?.verified.ok).toBe(true)
    } finally {
      await server.close()
      receiver.stop()
      for (const hole of holes) hole.stop()
    }
  }, 120_000)

describe("fair delivery between workspaces", () => {
  fairness("memory", () => undefined)
  fairness("sqlite", () => join(tempDir("fairness"), "encounterd.sqlite"))
})
