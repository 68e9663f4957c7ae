import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { FilterableClaimStatuses } from "../../lib/domain/claim-status.js"
import { insurancePayload, validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Answer, api, errorPaths, expectProblem, expectShape, uniqueId, unknownUuid } from "./client.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const fixturesDir = new URL("../fixtures/valid/", import.meta.url)
const fixtureNames = readdirSync(fixturesDir).filter((n) => /^shr-.*\.json$/.test(n)).sort()

type Payload = Record<string, any>
/** A deep copy of a valid payload, changed by `edit`. */
const changed = (edit: (p: Payload) => void, base: Payload = validPayload(uniqueId("inv"))): Payload => {
  const p = structuredClone(base)
  edit(p)
  return p
}

let server: TestServer
let call: ReturnType<typeof api>
const create = (payload: unknown, key?: string) => call("POST", "/api/encounters", { body: payload, ...(key ? { key } : {}) })

beforeAll(async () => {
  server = await startTestServer()
  call = api(server)
})
afterAll(() => server.close())

describe("POST /api/encounters", () => {
  test("a new encounter is 202 with encounter_id and encounterId equal", async () => {
    const res = await create(validPayload(uniqueId("new")))
    expect(res.status).toBe(202)
    expect(res.body.encounter_id).toMatch(UUID)
    expect(res.body).toEqual({ encounter_id: res.body.encounter_id, encounterId: res.body.encounter_id })
  })

  test("a replay is 200 with duplicate: true and the same id; another workspace gets its own encounter", async () => {
    const ext = uniqueId("replay")
    const first = await create(validPayload(ext))
    expect(first.status).toBe(202)
    const again = await create(validPayload(ext))
    expect(again.status).toBe(200)
    expect(again.body).toEqual({ encounter_id: first.body.encounter_id, encounterId: first.body.encounter_id, duplicate: true })
    const inB = await create(validPayload(ext), server.keys.b)
    expect(inB.status).toBe(202)
    expect(inB.body.encounter_id).not.toBe(first.body.encounter_id)
    const list = await call("GET", `/encounters?external_id=${ext}`)
    expect(list.status).toBe(200)
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([first.body.encounter_id])
  })

  test("the fixtures directory is found", () => expect(fixtureNames.length).toBeGreaterThan(0))
  for (const name of fixtureNames) {
    test(`fixture ${name} is accepted with 202`, async () => {
      const payload = JSON.parse(readFileSync(new URL(name, fixturesDir), "utf8"))
      const res = await create(payload)
      expect({ status: res.status, body: res.body }).toEqual({
        status: 202,
        body: { encounter_id: expect.stringMatching(UUID), encounterId: res.body?.encounter_id }
      })
    })
  }

  const invalid: ReadonlyArray<readonly [string, Payload, string]> = [
    ["a missing required top-level field", changed((p) => delete p.billable_status), "billable_status"],
    ["a missing nested field", changed((p) => delete p.patient.first_name), "patient.first_name"],
    ["a bad enum value", changed((p) => (p.patient.gender = "robot")), "patient.gender"],
    ["an NPI with a bad check digit", changed((p) => (p.billing_provider.npi = "1234567890")), "billing_provider.npi"],
    ["an unknown state", changed((p) => (p.patient.address.state = "ZZ")), "patient.address.state"],
    ["a four-digit zip", changed((p) => (p.patient.address.zip_code = "8370")), "patient.address.zip_code"],
    ["a date that is not in the calendar", changed((p) => (p.patient.date_of_birth = "2026-02-30")), "patient.date_of_birth"],
    ["negative cents", changed((p) => (p.service_lines[0].charge_amount_cents = -1)), "service_lines[0].charge_amount_cents"],
    ["fractional cents", changed((p) => (p.service_lines[0].charge_amount_cents = 12.5)), "service_lines[0].charge_amount_cents"],
    ["quantity \"0\"", changed((p) => (p.service_lines[0].quantity = "0")), "service_lines[0].quantity"],
    ["INSURANCE_PAY without subscriber_primary", changed((p) => delete p.subscriber_primary, insurancePayload(uniqueId("ins"))), "subscriber_primary"],
    ["a service line without diagnosis pointers", changed((p) => (p.service_lines[0].diagnosis_pointers = [])), "service_lines[0].diagnosis_pointers"],
    ["an out-of-range diagnosis pointer", changed((p) => (p.service_lines[0].diagnosis_pointers = [1])), "service_lines[0].diagnosis_pointers[0]"]
  ]
  for (const [what, payload, path] of invalid) {
    test(`422 validation_failed naming ${path} for ${what}, and nothing is created`, async () => {
      const res = await create(payload)
      expectProblem(res, 422, "validation_failed")
      expect(errorPaths(res)).toContain(path)
      for (const e of res.body.errors) expect(e.message).toEqual(expect.stringMatching(/\S/))
      const list = await call("GET", `/encounters?external_id=${encodeURIComponent(String(payload.external_id))}`)
      expect(list.body.items).toEqual([])
    })
  }

  test("several problems are reported at once", async () => {
    const payload = changed((p) => {
      delete p.billable_status
      p.patient.gender = "robot"
      p.billing_provider.npi = "1234567890"
      p.service_lines[0].quantity = "0"
    })
    const res = await create(payload)
    expectProblem(res, 422, "validation_failed")
    expect(errorPaths(res)).toEqual(
      expect.arrayContaining(["billable_status", "patient.gender", "billing_provider.npi", "service_lines[0].quantity"])
    )
  })

  test("malformed JSON is 400 invalid_json", async () => {
    const res = await call("POST", "/api/encounters", { raw: '{"external_id": ', headers: { "content-type": "application/json" } })
    expectProblem(res, 400, "invalid_json")
  })

  for (const raw of ["[]", "42", '"text"', "null"]) {
    test(`a JSON body that is not an object (${raw}) is a 4xx problem, not a 5xx`, async () => {
      const res = await call("POST", "/api/encounters", { raw, headers: { "content-type": "application/json" } })
      expect([400, 422]).toContain(res.status)
      expectProblem(res, res.status, res.status === 400 ? "invalid_json" : "validation_failed")
    })
  }

  test("a wrong content type is 415 unsupported_media_type", async () => {
    const res = await call("POST", "/api/encounters", { raw: JSON.stringify(validPayload(uniqueId("ct"))), headers: { "content-type": "text/plain" } })
    expectProblem(res, 415, "unsupported_media_type")
  })

  test("a missing content type is 415 unsupported_media_type", async () => {
    const raw = new TextEncoder().encode(JSON.stringify(validPayload(uniqueId("noct"))))
    const res = await call("POST", "/api/encounters", { raw })
    expectProblem(res, 415, "unsupported_media_type")
  })
})

