import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Webhook } from "standardwebhooks"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { allEvents, api, CREATED, ensureBinary, removeTemps, runCli, startBinary, tempDb, type WireEvent } from "../support/binary.js"
import { make999, x12File } from "../support/x12-files.js"
import { hookArgs, startHookReceiver, waitFor } from "./webhook-receiver.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

const HOOK_ARGS = hookArgs("5s")

/** How long each step's events may take to arrive. */
const DELIVERY_WAIT_MS = 15_000

/** POST an X12 file to /api/x12/inbound. */
const postX12 = async (base: string, key: string, text: string) => {
  const response = await fetch(`${base}/api/x12/inbound`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/edi-x12" },
    body: text
  })
  return { status: response.status, body: (await response.json()) as any }
}

/** The event exactly as `GET /api/encounters/compat-version/events/{id}` answers it (its bytes). */
const eventText = async (base: string, key: string, id: string) => {
  const response = await fetch(`${base}/api/encounters/compat-version/events/${id}`, { headers: { authorization: `Bearer ${key}` } })
  expect(response.status).toBe(200)
  return response.text()
}

describe("compiled binary: every event is pushed", () => {
  test("an endpoint taking every type gets, signed, each event the feed holds: creates, CLI and API moves, 837P batches, 999, 277CA and 835 imports", async () => {
    const db = tempDb("hooks-every")
    const receiver = startHookReceiver()
    const server = await startBinary({ db, args: HOOK_ARGS })
    try {
      const key = server.key!
      const workspace = server.firstRun!.workspace

      // An endpoint naming no event type takes every type.
      const endpoint = await api(server.url, key, "/api/webhooks/endpoints", { body: { url: receiver.url } })
      expect(endpoint.status).toBe(201)
      expect(endpoint.body.event_types).toEqual([])
      const secret: string = endpoint.body.secret
      receiver.state.secret = secret

      // After each step, wait until every event the feed holds so far has arrived; the events of a
      // step that never arrive are listed under its name in `late` (checked at the end, so every
      // step still runs and the failure names each step that lost events).
      const late: Record<string, Array<string>> = {}
      const reported = new Set<string>()
      const settle = async (step: string) => {
        let missing: Array<WireEvent> = []
        await waitFor(async () => {
          missing = (await allEvents(server.url, key)).filter((e) => !receiver.delivered.has(e.id) && !reported.has(e.id))
          return missing.length === 0
        }, DELIVERY_WAIT_MS)
        if (missing.length === 0) return
        late[step] = missing.map((e) => `${e.id} ${e.event_type} ${e.payload.status}`)
        for (const e of missing) reported.add(e.id)
      }

      // 1. Creates: the PCNs the 277CA and 835 fixtures name, one for the 999, one moved by hand.
      const pcns = ["PCN0001", "PCN0005", "PCN0007", "PCN0010", "PCNB1", "PCNC1"]
      for (const pcn of pcns) {
        const created = await api(server.url, key, "/api/encounters", { body: exportablePayload(`enc-${pcn}`, pcn) })
        expect(created.status).toBe(202)
      }
      await settle("create")
      const claimOf: Record<string, string> = {}
      const pcnOf: Record<string, string> = {}
      for (const e of await allEvents(server.url, key, CREATED)) {
        const pcn = e.payload.external_id.replace(/^enc-/, "")
        claimOf[pcn] = e.payload.claim_id
        pcnOf[e.payload.claim_id] = pcn
      }
      expect(Object.keys(claimOf).sort()).toEqual([...pcns].sort())

      // 2. A move through the CLI, on the server's database file (another process).
      const cli = await runCli(["claims", "set-status", claimOf.PCNC1!, "biller_received", "--workspace", workspace, "--note", "from the CLI"], { db })
      expect([cli.code, cli.json?.status, cli.json?.changed]).toEqual([0, "biller_received", true])
      await settle("cli status change")

      // 3. A move through the API.
      const moved = await api(server.url, key, `/api/claims/${claimOf.PCNC1}/status`, { body: { status: "coded", note: "from the API" } })
      expect([moved.status, moved.body.status]).toEqual([200, "coded"])
      await settle("api status change")

      // 4. Two 837P batches (the second is the one the 999 rejects).
      expect((await api(server.url, key, "/api/workspace/clearinghouse", { method: "PUT", body: clearinghouseSettingsInput })).status).toBe(200)
      const batchA = await api(server.url, key, "/api/x12/837p-batches", {
        body: { claim_ids: ["PCN0001", "PCN0005", "PCN0007", "PCN0010"].map((p) => claimOf[p]) }
      })
      expect(batchA.status).toBe(201)
      const batchB = await api(server.url, key, "/api/x12/837p-batches", { body: { claim_ids: [claimOf.PCNB1] } })
      expect(batchB.status).toBe(201)
      await settle("837P batches")

      // 5. A 999 rejecting batch B's transaction set. Its ISA13 (4001) is neither the 277CA's (732)
      // nor the 835's (901): a repeated interchange would be a duplicate that applies nothing.
      const ack999 = await postX12(server.url, key, make999(4001, batchB.body.group_control_number, [["0001", "R"]]))
      expect([ack999.status, ack999.body.kind, ack999.body.duplicate]).toEqual([200, "999", false])
      expect(ack999.body.claims.map((c: any) => [c.claim_id, c.outcome, c.status])).toEqual([[claimOf.PCNB1, "status_changed", "submission_bounced"]])
      await settle("999 import")

      // 6. The 277CA: PCN0005 and PCN0007 rejected.
      const ack277 = await postX12(server.url, key, x12File("277ca-mixed.x12"))
      expect([ack277.status, ack277.body.kind, ack277.body.duplicate]).toEqual([200, "277CA", false])
      expect(ack277.body.claims.filter((c: any) => c.outcome === "status_changed").length).toBe(2)
      await settle("277CA import")

      // 7. The 835: PCN0001 paid, PCN0010 paid (the deductible: the patient owes it all) (its other claims are conflicts: no event).
      const remit = await postX12(server.url, key, x12File("835-mixed.x12"))
      expect([remit.status, remit.body.kind, remit.body.duplicate]).toEqual([200, "835", false])
      expect(remit.body.claims.filter((c: any) => c.outcome === "status_changed").length).toBe(2)
      await settle("835 import")

      // The feed holds every step's events, in this order.
      const events: Array<WireEvent & { readonly payload: { readonly previous_status?: string } }> = await allEvents(server.url, key)
      const encounterEvents = events.filter((e) => !e.event_type.startsWith("ExternalApi.Task."))
      expect(
        encounterEvents.map((e) => [e.event_type === CREATED ? "created" : "moved", pcnOf[e.payload.claim_id], e.payload.previous_status ?? null, e.payload.status])
      ).toEqual([
        ...pcns.map((p) => ["created", p, null, "draft"]),
        ["moved", "PCNC1", "draft", "biller_received"], // CLI
        ["moved", "PCNC1", "biller_received", "coded"], // API
        ...["PCN0001", "PCN0005", "PCN0007", "PCN0010", "PCNB1"].map((p) => ["moved", p, "draft", "submitted_to_payer"]), // 837P batches
        ["moved", "PCNB1", "submitted_to_payer", "submission_bounced"], // 999
        ["moved", "PCN0005", "submitted_to_payer", "rejected"], // 277CA
        ["moved", "PCN0007", "submitted_to_payer", "rejected"],
        ["moved", "PCN0001", "submitted_to_payer", "paid"], // 835
        ["moved", "PCN0010", "submitted_to_payer", "paid"]
      ])
      // And the work queue's tasks those moves made: the bounce, the two rejections, and the 835's
      // reversal of PCN0007 (a conflict as a move, still a payment to review). PCN0010's 835 pays
      // nothing but the deductible: paid, not a denial.
      expect(events.filter((e) => e.event_type === "ExternalApi.Task.Created").map((e) => pcnOf[e.payload.claim_id])).toEqual([
        "PCNB1",
        "PCN0005",
        "PCN0007",
        "PCN0007"
      ])
      expect(events.length).toBe(22)

      // Every step's events arrived within the wait, and exactly the feed's events arrived.
      expect(late).toEqual({})
      expect(receiver.unverified).toEqual([])
      const feedIds = events.map((e) => e.id).sort()
      expect([...receiver.delivered.keys()].sort()).toEqual(feedIds)
      expect([...new Set(receiver.received.map((m) => m.id))].sort()).toEqual(feedIds)

      // Each delivery: signed with the endpoint's secret, its body the feed's event (same bytes as
      // the single-event read, same value as the feed page's item).
      const wh = new Webhook(secret)
      const byId = new Map(events.map((e) => [e.id, e]))
      for (const message of receiver.received) {
        const verified = wh.verify(message.body, message.headers) as { id: string }
        expect(verified.id).toBe(message.id)
        expect(message.headers["webhook-id"]).toBe(message.id)
        expect(JSON.parse(message.body)).toEqual(byId.get(message.id))
        expect(message.body).toBe(await eventText(server.url, key, message.id))
      }
      // The check is not vacuous: another secret, or a changed body, does not verify.
      const sample = receiver.received[0]!
      expect(() => new Webhook(`whsec_${randomBytes(24).toString("base64")}`).verify(sample.body, sample.headers)).toThrow()
      expect(() => wh.verify(sample.body.replace(/"status":"[a-z_]+"/, '"status":"paid"') + " ", sample.headers)).toThrow()

      // The server's own log agrees: one delivery per event, each succeeded.
      const settled = await waitFor(async () => {
        const log = await api(server.url, key, `/api/webhooks/endpoints/${endpoint.body.id}/deliveries?limit=100`)
        return log.status === 200 && log.body.items.length === events.length && log.body.items.every((d: any) => d.status === "succeeded")
      }, DELIVERY_WAIT_MS)
      const log = await api(server.url, key, `/api/webhooks/endpoints/${endpoint.body.id}/deliveries?limit=100`)
      expect({ settled, events: log.body.items.map((d: any) => d.event_id).sort() }).toEqual({ settled: true, events: feedIds })
    } finally {
      receiver.stop()
      expect(await server.stop()).toBe(0)
    }
  }, 180_000)
})
