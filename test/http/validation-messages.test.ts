import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ClaimStatuses, FilterableClaimStatuses } from "../../lib/domain/claim-status.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Answer, api, expectProblem, uniqueId } from "./client.js"

let server: TestServer
let call: ReturnType<typeof api>
let claimId = ""

beforeAll(async () => {
  server = await startTestServer()
  call = api(server)
  const created = await call("POST", "/api/encounters", { body: validPayload(uniqueId("msg")) })
  expect(created.status).toBe(202)
  claimId = (await call("GET", `/encounters/${created.body.encounter_id}`)).body.latest_claim_id
})
afterAll(() => server.close())

const errorsOf = (res: Answer): Array<string> =>
  (res.body?.errors ?? []).map((e: { path: string; message: string }) => `${e.path}: ${e.message}`)

describe("one error per mistake, naming the allowed values", () => {
  test("POST /api/claims/{id}/status with an unknown status: one error listing every status", async () => {
    for (const status of ["banana", 3]) {
      const res = await call("POST", `/api/claims/${claimId}/status`, { key: server.keys.aWriter, body: { status } })
      expectProblem(res, 422, "validation_failed")
      expect(errorsOf(res)).toEqual([`status: must be one of ${ClaimStatuses.join(", ")}`])
    }
  })

  test("?claim_status outside the normalized filter's five: one error listing them, no union noise", async () => {
    for (const path of ["/encounters", "/api/encounters"]) {
      const res = await call("GET", `${path}?claim_status=paid`)
      expectProblem(res, 400, "invalid_parameter")
      expect(errorsOf(res)).toEqual([`claim_status: must be one of ${FilterableClaimStatuses.join(", ")}`])
    }
  })

  test("the compat list lists every status; a bad limit beside it is its own single error", async () => {
    const res = await call("GET", "/api/encounters/compat-version?claim_status=banana&limit=abc")
    expectProblem(res, 400, "invalid_parameter")
    expect(errorsOf(res)).toEqual([`claim_status: must be one of ${ClaimStatuses.join(", ")}`, "limit: must be an integer from 1 to 100"])
    expect(res.body.detail).not.toContain("undefined")
  })

  test("a create body with wrong vocabulary values: one error per field", async () => {
    const body = validPayload(uniqueId("msg"), { billable_status: "MAYBE", responsible_party: 7 })
    const res = await call("POST", "/api/encounters", { body })
    expectProblem(res, 422, "validation_failed")
    expect(errorsOf(res).sort()).toEqual([
      "billable_status: must be one of BILLABLE, NOT_BILLABLE",
      "responsible_party: must be one of INSURANCE_PAY, SELF_PAY, UNKNOWN"
    ])
  })

  test("a long vocabulary (the state codes) is one error that still lists every allowed value", async () => {
    const patient = { ...(validPayload("x").patient as Record<string, unknown>), address: { address1: "1 A St", city: "Boise", state: "XX", zip_code: "83702" } }
    const res = await call("POST", "/api/encounters", { body: validPayload(uniqueId("msg"), { patient }) })
    expectProblem(res, 422, "validation_failed")
    const errors = errorsOf(res)
    expect(errors.length).toBe(1)
    expect(errors[0]).toStartWith("patient.address.state: must be a valid")
    for (const code of ["AL", "ID", "WY", "DC"]) expect(errors[0]).toContain(code)
  })
})
