import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ClaimStatuses } from "../../lib/domain/claim-status.js"
import { searchPayload } from "../contract/encounter-search.contract.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Answer, api, errorPaths, expectProblem } from "./client.js"

/**
 * Finding an encounter over HTTP: the search filters of `GET /api/encounters` (and `/encounters`),
 * alone, combined and paged; 400 `invalid_parameter` for a malformed value and for a parameter the
 * route does not declare; the claims' counts with what they bill.
 */

let server: TestServer
let call: ReturnType<typeof api>
const LISTS = ["/api/encounters", "/encounters"] as const

const externalIds = (res: Answer): Array<string> => res.body.items.map((e: { external_id: string }) => e.external_id)
const search = async (query: string): Promise<Array<string>> => {
  const answers = await Promise.all(LISTS.map((path) => call("GET", `${path}?${query}`)))
  for (const res of answers) expect({ query, status: res.status }).toEqual({ query, status: 200 })
  expect(externalIds(answers[1]!)).toEqual(externalIds(answers[0]!))
  return externalIds(answers[0]!)
}

beforeAll(async () => {
  server = await startTestServer()
  call = api(server)
  const seed: ReadonlyArray<readonly [string, Parameters<typeof searchPayload>[1]]> = [
    ["S-100", { last: "Smith", birth: "1980-01-02", seen: "2026-03-01", payer: "MCR01", charges: [12500] }],
    ["S-101", { last: "smithers", birth: "1980-01-02", lineDate: "2026-03-02", payer: "BCBS1", charges: [4000, 600] }],
    ["S-200", { last: "Smythe", birth: "1975-06-30", seen: "2026-03-03", lineDate: "2026-01-01" }],
    ["T-100", { last: "Öberg", birth: "1990-12-31", lineDate: "2026-03-04", payer: "MCR01" }],
    ["T-101", { last: "O'Brien", birth: "1980-01-02", seen: "2026-03-05", payer: "MCR01" }],
    ["T-102", { last: "SMITH", birth: "2001-02-03", charges: [1] }]
  ]
  for (const [ext, patient] of seed) {
    const res = await call("POST", "/api/encounters", { body: searchPayload(ext, patient) })
    if (res.status !== 202) throw new Error(`seeding ${ext}: ${res.status} ${res.text}`)
  }
  await call("POST", "/api/encounters", { key: server.keys.b, body: searchPayload("S-100", { last: "Smith", birth: "1980-01-02" }) })
})
afterAll(() => server.close())

