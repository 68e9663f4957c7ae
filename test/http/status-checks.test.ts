import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Fiber } from "effect"
import { runStatusCheckWorker } from "../../lib/rules/status-checks-worker.js"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { startCoreClearinghouse } from "../support/core-clearinghouse.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { make277Status } from "../support/x12-status.js"
import { api, uniqueId, unknownUuid } from "./client.js"

let server: TestServer
const clearinghouse = startCoreClearinghouse(() => ({ category: "F1", status: "65", paid: "90.00" }))
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  clearinghouse.stop()
  await server.close()
})

const call = (method: string, path: string, options: Parameters<ReturnType<typeof api>>[2] = {}) => api(server)(method, path, options)
const writer = () => ({ key: server.keys.aWriter })

/** A claim of workspace A, submitted to the payer (unless `draft`). */
const submittedClaim = async (draft = false) => {
  const pcn = uniqueId("Q").toUpperCase().replace(/[^A-Z0-9]/g, "").slice(-20)
  const created = await call("POST", "/api/encounters", { body: exportablePayload(uniqueId("sc"), pcn) })
  const read = await call("GET", `/api/encounters/${created.body.encounter_id}`)
  const claim: string = read.body.latest_claim_id
  if (!draft) expect((await call("POST", `/api/claims/${claim}/status`, { ...writer(), body: { status: "submitted_to_payer" } })).status).toBe(200)
  return { claim, pcn, encounter: created.body.encounter_id as string }
}

