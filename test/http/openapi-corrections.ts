import { expect } from "bun:test"
import { exportablePayload } from "../contract/clearinghouse.contract.js"
import { validPayload } from "../support/payloads.js"
import type { TestServer } from "../support/server.js"
import { make277 } from "../support/x12-files.js"
import { type Answer, type CallOptions, uniqueId, unknownUuid } from "./client.js"

type Hit = (on: TestServer, template: string, method: string, path: string, options?: CallOptions) => Promise<Answer>

const CORRECT = "/api/claims/{claim_id}/corrections"
const CLAIM = "/api/claims/{claim_id}"
const CLAIMS = "/api/encounters/{id}/claims"

/**
 * Drives the correction routes through their successes and declared errors. Runs after the
 * clearinghouse routes' drive, which leaves workspace a with clearinghouse settings.
 */
export const driveCorrections = async (hit: Hit, server: TestServer, tight: TestServer) => {
  const writer = { key: server.keys.aWriter }
  const pcn = uniqueId("C").toUpperCase().replace(/[^A-Z0-9]/g, "").slice(-20)
  const payload = exportablePayload(uniqueId("corr"), pcn)
  const created = await hit(server, "/api/encounters", "POST", "/api/encounters", { body: payload })
  const encounter: string = created.body.encounter_id
  const claim: string = (await hit(server, "/api/encounters/{id}", "GET", `/api/encounters/${encounter}`)).body.latest_claim_id
  expect((await hit(server, "/api/x12/837p-batches", "POST", "/api/x12/837p-batches", { ...writer, body: { claim_ids: [claim] } })).status).toBe(201)
  const rejection = make277(880_001, [{ pcn, category: "A7" }])
  expect((await hit(server, "/api/x12/inbound", "POST", "/api/x12/inbound", { ...writer, raw: rejection, headers: { "content-type": "application/edi-x12" } })).status).toBe(200)

  const at = (id: string) => `/api/claims/${id}/corrections`
  expect((await hit(server, CORRECT, "POST", at(claim), { body: { action: "resubmit" } })).status).toBe(403)
  expect((await hit(server, CORRECT, "POST", at(claim), { ...writer, raw: "{", headers: { "content-type": "application/json" } })).status).toBe(400)
  expect((await hit(server, CORRECT, "POST", at(claim), { ...writer, raw: "{}", headers: { "content-type": "text/plain" } })).status).toBe(415)
  expect((await hit(server, CORRECT, "POST", at(claim), { ...writer, body: { action: "resubmit", encounter: { ...payload, diagnoses: [] } } })).status).toBe(422)
  expect((await hit(server, CORRECT, "POST", at(unknownUuid()), { ...writer, body: { action: "resubmit" } })).status).toBe(404)
  expect((await hit(server, CORRECT, "POST", at(claim), { ...writer, body: { action: "void" } })).status).toBe(409)
  const made = await hit(server, CORRECT, "POST", at(claim), { ...writer, body: { action: "resubmit", encounter: payload, note: "fixed" } })
  expect(made.status).toBe(201)
  const big = JSON.stringify({ action: "resubmit", encounter: { ...validPayload("big"), metadata: { pad: "x".repeat(9000) } } })
  expect((await hit(tight, CORRECT, "POST", at(unknownUuid()), { key: tight.keys.aWriter, raw: big, headers: { "content-type": "application/json" } })).status).toBe(413)

  expect((await hit(server, CLAIM, "GET", `/api/claims/${made.body.id}`)).status).toBe(200)
  expect((await hit(server, CLAIM, "GET", `/api/claims/${unknownUuid()}`)).status).toBe(404)
  expect((await hit(server, CLAIMS, "GET", `/api/encounters/${encounter}/claims`)).status).toBe(200)
  expect((await hit(server, CLAIMS, "GET", `/api/encounters/${unknownUuid()}/claims`)).status).toBe(404)
  // Two claims in the compat shape, which the vendor's schema must take.
  expect((await hit(server, "/api/encounters/compat-version/{encounter_id}", "GET", `/api/encounters/compat-version/${encounter}`)).body.claims).toHaveLength(2)
}
