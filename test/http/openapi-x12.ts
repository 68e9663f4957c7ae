import { expect } from "bun:test"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { validPayload } from "../support/payloads.js"
import type { TestServer } from "../support/server.js"
import { make277 } from "../support/x12-files.js"
import { type Answer, type CallOptions, uniqueId, unknownUuid } from "./client.js"

type Hit = (on: TestServer, template: string, method: string, path: string, options?: CallOptions) => Promise<Answer>

const jsonBody = (body: string): CallOptions => ({ raw: body, headers: { "content-type": "application/json" } })
const x12Body = (text: string, type = "application/edi-x12"): CallOptions => ({ raw: text, headers: { "content-type": type } })

/** Drives every clearinghouse route through its successes and declared errors. */
export const driveClearinghouse = async (hit: Hit, server: TestServer, tight: TestServer) => {
  const writer = { key: server.keys.aWriter }
  // A draft claim the 837P cannot carry: billed to the patient.
  const selfPay = await hit(server, "/api/encounters", "POST", "/api/encounters", { body: validPayload(uniqueId("self-pay")) })
  const selfPayClaim = (await hit(server, "/api/encounters/{id}", "GET", `/api/encounters/${selfPay.body.encounter_id}`)).body.latest_claim_id
  const settingsPath = "/api/workspace/clearinghouse"
  const previewTemplate = "/api/claims/{claim_id}/837p"
  expect((await hit(server, settingsPath, "GET", settingsPath)).status).toBe(404)
  expect((await hit(server, previewTemplate, "GET", `/api/claims/${selfPayClaim}/837p`)).status).toBe(409)
  expect((await hit(server, settingsPath, "PUT", settingsPath, { ...writer, body: clearinghouseSettingsInput })).status).toBe(200)
  expect((await hit(server, settingsPath, "PUT", settingsPath, { body: clearinghouseSettingsInput })).status).toBe(403)
  expect((await hit(server, settingsPath, "PUT", settingsPath, { ...writer, ...jsonBody("{") })).status).toBe(400)
  expect((await hit(server, settingsPath, "PUT", settingsPath, { ...writer, raw: "{}", headers: { "content-type": "text/plain" } })).status).toBe(415)
  expect((await hit(server, settingsPath, "PUT", settingsPath, { ...writer, body: { ...clearinghouseSettingsInput, usage: "X" } })).status).toBe(422)
  expect((await hit(server, settingsPath, "GET", settingsPath)).status).toBe(200)

  const claims: Array<{ claim: string; pcn: string }> = []
  for (let i = 0; i < 2; i++) {
    const pcn = uniqueId("P").toUpperCase().replace(/[^A-Z0-9]/g, "").slice(-20)
    const created = await hit(server, "/api/encounters", "POST", "/api/encounters", { body: exportablePayload(uniqueId("x12"), pcn) })
    const read = await hit(server, "/api/encounters/{id}", "GET", `/api/encounters/${created.body.encounter_id}`)
    claims.push({ claim: read.body.latest_claim_id, pcn })
  }
  const [c1, c2] = claims
  const preview = await hit(server, previewTemplate, "GET", `/api/claims/${c1!.claim}/837p`)
  expect([preview.status, preview.headers.get("content-type")]).toEqual([200, "application/edi-x12"])
  expect((await hit(server, previewTemplate, "GET", `/api/claims/${selfPayClaim}/837p`)).status).toBe(422)
  expect((await hit(server, previewTemplate, "GET", `/api/claims/${unknownUuid()}/837p`)).status).toBe(404)

  const batches = "/api/x12/837p-batches"
  const send = (body: unknown, options: CallOptions = writer) => hit(server, batches, "POST", batches, { ...options, body })
  expect((await send({ claim_ids: [c1!.claim] }, {})).status).toBe(403)
  expect((await hit(server, batches, "POST", batches, { ...writer, ...jsonBody("{") })).status).toBe(400)
  expect((await hit(server, batches, "POST", batches, { ...writer, raw: "{}", headers: { "content-type": "text/plain" } })).status).toBe(415)
  expect((await send({ claim_ids: [] })).status).toBe(422)
  expect((await send({ claim_ids: [unknownUuid()] })).status).toBe(404)
  expect((await send({ claim_ids: [c1!.claim, selfPayClaim] })).status).toBe(422)
  const batch = await send({ claim_ids: [c1!.claim, c2!.claim] })
  expect(batch.status).toBe(201)
  expect((await send({ claim_ids: [c1!.claim] })).status).toBe(409)
  expect((await hit(server, batches, "GET", batches)).status).toBe(200)
  expect((await hit(server, batches, "GET", `${batches}?limit=abc`)).status).toBe(400)
  expect((await hit(server, `${batches}/{id}`, "GET", `${batches}/${batch.body.id}`)).status).toBe(200)
  expect((await hit(server, `${batches}/{id}`, "GET", `${batches}/${unknownUuid()}`)).status).toBe(404)
  expect((await hit(server, `${batches}/{id}/file`, "GET", `${batches}/${batch.body.id}/file`)).status).toBe(200)
  expect((await hit(server, `${batches}/{id}/file`, "GET", `${batches}/${unknownUuid()}/file`)).status).toBe(404)

  const inbound = "/api/x12/inbound"
  const ack = make277(9_100 + Math.floor(Math.random() * 1000), [{ pcn: c1!.pcn, category: "A2", payerControl: "PCC1" }, { pcn: c2!.pcn, category: "A7", text: "Bad id" }])
  expect((await hit(server, inbound, "POST", inbound, x12Body(ack))).status).toBe(403)
  expect((await hit(server, inbound, "POST", inbound, { ...writer, ...x12Body(ack, "application/json") })).status).toBe(415)
  expect((await hit(server, inbound, "POST", inbound, { ...writer, ...x12Body(ack.slice(0, -30)) })).status).toBe(422)
  const imported = await hit(server, inbound, "POST", inbound, { ...writer, ...x12Body(ack, "text/plain; charset=us-ascii") })
  expect(imported.status).toBe(200)
  expect((await hit(server, inbound, "POST", inbound, { ...writer, ...x12Body(ack) })).body.duplicate).toBe(true)
  const huge = "A".repeat(10 * 1024 * 1024 + 1)
  expect((await hit(server, inbound, "POST", inbound, { ...writer, ...x12Body(huge) })).status).toBe(413)
  const files = "/api/x12/files"
  expect((await hit(server, files, "GET", files)).status).toBe(200)
  expect((await hit(server, files, "GET", `${files}?limit=abc`)).status).toBe(400)
  expect((await hit(server, `${files}/{id}`, "GET", `${files}/${imported.body.id}`)).status).toBe(200)
  expect((await hit(server, `${files}/{id}`, "GET", `${files}/${unknownUuid()}`)).status).toBe(404)
  const outcomes = `${files}/{id}/outcomes`
  const page = await hit(server, outcomes, "GET", `${files}/${imported.body.id}/outcomes?limit=1`)
  expect([page.status, page.body.items.length, page.body.next_page_token === null]).toEqual([200, 1, false])
  expect((await hit(server, outcomes, "GET", `${files}/${imported.body.id}/outcomes?limit=1&page_token=${page.body.next_page_token}`)).status).toBe(200)
  expect((await hit(server, outcomes, "GET", `${files}/${imported.body.id}/outcomes?limit=abc`)).status).toBe(400)
  expect((await hit(server, outcomes, "GET", `${files}/${unknownUuid()}/outcomes`)).status).toBe(404)
  const remittances = "/api/claims/{claim_id}/remittances"
  expect((await hit(server, remittances, "GET", `/api/claims/${c1!.claim}/remittances`)).status).toBe(200)
  expect((await hit(server, remittances, "GET", `/api/claims/${c1!.claim}/remittances?limit=0`)).status).toBe(400)
  expect((await hit(server, remittances, "GET", `/api/claims/${unknownUuid()}/remittances`)).status).toBe(404)

  const big = JSON.stringify({ ...clearinghouseSettingsInput, pad: "x".repeat(9000) })
  await hit(tight, settingsPath, "PUT", settingsPath, { key: tight.keys.aWriter, ...jsonBody(big) })
  await hit(tight, batches, "POST", batches, { key: tight.keys.aWriter, ...jsonBody(big) })
}