describe("GET /api/encounters: the search filters", () => {
  test("patient_last_name: a prefix in any case, also beyond ASCII", async () => {
    expect(await search("patient_last_name=smith")).toEqual(["T-102", "S-101", "S-100"])
    expect(await search("patient_last_name=SmItHe")).toEqual(["S-101"])
    expect(await search("patient_last_name=sm")).toEqual(["T-102", "S-200", "S-101", "S-100"])
    expect(await search(`patient_last_name=${encodeURIComponent("öBERG")}`)).toEqual(["T-100"])
    expect(await search(`patient_last_name=${encodeURIComponent("o'b")}`)).toEqual(["T-101"])
    expect(await search("patient_last_name=smithersx")).toEqual([])
  })

  test("patient_date_of_birth: exactly", async () => {
    expect(await search("patient_date_of_birth=1980-01-02")).toEqual(["T-101", "S-101", "S-100"])
    expect(await search("patient_date_of_birth=1980-01-03")).toEqual([])
  })

  test("date_of_service_from and date_of_service_to: inclusive, on the encounter's date or its first line's", async () => {
    expect(await search("date_of_service_from=2026-03-02&date_of_service_to=2026-03-04")).toEqual(["T-100", "S-200", "S-101"])
    expect(await search("date_of_service_from=2026-03-05")).toEqual(["T-101"])
    expect(await search("date_of_service_to=2026-03-01")).toEqual(["S-100"])
    expect(await search("date_of_service_from=2026-03-03&date_of_service_to=2026-03-03")).toEqual(["S-200"])
    expect(await search("date_of_service_to=2026-01-01")).toEqual([])
  })

  test("external_id_prefix: a prefix, case as sent; external_id stays exact", async () => {
    expect(await search("external_id_prefix=S-1")).toEqual(["S-101", "S-100"])
    expect(await search("external_id_prefix=T")).toEqual(["T-102", "T-101", "T-100"])
    expect(await search("external_id_prefix=s-1")).toEqual([])
    expect(await search("external_id=S-10")).toEqual([])
    expect(await search("external_id=S-101")).toEqual(["S-101"])
  })

  test("payer_id: exactly; self-pay encounters have none", async () => {
    expect(await search("payer_id=MCR01")).toEqual(["T-101", "T-100", "S-100"])
    expect(await search("payer_id=BCBS1")).toEqual(["S-101"])
    expect(await search("payer_id=MCR")).toEqual([])
  })

  test("filters combine with each other, with external_id and with claim_status", async () => {
    expect(await search("patient_last_name=smith&patient_date_of_birth=1980-01-02")).toEqual(["S-101", "S-100"])
    expect(await search("patient_last_name=smith&payer_id=MCR01")).toEqual(["S-100"])
    expect(await search("payer_id=MCR01&date_of_service_from=2026-03-02")).toEqual(["T-101", "T-100"])
    expect(await search("external_id_prefix=S-&date_of_service_to=2026-03-02&patient_date_of_birth=1980-01-02")).toEqual(["S-101", "S-100"])
    expect(
      await search(
        "patient_last_name=SM&patient_date_of_birth=1980-01-02&date_of_service_from=2026-03-01&date_of_service_to=2026-03-01&external_id_prefix=S-1&payer_id=MCR01"
      )
    ).toEqual(["S-100"])
    expect(await search("external_id=S-101&patient_last_name=smith")).toEqual(["S-101"])
    expect(await search("external_id=S-101&patient_last_name=o")).toEqual([])
    expect(await search("patient_last_name=smith&claim_status=draft")).toEqual(["T-102", "S-101", "S-100"])
    expect(await search("patient_last_name=smith&claim_status=submitted_to_payer")).toEqual([])
  })

  test("another workspace's encounters are never found", async () => {
    const res = await call("GET", "/api/encounters?patient_last_name=smith", { key: server.keys.b })
    expect(externalIds(res)).toEqual(["S-100"])
  })

  test("paging with filters: both ways, each match once; a token works only with the filters it was issued with", async () => {
    const query = "patient_last_name=s&limit=2"
    const pages: Array<Array<string>> = []
    let res = await call("GET", `/api/encounters?${query}`)
    expect(res.body.prev_page_token).toBeNull()
    for (;;) {
      expect(res.status).toBe(200)
      pages.push(externalIds(res))
      if (res.body.next_page_token === null) break
      res = await call("GET", `/api/encounters?${query}&page_token=${res.body.next_page_token}`)
    }
    expect(pages).toEqual([["T-102", "S-200"], ["S-101", "S-100"]])
    const back = await call("GET", `/api/encounters?${query}&page_token=${res.body.prev_page_token}`)
    expect(externalIds(back)).toEqual(pages[0]!)
    const token = (await call("GET", `/api/encounters?${query}`)).body.next_page_token
    for (const other of ["patient_last_name=sm", "patient_last_name=s&payer_id=MCR01", "external_id_prefix=S", "patient_last_name=s&date_of_service_from=2026-01-01"]) {
      const refused = await call("GET", `/api/encounters?${other}&limit=2&page_token=${token}`)
      expectProblem(refused, 400, "invalid_parameter")
      expect(errorPaths(refused)).toEqual(["page_token"])
    }
  })
})

