import { expect } from "bun:test"
import { exportablePayload } from "../contract/clearinghouse.contract.js"
import type { TestServer } from "../support/server.js"
import { type Answer, type CallOptions, uniqueId, unknownUuid } from "./client.js"

type Hit = (on: TestServer, template: string, method: string, path: string, options?: CallOptions) => Promise<Answer>

/** Drives the status check routes through their successes and declared errors. */
export const driveStatusChecks = async (hit: Hit, server: TestServer, tight: TestServer) => {
  const writer = { key: server.keys.aWriter }
  const created = await hit(server, "/api/encounters", "POST", "/api/encounters", { body: exportablePayload(uniqueId("sc"), uniqueId("S").toUpperCase().replace(/[^A-Z0-9]/g, "").slice(-20)) })
  const claim = (await hit(server, "/api/encounters/{id}", "GET", `/api/encounters/${created.body.encounter_id}`)).body.latest_claim_id
  const checks = "/api/claims/{claim_id}/status-checks"
  const at = `/api/claims/${claim}/status-checks`
  expect((await hit(server, checks, "POST", at, writer)).status).toBe(409)
  expect((await hit(server, "/api/claims/{claim_id}/status", "POST", `/api/claims/${claim}/status`, { ...writer, body: { status: "submitted_to_payer" } })).status).toBe(200)
  const check = await hit(server, checks, "POST", at, writer)
  expect(check.status).toBe(202)
  expect((await hit(server, checks, "POST", at, {})).status).toBe(403)
  expect((await hit(server, checks, "POST", `/api/claims/${unknownUuid()}/status-checks`, writer)).status).toBe(404)
  expect((await hit(server, checks, "GET", at)).status).toBe(200)
  expect((await hit(server, checks, "GET", `${at}?limit=abc`)).status).toBe(400)
  expect((await hit(server, checks, "GET", `/api/claims/${unknownUuid()}/status-checks`)).status).toBe(404)
  expect((await hit(server, "/api/status-checks/{id}", "GET", `/api/status-checks/${check.body.id}`)).status).toBe(200)
  expect((await hit(server, "/api/status-checks/{id}", "GET", `/api/status-checks/${unknownUuid()}`)).status).toBe(404)

  const settings = "/api/workspace/status-checks"
  const json = (raw: string, type = "application/json"): CallOptions => ({ ...writer, raw, headers: { "content-type": type } })
  expect((await hit(server, settings, "GET", settings)).status).toBe(404)
  expect((await hit(server, settings, "PUT", settings, { ...writer, body: { enabled: true } })).status).toBe(200)
  expect((await hit(server, settings, "PUT", settings, { body: { enabled: true } })).status).toBe(403)
  expect((await hit(server, settings, "PUT", settings, json("{"))).status).toBe(400)
  expect((await hit(server, settings, "PUT", settings, json("{}", "text/plain"))).status).toBe(415)
  expect((await hit(server, settings, "PUT", settings, { ...writer, body: { enabled: true, max_checks: 0 } })).status).toBe(422)
  expect((await hit(server, settings, "GET", settings)).status).toBe(200)
  // Back to no follow-ups, so later routes' claims are left alone.
  await hit(server, settings, "PUT", settings, { ...writer, body: { enabled: false } })
  await hit(tight, settings, "PUT", settings, { ...json(JSON.stringify({ enabled: false, pad: "x".repeat(9000) })), key: tight.keys.aWriter })
}
