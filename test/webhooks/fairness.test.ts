import { afterAll, describe, expect, test } from "bun:test"
import { join } from "node:path"
import type { TCPSocketListener } from "bun"
import { Effect } from "effect"
import { createApiKey, createWorkspace } from "../../lib/rules/workspaces.js"
import { workspaceShare } from "../../lib/webhooks/worker.js"
import { api } from "../http/client.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { tempDir, removeTemps } from "../support/binary.js"
import { waitFor } from "../binary/webhook-receiver.js"
import { startReceiver } from "./receiver.js"

/**
 * Fair delivery between workspaces, end to end over real HTTP, with the delivery worker at its
 * defaults (16 attempts at once, 4 per endpoint, the 15 s attempt timeout, the default schedule).
 * Workspace a (and then a second workspace too) registers 20 endpoints on black-hole listeners
 * (TCP servers that accept and never answer) and writes a burst of events; workspace b's one
 * healthy receiver must still get its delivery within 2 s.
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

/** A workspace with its own keys, beside the test server's two. */
const addWorkspace = async (server: TestServer, slug: string) => {
  const [writer, hooks] = await server.runtime.runPromise(
    Effect.gen(function* () {
      yield* createWorkspace(slug, slug)
      return [yield* createApiKey(slug), yield* createApiKey(slug, ["webhooks:write"])] as const
    })
  )
  return { writer: writer.key, hooks: hooks.key }
}

/** Registers 20 endpoints on black holes for the workspace, then writes `events` events there. */
const flood = async (call: ReturnType<typeof api>, keys: { readonly writer: string; readonly hooks: string }, events: number, label: string) => {
  const holes = Array.from({ length: 20 }, blackHole)
  for (const hole of holes) {
    const r = await call("POST", "/api/webhooks/endpoints", { key: keys.hooks, body: { url: hole.url } })
    expect(r.status).toBe(201)
  }
  for (let i = 0; i < events; i++) {
    expect((await call("POST", "/api/encounters", { key: keys.writer, body: validPayload(`${label}-${i}`) })).status).toBe(202)
  }
  return holes
}

const fairness = (name: string, db: () => string | undefined, flooding: number) =>
  test(`${name}: ${flooding === 1 ? "a workspace with 20 black-hole endpoints does" : `${flooding} workspaces with 20 black-hole endpoints each do`} not hold back another workspace's delivery`, async () => {
    let secret = ""
    const receiver = startReceiver(() => secret)
    const path = db()
    const server: TestServer = await startTestServer({ ...(path !== undefined ? { db: path } : {}), webhooks: { allowPrivate: true }, worker: {} })
    const call = api(server)
    const holes: Array<ReturnType<typeof blackHole>> = []
    try {
      // The burst: 5 events per flooding workspace, 100 deliveries to endpoints that hold every
      // attempt for the whole timeout.
      holes.push(...(await flood(call, { writer: server.keys.a, hooks: server.keys.aHooks }, 5, `${name}-a`)))
      for (let w = 1; w < flooding; w++) holes.push(...(await flood(call, await addWorkspace(server, `flood-${w}`), 5, `${name}-${w}`)))
      const opened = () => holes.reduce((n, h) => n + h.opened(), 0)
      // Each flooding workspace holds its share: half the slots for the first, less for each next.
      const held = Array.from({ length: flooding }, (_, w) => workspaceShare(16, 8, w)).reduce((a, b) => a + b, 0)
      expect(await waitFor(() => opened() >= held, 5000)).toBe(true)

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
      // The flooding workspaces hold what their shares allow, never every slot.
      expect(opened()).toBe(held)
    } finally {
      await server.close()
      receiver.stop()
      for (const hole of holes) hole.stop()
    }
  }, 120_000)

describe("fair delivery between workspaces", () => {
  fairness("memory", () => undefined, 1)
  fairness("sqlite", () => join(tempDir("fairness"), "encounterd.sqlite"), 1)
  fairness("memory", () => undefined, 2)
})

describe("a workspace's share of the slots", () => {
  test("half of them alone, an equal share with one kept free while others have attempts, never less than one", () => {
    expect(workspaceShare(16, 8, 0)).toBe(8)
    expect(workspaceShare(16, 8, 1)).toBe(5)
    expect(workspaceShare(16, 8, 2)).toBe(4)
    expect(workspaceShare(16, 8, 14)).toBe(1)
    expect(workspaceShare(16, 8, 100)).toBe(1)
    expect(workspaceShare(16, 3, 0)).toBe(3)
    expect(workspaceShare(1, 1, 0)).toBe(1)
  })
})