describe("GET /api/encounters: 400 invalid_parameter", () => {
  const malformed: ReadonlyArray<readonly [string, string]> = [
    ["patient_last_name=", "patient_last_name"],
    [`patient_last_name=${"x".repeat(256)}`, "patient_last_name"],
    ["patient_date_of_birth=1980-02-30", "patient_date_of_birth"],
    ["patient_date_of_birth=02/01/1980", "patient_date_of_birth"],
    ["date_of_service_from=2026-3-1", "date_of_service_from"],
    ["date_of_service_to=2026-03-01T00:00:00Z", "date_of_service_to"],
    ["date_of_service_from=2026-03-05&date_of_service_to=2026-03-04", "date_of_service_to"],
    ["external_id_prefix=", "external_id_prefix"],
    ["payer_id=", "payer_id"],
    ["patient_last_name=a&patient_last_name=b", "patient_last_name"],
    ["claim_status=paid", "claim_status"],
    ["limit=0", "limit"]
  ]
  for (const [query, path] of malformed) {
    test(`${query.slice(0, 60)} names ${path}, on both paths`, async () => {
      for (const list of LISTS) {
        const res = await call("GET", `${list}?${query}`)
        expectProblem(res, 400, "invalid_parameter")
        expect(errorPaths(res)).toEqual([path])
      }
    })
  }

  test("every malformed value is named at once", async () => {
    const res = await call("GET", "/api/encounters?patient_last_name=&patient_date_of_birth=x&date_of_service_from=y&date_of_service_to=z&payer_id=")
    expectProblem(res, 400, "invalid_parameter")
    expect(errorPaths(res)).toEqual(["patient_last_name", "patient_date_of_birth", "date_of_service_from", "date_of_service_to", "payer_id"])
  })

  for (const query of ["foo=1", "_=1700000000000", "patient_lastname=smith", "Patient_Last_Name=smith", "date_of_service=2026-03-01", "page=2"]) {
    test(`a parameter the route does not declare (${query}) is refused, naming it`, async () => {
      for (const list of LISTS) {
        const res = await call("GET", `${list}?${query}`)
        expectProblem(res, 400, "invalid_parameter")
        expect(res.body.errors).toEqual([{ path: query.split("=")[0], message: "is not a parameter of this route" }])
      }
    })
  }

  test("unknown and malformed parameters are reported together", async () => {
    const res = await call("GET", "/api/encounters?payer_id=&zip=83702&limit=abc&zip=1")
    expectProblem(res, 400, "invalid_parameter")
    expect(errorPaths(res).sort()).toEqual(["limit", "zip"])
  })

  test("other routes still ignore parameters they do not declare", async () => {
    for (const path of ["/api/encounters/compat-version?_=1", "/api/intake-requests?_=1", "/api/encounters/compat-version/events?_=1", "/api/workspace?_=1"]) {
      expect({ path, status: (await call("GET", path)).status }).toEqual({ path, status: 200 })
    }
  })
})

describe("GET /api/claims/status-counts", () => {
  test("every status in the vocabulary's order, each with its count and what its claims bill", async () => {
    const res = await call("GET", "/api/claims/status-counts")
    expect(res.status).toBe(200)
    const draft = res.body.counts.find((c: { status: string }) => c.status === "draft")
    // 12500 + 4600 + 12500 (the default line) x 3 + 1
    expect(draft).toEqual({ status: "draft", count: 6, billed_cents: 12500 + 4600 + 12500 * 3 + 1 })
    expect(res.body.counts.map((c: { status: string }) => c.status)).toEqual([...ClaimStatuses])
    expect(res.body.counts.find((c: { status: string }) => c.status === "paid")).toEqual({ status: "paid", count: 0, billed_cents: 0 })
    const other = await call("GET", "/api/claims/status-counts", { key: server.keys.b })
    expect(other.body.counts.find((c: { status: string }) => c.status === "draft")).toEqual({ status: "draft", count: 1, billed_cents: 12500 })
    expectProblem(await call("GET", "/api/claims/status-counts", { key: null }), 401, "unauthorized")
  })
})

describe("GET /", () => {
  test("sends a browser to the console", async () => {
    for (const method of ["GET", "HEAD"]) {
      const res = await fetch(`${server.url}/`, { method, redirect: "manual" })
      expect([res.status, res.headers.get("location")]).toEqual([302, "/console"])
    }
  })
})