describe("body size limit (bodyLimit 1000)", () => {
  let small: TestServer
  beforeAll(async () => {
    small = await startTestServer({ config: { bodyLimit: 1000 } })
  })
  afterAll(() => small.close())
  const big = () => JSON.stringify(validPayload(uniqueId("big"), { padding: "x".repeat(2000) }))

  test("a body over the limit with Content-Length is 413 payload_too_large", async () => {
    const res = await api(small)("POST", "/api/encounters", { raw: big(), headers: { "content-type": "application/json" } })
    expectProblem(res, 413, "payload_too_large")
  })

  test("a chunked streaming body over the limit is 413 payload_too_large", async () => {
    const bytes = new TextEncoder().encode(big())
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 200) controller.enqueue(bytes.slice(i, i + 200))
        controller.close()
      }
    })
    const init = { method: "POST", body: stream, duplex: "half", headers: { authorization: `Bearer ${small.keys.a}`, "content-type": "application/json" } }
    const response = await fetch(`${small.url}/api/encounters`, init as RequestInit)
    const res: Answer = { status: response.status, headers: response.headers, text: "", body: await response.json() }
    expectProblem(res, 413, "payload_too_large")
  })
})

describe("normalized reads", () => {
  let id: string
  let ext: string
  beforeAll(async () => {
    ext = uniqueId("read")
    id = (await create(validPayload(ext, { metadata: { source_system: "emr-x" } }))).body.encounter_id
  })

  for (const path of ["/encounters/{id}", "/api/encounters/{id}", "/encounters?external_id={ext}", "/api/encounters?external_id={ext}"]) {
    test(`GET ${path} returns the normalized encounter`, async () => {
      const res = await call("GET", path.replace("{id}", id).replace("{ext}", ext))
      expect(res.status).toBe(200)
      const enc = path.includes("?") ? res.body.items[0] : res.body
      if (path.includes("?")) expectShape(res.body, { items: [expect.any(Object)], next_page_token: null, prev_page_token: null })
      expectShape(enc, {
        id,
        external_id: ext,
        created_at: expect.stringMatching(ISO_MS),
        source: "api",
        metadata: { source_system: "emr-x" },
        schema_instances: [],
        patient_id: null,
        service_facility_id: null,
        latest_claim_id: expect.stringMatching(UUID),
        initial_claim_status: "draft",
        initial_patient_control_number: expect.stringMatching(/^[A-Z0-9]{1,20}$/),
        last_event_at: expect.stringMatching(ISO_MS)
      })
      expectShape(enc.latest_claim, {
        id: enc.latest_claim_id,
        status: "draft",
        patient_control_number: enc.initial_patient_control_number,
        patient: { first_name: "Avery", last_name: "Testpatient", gender: "female" },
        diagnoses: [{ code_type: "ABK", code: "J01.90" }],
        responsible_party: "SELF_PAY",
        clearinghouse_transaction_ids: []
      })
      expectShape(enc.latest_claim.service_lines[0], { procedure_code: "99213", quantity: 1, diagnosis_pointers: [0], charge_amount_cents: 12500 })
      expect(typeof enc.latest_claim.service_lines[0].quantity).toBe("number")
    })
  }

  test("claim_status filters by the latest claim status; each of the five is accepted", async () => {
    const nb = (await create(validPayload(uniqueId("nb"), { billable_status: "NOT_BILLABLE" }))).body.encounter_id
    for (const status of FilterableClaimStatuses) {
      const res = await call("GET", `/encounters?claim_status=${status}`)
      expect(res.status).toBe(200)
      for (const e of res.body.items) expect(e.latest_claim.status).toBe(status)
      const ids = res.body.items.map((e: { id: string }) => e.id)
      expect(ids.includes(id)).toBe(status === "draft")
      expect(ids.includes(nb)).toBe(status === "not_billable")
    }
  })

  test("claim_status paid is 400 invalid_parameter on the normalized lists (the compat list accepts it)", async () => {
    for (const path of ["/encounters", "/api/encounters"]) {
      const res = await call("GET", `${path}?claim_status=paid`)
      expectProblem(res, 400, "invalid_parameter")
      expect(errorPaths(res)).toContain("claim_status")
    }
    const compat = await call("GET", "/api/encounters/compat-version?claim_status=paid")
    expect(compat.status).toBe(200)
    expect(compat.body.items).toEqual([])
  })

  for (const limit of ["0", "101", "abc", "1.5"]) {
    test(`limit=${limit} is 400 invalid_parameter`, async () => {
      const res = await call("GET", `/encounters?limit=${limit}`)
      expectProblem(res, 400, "invalid_parameter")
      expect(errorPaths(res)).toContain("limit")
    })
  }

  for (const path of ["/encounters/", "/api/encounters/", "/api/encounters/compat-version/"]) {
    test(`GET ${path}{unknown or malformed id} is 404 not_found`, async () => {
      for (const bad of [unknownUuid(), "not-a-uuid"]) expectProblem(await call("GET", `${path}${bad}`), 404, "not_found")
    })
  }
})

