import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer, Option } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { ClaimId, type WorkspaceId } from "../../lib/domain/ids.js"
import { Storage } from "../../lib/ports/storage.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { getStatusCheckSettings } from "../../lib/rules/status-check-settings.js"
import { getStatusCheck, requestStatusCheck } from "../../lib/rules/status-checks.js"
import { statusCheckRound } from "../../lib/rules/status-checks-worker.js"
import { createWebhookEndpoint } from "../../lib/rules/webhook-endpoints.js"
import { type Scripted, startCoreClearinghouse } from "../support/core-clearinghouse.js"
import { runner, workspaceWithClaims } from "./setup.js"

/** What the test clearinghouse answers, per PCN: every row of the category table, a 999, an error envelope, a timeout. */
const script: Record<string, Scripted> = {
  PAID: { category: "F1", status: "65", paid: "80.00" },
  DENIED: { category: "F2", status: "88" },
  REJECTED: { category: "A7", status: "21" },
  PENDING: { category: "P1", status: "20" },
  INFO: { category: "R3", status: "21" },
  NOTFOUND: { category: "D0", status: "35" },
  LEVEL: "not-found-level",
  REJECT999: "999",
  ERROR: "error",
  TIMEOUT: "timeout"
}
const clearinghouse = startCoreClearinghouse((pcn) => script[pcn] ?? { category: "P1" })
afterAll(() => clearinghouse.stop())

const core = { url: clearinghouse.url, sender_id: "ENCOUNTERD", receiver_id: "PAYERGW", username: "user1", password: "s3cret pass" }
const settings = { enabled: false, transport: "core", core }

describe("the core transport against a test clearinghouse", () => {
  test("each answer's effect on the claim, last_checked_at, events and webhooks; 999, error envelope and timeout", async () => {
    const { run, clock } = runner(MemoryStorage.layer)
    const pcns = Object.keys(script)
    const { ws, claims } = await run(workspaceWithClaims("core-a", pcns, settings))
    await run(Effect.provide(createWebhookEndpoint(ws, { url: "http://127.0.0.1:9/hook" }), Layer.empty))
    const shown = await run(getStatusCheckSettings(ws))
    expect(shown.core).toEqual({ url: core.url, sender_id: "ENCOUNTERD", receiver_id: "PAYERGW", username: "user1" })
    expect(JSON.stringify(shown)).not.toContain("s3cret")
    const checks = await run(Effect.forEach(claims, (id) => requestStatusCheck(ws, id)))
    expect(checks.every((c) => c.transport === "core" && c.status === "queued")).toBe(true)
    clock.advance(1000)
    const runs: Array<string> = []
    await run(statusCheckRound("instance-1", false, { timeoutMs: 500, retryDelaysMs: [60_000], onSend: (r) => runs.push(r) }))
    expect(runs.length).toBe(pcns.length)

    const byPcn = async (pcn: string) => {
      const i = pcns.indexOf(pcn)
      const check = await run(getStatusCheck(ws, checks[i]!.id))
      const claim = await run(Effect.map(Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(claims[i]!))), (f) => Option.getOrThrow(f).claim))
      return { check, claim }
    }
    const paid = await byPcn("PAID")
    expect(paid.check).toMatchObject({ status: "answered", effect: { outcome: "status_changed", previous_status: "submitted_to_payer", status: "paid" }, error: null })
    expect(paid.check.statuses[0]).toMatchObject({ category_code: "F1", status_code: "65", paid_amount_cents: 8000 })
    expect(paid.claim.status).toBe("paid")
    expect(paid.claim.last_checked_at).not.toBeNull()
    expect(paid.check.sent_at).not.toBeNull()
    expect((await byPcn("DENIED")).claim.status).toBe("denied")
    expect((await byPcn("REJECTED")).claim.status).toBe("rejected")
    const pending = await byPcn("PENDING")
    expect(pending.check.effect).toEqual({ outcome: "unchanged", previous_status: "submitted_to_payer", status: "submitted_to_payer" })
    expect(pending.claim.processing_started_at).not.toBeNull()
    const info = await byPcn("INFO")
    expect(info.check.effect?.outcome).toBe("unchanged")
    expect(info.check.statuses[0]!.category_code).toBe("R3")
    expect(info.claim.last_checked_at).not.toBeNull()
    for (const pcn of ["NOTFOUND", "LEVEL"]) {
      const unanswered = await byPcn(pcn)
      expect(unanswered.check.status).toBe("answered")
      expect(unanswered.check.effect?.outcome).toBe("unanswered")
      expect(unanswered.claim.last_checked_at).toBeNull()
    }
    const rejected = await byPcn("REJECT999")
    expect(rejected.check.status).toBe("failed")
    expect(rejected.check.error).toContain("999")
    expect(rejected.claim.status).toBe("submitted_to_payer")
    for (const pcn of ["ERROR", "TIMEOUT"]) {
      const retrying = await byPcn(pcn)
      expect(retrying.check.status).toBe("queued")
      expect(retrying.check.error).toContain(pcn === "ERROR" ? "Receiver Down" : "no answer within")
      expect(retrying.claim.last_checked_at).toBeNull()
    }

    // Retried after the backoff; past the last retry the check fails.
    const before = clearinghouse.requests.get(checks[pcns.indexOf("ERROR")]!.trace_number)
    await run(statusCheckRound("instance-1", false, { timeoutMs: 500, retryDelaysMs: [60_000] }))
    expect(clearinghouse.requests.get(checks[pcns.indexOf("ERROR")]!.trace_number)).toBe(before)
    clock.advance(61_000)
    await run(statusCheckRound("instance-1", false, { timeoutMs: 500, retryDelaysMs: [60_000] }))
    expect(clearinghouse.requests.get(checks[pcns.indexOf("ERROR")]!.trace_number)).toBe((before ?? 0) + 1)
    expect((await byPcn("ERROR")).check.status).toBe("failed")
    expect((await byPcn("TIMEOUT")).check.status).toBe("failed")

    // The envelope: CORE 2.2.0, real time, the credentials, a 276 payload.
    const fields = clearinghouse.fields.get(checks[0]!.trace_number)!
    expect(fields).toMatchObject({ PayloadType: "X12_276_Request_005010X212", ProcessingMode: "RealTime", CORERuleVersion: "2.2.0", SenderID: "ENCOUNTERD", ReceiverID: "PAYERGW", UserName: "user1" })
    expect(fields.PayloadID).toMatch(/^[0-9a-f-]{36}$/)
    expect(fields.Payload).toContain("ST*276*")

    // Moves have their events, and their webhook deliveries (the commit path's outbox; the endpoint came after the submissions).
    const events = await run(listEvents(ws as WorkspaceId, { event_types: ["ExternalApi.Encounter.StatusUpdated"], limit: 100 }))
    const moved = events.items.map((e) => (e.payload as { status?: string }).status)
    expect(moved.filter((s) => s === "paid" || s === "denied" || s === "rejected").sort()).toEqual(["denied", "paid", "rejected"])
    const deliveries = await run(Effect.flatMap(Storage, (s) => s.page("webhook_deliveries", ws, { limit: 100 })))
    expect(deliveries.filter((d) => d.event_type === "ExternalApi.Encounter.StatusUpdated").length).toBe(3)
  }, 20_000)
})
