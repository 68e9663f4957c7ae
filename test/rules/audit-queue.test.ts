import { describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { liveServices } from "../../lib/layers.js"
import { auditEntry, listAudit } from "../../lib/rules/audit.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { ephemeralWebhookSettings } from "../../lib/webhooks/settings.js"
import { makeAuditQueue } from "../../server/audit.js"
import { flushLog } from "../../server/log.js"
import { capturedLogs } from "../support/server.js"

const runtime = () => ManagedRuntime.make(Layer.mergeAll(MemoryStorage.layer, liveServices, ephemeralWebhookSettings()))

describe("reads' audit entries (makeAuditQueue)", () => {
  test("entries gathered within the window are written together after it; drain writes them at once, as a stopping server does", async () => {
    const rt = runtime()
    try {
      const ws = (await rt.runPromise(createWorkspace("clinic-q", "Clinic Q"))).id
      const entry = (requestId: string) =>
        rt.runPromise(auditEntry({ workspaceId: ws, actor: { kind: "key", id: "k", name: "eik_q" }, action: "encounter.read", resourceType: "encounter", resourceId: "e1", clientIp: null, requestId, outcome: "ok" }))
      const logged = async () => (await rt.runPromise(listAudit(ws, {}))).items.map((e) => e.request_id).sort()
      const queue = makeAuditQueue(rt, 200)
      queue.add(await entry("r-1"))
      await new Promise((resolve) => setTimeout(resolve, 20))
      queue.add(await entry("r-2"))
      // Not written within the window that began with the first of them...
      await new Promise((resolve) => setImmediate(resolve))
      expect(await logged()).toEqual([])
      // ...but once it ends, together.
      await new Promise((resolve) => setTimeout(resolve, 250))
      expect(await logged()).toEqual(["r-1", "r-2"])
      queue.add(await entry("r-3"))
      await queue.drain()
      expect(await logged()).toEqual(["r-1", "r-2", "r-3"])
    } finally {
      await rt.dispose()
    }
  })

  test("a full batch is written without waiting for the window to end", async () => {
    const rt = runtime()
    try {
      const ws = (await rt.runPromise(createWorkspace("clinic-s", "Clinic S"))).id
      const made = await rt.runPromise(
        Effect.forEach(Array.from({ length: 513 }, (_, i) => `r-${i}`), (requestId) =>
          auditEntry({ workspaceId: ws, actor: { kind: "key", id: "k", name: "eik_s" }, action: "encounter.read", resourceType: "encounter", resourceId: "e1", clientIp: null, requestId, outcome: "ok" })
        )
      )
      // A window longer than the test: only the 512-entry limit can write them.
      const queue = makeAuditQueue(rt, 60_000)
      for (const e of made) queue.add(e)
      await new Promise((resolve) => setTimeout(resolve, 50))
      const count = async (cursor?: string): Promise<number> => {
        const page = await rt.runPromise(listAudit(ws, { limit: 100, ...(cursor === undefined ? {} : { page_token: cursor }) }))
        return page.items.length + (page.next_page_token === null ? 0 : await count(page.next_page_token))
      }
      expect(await count()).toBe(512)
      await queue.drain()
      expect(await count()).toBe(513)
    } finally {
      await rt.dispose()
    }
  })

  test("entries the storage refuses are logged as missing, by request id, and nothing throws", async () => {
    const rt = runtime()
    const ws = (await rt.runPromise(createWorkspace("clinic-r", "Clinic R"))).id
    const made = await rt.runPromise(auditEntry({ workspaceId: ws, actor: { kind: "key", id: "k", name: "eik_r" }, action: "encounter.read", resourceType: "encounter", resourceId: null, clientIp: null, requestId: "r-gone", outcome: "ok" }))
    const queue = makeAuditQueue(rt)
    await rt.dispose()
    queue.add(made)
    await queue.drain()
    flushLog()
    expect(capturedLogs.some((l) => l.includes("audit entry not written") && l.includes("r-gone"))).toBe(true)
  })
})