describe("text beyond ASCII reads back as sent", () => {
  test("a read, a list page, a compat read and a compat page answer UTF-8 with the same names, twice (the second from the renders kept)", async () => {
    const ext = uniqueId("utf8")
    const names = { first_name: "Zoë Ñúñez", last_name: "Öztürk-Đặng 😀" }
    const id = (await create(validPayload(ext, { patient: { ...validPayload(ext).patient as object, ...names } }))).body.encounter_id
    for (let round = 0; round < 2; round++) {
      const one = await call("GET", `/encounters/${id}`)
      const page = await call("GET", `/api/encounters?external_id=${ext}`)
      const compat = await call("GET", `/api/encounters/compat-version/${id}`)
      const compatPage = await call("GET", `/api/encounters/compat-version?limit=100`)
      for (const res of [one, page, compat, compatPage]) {
        expect(res.status).toBe(200)
        expect(res.headers.get("content-type")).toBe("application/json")
        expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(res.text, "utf8"))
      }
      expect(one.body.latest_claim.patient).toMatchObject(names)
      expect(page.body.items[0].latest_claim.patient).toMatchObject(names)
      expect(compat.body.patient).toMatchObject(names)
      expect(compatPage.body.items.find((e: { encounter_id: string }) => e.encounter_id === id)?.patient).toMatchObject(names)
    }
  })
})

describe("paging (25 encounters, limit 4)", () => {
  let pager: TestServer
  let get: ReturnType<typeof api>
  const created: Array<string> = []
  beforeAll(async () => {
    pager = await startTestServer()
    get = api(pager)
    for (let i = 0; i < 25; i++) created.push((await api(pager)("POST", "/api/encounters", { body: validPayload(`page-${i}`) })).body.encounter_id)
  })
  afterAll(() => pager.close())
  const ids = (res: Answer): Array<string> => res.body.items.map((e: { id: string }) => e.id)

  test("forward via next_page_token sees each once, newest first; back via prev_page_token gives the same pages", async () => {
    const pages: Array<Array<string>> = []
    let res = await get("GET", "/encounters?limit=4")
    expect(res.body.prev_page_token).toBeNull()
    for (;;) {
      expect(res.status).toBe(200)
      pages.push(ids(res))
      if (res.body.next_page_token === null) break
      res = await get("GET", `/encounters?limit=4&page_token=${res.body.next_page_token}`)
    }
    expect(pages.map((p) => p.length)).toEqual([4, 4, 4, 4, 4, 4, 1])
    expect(pages.flat()).toEqual([...created].reverse())
    const back: Array<Array<string>> = [ids(res)]
    while (res.body.prev_page_token !== null) {
      res = await get("GET", `/encounters?limit=4&page_token=${res.body.prev_page_token}`)
      expect(res.status).toBe(200)
      back.unshift(ids(res))
    }
    expect(back).toEqual(pages)
  })

  test("a token reused with another filter, or a garbage token, is 400 invalid_parameter", async () => {
    const token = (await get("GET", "/encounters?limit=4")).body.next_page_token
    expect(token).toEqual(expect.any(String))
    for (const query of [`claim_status=draft&page_token=${token}`, `external_id=page-3&page_token=${token}`, "page_token=!!garbage!!", "page_token=Z2FyYmFnZQ"]) {
      const res = await get("GET", `/encounters?limit=4&${query}`)
      expectProblem(res, 400, "invalid_parameter")
      expect(errorPaths(res)).toContain("page_token")
    }
  })
})
