import { describe, expect, test } from "bun:test"
import { Layer } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { liveServices, memoryLayer } from "../../lib/layers.js"
import { openClient } from "../../lib/promise.js"
import { validPayload } from "../support/payloads.js"

/** The Promise facade manages endpoints; deliveries are queued with events. */

const URL = "https://93.184.215.14/hook"

describe("Promise facade: webhooks", () => {
  test("create, list, update, rotate, deliveries, delete", async () => {
    const client = openClient(memoryLayer)
    try {
      const ws = await client.createWorkspace("promise-hooks", "P")
      const created = await client.webhooks.create(ws.id, { url: URL, description: "EHR" })
      expect(created.secret).toMatch(/^whsec_/)
      expect((await client.webhooks.list(ws.id)).items.map((e) => e.id)).toEqual([created.id])
      expect(JSON.stringify(await client.webhooks.get(ws.id, created.id))).not.toContain("secret")
      const updated = await client.webhooks.update(ws.id, created.id, { event_types: ["ExternalApi.Encounter.Created"] })
      expect(updated.event_types).toEqual(["ExternalApi.Encounter.Created"])
      const rotated = await client.webhooks.rotateSecret(ws.id, created.id)
      expect(rotated.secret).not.toBe(created.secret)
      await client.createEncounter(ws.id, validPayload("promise-1"))
      const deliveries = await client.webhooks.deliveries(ws.id, created.id)
      expect(deliveries.items.map((d) => [d.status, d.event_type])).toEqual([["pending", "ExternalApi.Encounter.Created"]])
      expect((await client.webhooks.recover(ws.id, created.id, "2000-01-01T00:00:00Z")).queued).toBe(1)
      expect((await client.webhooks.retry(ws.id, deliveries.items[0]!.id)).status).toBe("pending")
      await client.webhooks.delete(ws.id, created.id)
      await expect(client.webhooks.get(ws.id, created.id)).rejects.toMatchObject({ _tag: "WebhookEndpointNotFound" })
      await expect(client.webhooks.create(ws.id, { url: "http://127.0.0.1/x" })).rejects.toMatchObject({ _tag: "InvalidWebhookInput" })
    } finally {
      await client.close()
    }
  })

  test("without a sealing key, creating an endpoint rejects with WebhooksUnavailable", async () => {
    const client = openClient(Layer.merge(MemoryStorage.layer, liveServices))
    try {
      const ws = await client.createWorkspace("no-key", "N")
      await expect(client.webhooks.create(ws.id, { url: URL })).rejects.toMatchObject({ _tag: "WebhooksUnavailable" })
    } finally {
      await client.close()
    }
  })
})