describe("status checks over HTTP", () => {
  test("file transport: 202 queued, listed newest first, read with exactly its fields; a 277 import answers it and sets last_checked_at", async () => {
    expect((await call("PUT", "/api/workspace/clearinghouse", { ...writer(), body: clearinghouseSettingsInput })).status).toBe(200)
    const { claim, pcn, encounter } = await submittedClaim()
    const posted = await call("POST", `/api/claims/${claim}/status-checks`, writer())
    expect(posted.status).toBe(202)
    expect(Object.keys(posted.body).sort()).toEqual(
      ["id", "claim_id", "transport", "status", "trace_number", "created_at", "sent_at", "answered_at", "statuses", "effect", "error"].sort()
    )
    expect(posted.body).toMatchObject({ claim_id: claim, transport: "file", status: "queued", statuses: [], effect: null, error: null })
    const second = await call("POST", `/api/claims/${claim}/status-checks`, writer())
    const page = await call("GET", `/api/claims/${claim}/status-checks`)
    expect(page.body.items.map((c: { id: string }) => c.id)).toEqual([second.body.id, posted.body.id])
    expect((await call("GET", `/api/status-checks/${posted.body.id}`)).body).toEqual(posted.body)

    const answer = make277Status(7000 + Math.floor(Math.random() * 1000), [{ trace: posted.body.trace_number, pcn, category: "P1", status: "20" }])
    const imported = await call("POST", "/api/x12/inbound", { ...writer(), raw: answer, headers: { "content-type": "application/edi-x12" } })
    expect([imported.status, imported.body.kind]).toEqual([200, "277"])
    const answered = await call("GET", `/api/status-checks/${posted.body.id}`)
    expect(answered.body).toMatchObject({ status: "answered", effect: { outcome: "unchanged", status: "submitted_to_payer" } })
    expect(answered.body.statuses[0]).toMatchObject({ category_code: "P1", status_code: "20", meaning: "Pending: in process" })
    const after = await call("GET", `/api/encounters/${encounter}`)
    expect(after.body.latest_claim.last_checked_at).toBe(answered.body.answered_at)
    expect(after.body.latest_claim.processing_started_at).not.toBeNull()
  })

  test("404 for another workspace's claim or check; 409 not_submitted for a draft; 403 without claims:write", async () => {
    const { claim } = await submittedClaim()
    const mine = await call("POST", `/api/claims/${claim}/status-checks`, writer())
    expect((await call("POST", `/api/claims/${claim}/status-checks`, { key: server.keys.b })).status).toBe(404)
    expect((await call("GET", `/api/claims/${claim}/status-checks`, { key: server.keys.b })).status).toBe(404)
    expect((await call("GET", `/api/status-checks/${mine.body.id}`, { key: server.keys.b })).status).toBe(404)
    expect((await call("GET", `/api/status-checks/${unknownUuid()}`)).status).toBe(404)
    expect((await call("POST", `/api/claims/${claim}/status-checks`)).status).toBe(403)
    const draft = await submittedClaim(true)
    const refused = await call("POST", `/api/claims/${draft.claim}/status-checks`, writer())
    expect([refused.status, refused.body.code]).toEqual([409, "not_submitted"])
    expect(refused.body.detail).toContain("draft")
    const selfPay = await call("POST", "/api/encounters", { body: validPayload(uniqueId("np"), { billable_status: "NOT_BILLABLE" }) })
    const npClaim = (await call("GET", `/api/encounters/${selfPay.body.encounter_id}`)).body.latest_claim_id
    expect((await call("POST", `/api/claims/${npClaim}/status-checks`, writer())).body.code).toBe("not_submitted")
  })

  test("settings: 404 while unset, defaults, the password write-only; core checks sent in real time by the worker", async () => {
    const path = "/api/workspace/status-checks"
    expect((await call("GET", path, { key: server.keys.b })).status).toBe(404)
    const invalid = await call("PUT", path, { ...writer(), body: { enabled: "yes", every_days: 0, transport: "carrier pigeon" } })
    expect(invalid.status).toBe(422)
    expect(invalid.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["enabled", "every_days", "transport"])
    const noCore = await call("PUT", path, { ...writer(), body: { enabled: true, transport: "core" } })
    expect([noCore.status, noCore.body.errors[0].path]).toEqual([422, "core"])
    const noPassword = await call("PUT", path, { ...writer(), body: { enabled: false, transport: "core", core: { url: clearinghouse.url, sender_id: "S", receiver_id: "R", username: "user1" } } })
    expect([noPassword.status, noPassword.body.errors[0].path]).toEqual([422, "core.password"])
    const core = { url: clearinghouse.url, sender_id: "ENCOUNTERD", receiver_id: "PAYERGW", username: "user1", password: "s3cret pass" }
    const put = await call("PUT", path, { ...writer(), body: { enabled: false, transport: "core", core } })
    expect(put.status).toBe(200)
    expect(put.body).toEqual({
      enabled: false,
      first_after_days: 7,
      every_days: 7,
      max_checks: 6,
      window_days: 7,
      transport: "core",
      core: { url: clearinghouse.url, sender_id: "ENCOUNTERD", receiver_id: "PAYERGW", username: "user1" }
    })
    // Left out, the stored password is kept.
    const { password: _, ...withoutPassword } = core
    expect((await call("PUT", path, { ...writer(), body: { enabled: false, transport: "core", core: withoutPassword } })).status).toBe(200)
    const read = await call("GET", path)
    expect(read.body).toEqual(put.body)
    expect(read.text).not.toContain("s3cret")
    expect((await call("PUT", path, { key: server.keys.a, body: { enabled: false } })).status).toBe(403)

    const worker = server.runtime.runFork(runStatusCheckWorker({ pollMs: 60_000, timeoutMs: 2000 }))
    try {
      const { claim, encounter } = await submittedClaim()
      const posted = await call("POST", `/api/claims/${claim}/status-checks`, writer())
      expect([posted.status, posted.body.transport]).toEqual([202, "core"])
      let check = posted.body
      for (let i = 0; i < 100 && check.status === "queued"; i++) {
        await Bun.sleep(20)
        check = (await call("GET", `/api/status-checks/${posted.body.id}`)).body
      }
      expect(check).toMatchObject({ status: "answered", effect: { outcome: "status_changed", previous_status: "submitted_to_payer", status: "paid" } })
      const encounterRead = await call("GET", `/api/encounters/${encounter}`)
      expect(encounterRead.body.latest_claim).toMatchObject({ status: "paid", last_checked_at: check.answered_at })
      expect(clearinghouse.requests.get(check.trace_number)).toBe(1)
    } finally {
      await server.runtime.runPromise(Fiber.interrupt(worker))
    }
  })
})
