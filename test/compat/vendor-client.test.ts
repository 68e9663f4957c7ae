import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { CandidApi, CandidApiClient } from "candidhealth"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Create, getJson, makeCreates, postEncounter, toWire } from "./sdk-generator.js"

/**
 * The vendor's own `CandidApiClient`, reading through a fetch that maps its paths onto the
 * service's compat paths. Every request it sends is recorded (after the rewrite) so that the
 * tests can check what reached the server.
 */

const COUNT = 12
const cases: Array<Create> = makeCreates(7_331, COUNT, "vc")
const ids = new Map<string, string>()
const requests: Array<{ url: URL; auth: string | null }> = []

/** Vendor path → service path. `/api/events/v1/` (scan, trailing slash) and `/api/events/v1/{id}` (get). */
const rewriteUrl = (raw: string): string =>
  raw
    .replace("/api/encounters/v4", "/api/encounters/compat-version")
    .replace(/\/api\/events\/v1\/?(?=[?#]|$)/, "/api/encounters/compat-version/events")
    .replace("/api/events/v1/", "/api/encounters/compat-version/events/")

const rewritingFetch = ((input: string | URL | Request, init?: RequestInit) => {
  const url = rewriteUrl(input instanceof Request ? input.url : String(input))
  requests.push({ url: new URL(url), auth: new Headers(init?.headers).get("authorization") })
  return fetch(url, init)
}) as typeof fetch

let server: TestServer
let client: CandidApiClient
/** The last request the client sent. */
const lastRequest = () => requests[requests.length - 1]!

beforeAll(async () => {
  server = await startTestServer()
  client = new CandidApiClient({ baseUrl: server.url, token: server.keys.a, maxRetries: 0, fetch: rewritingFetch })
  for (const c of cases) {
    const res = await postEncounter(server.url, server.keys.a, toWire(c))
    if (res.status !== 202) throw new Error(`create ${String(c.externalId)}: ${res.status} ${JSON.stringify(res.body)}`)
    ids.set(String(c.externalId), String(res.body.encounter_id))
  }
})
afterAll(async () => {
  await server.close()
})

describe("rewriteUrl", () => {
  test("maps every vendor path used here", () => {
    const base = "http://127.0.0.1:1"
    expect(rewriteUrl(`${base}/api/encounters/v4?limit=5`)).toBe(`${base}/api/encounters/compat-version?limit=5`)
    expect(rewriteUrl(`${base}/api/encounters/v4/abc`)).toBe(`${base}/api/encounters/compat-version/abc`)
    expect(rewriteUrl(`${base}/api/events/v1/?limit=10`)).toBe(`${base}/api/encounters/compat-version/events?limit=10`)
    expect(rewriteUrl(`${base}/api/events/v1?limit=10`)).toBe(`${base}/api/encounters/compat-version/events?limit=10`)
    expect(rewriteUrl(`${base}/api/events/v1/`)).toBe(`${base}/api/encounters/compat-version/events`)
    expect(rewriteUrl(`${base}/api/events/v1/e-1`)).toBe(`${base}/api/encounters/compat-version/events/e-1`)
  })
})

describe("the vendor client against the compat endpoints", () => {
  test("get one encounter: ok, fields match, bearer token sent", async () => {
    const sent = cases[0]!
    const id = ids.get(String(sent.externalId))!
    const res = await client.encounters.v4.get(CandidApi.EncounterId(id))
    expect(lastRequest().url.pathname).toBe(`/api/encounters/compat-version/${id}`)
    expect(lastRequest().auth).toBe(`Bearer ${server.keys.a}`)
    if (!res.ok) throw new Error(`get failed: ${JSON.stringify(res.error)}`)
    const e = res.body
    expect(String(e.encounterId)).toBe(id)
    expect(String(e.externalId)).toBe(String(sent.externalId))
    expect(e.patient.firstName).toBe(sent.patient.firstName)
    expect(e.patient.dateOfBirth).toBe(sent.patient.dateOfBirth)
    expect(e.billingProvider.npi).toBe(sent.billingProvider.npi)
    expect(e.diagnoses.map((d) => d.code)).toEqual(sent.diagnoses.map((d) => d.code))
    expect(e.claims[0]?.serviceLines.map((l) => l.procedureCode)).toEqual((sent.serviceLines ?? []).map((l) => l.procedureCode))
    expect(e.subscriberPrimary?.insuranceCard.memberId).toBe(sent.subscriberPrimary?.insuranceCard.memberId)
  })

  test("get an unknown encounter: not ok, the status code reaches the caller", async () => {
    const res = await client.encounters.v4.get(CandidApi.EncounterId("00000000-0000-7000-8000-000000000000"))
    expect(res.ok).toBe(false)
    if (!res.ok) expect(res.error.content).toMatchObject({ reason: "status-code", statusCode: 404 })
  })

  test("getAll pages with limit and page_token through every encounter", async () => {
    const seen: Array<string> = []
    let token: CandidApi.PageToken | undefined
    let pages = 0
    do {
      const res = await client.encounters.v4.getAll({ limit: 5, ...(token === undefined ? {} : { pageToken: token }) })
      const { url } = lastRequest()
      expect(url.pathname).toBe("/api/encounters/compat-version")
      expect(url.searchParams.get("limit")).toBe("5")
      expect(url.searchParams.get("page_token")).toBe(token === undefined ? null : String(token))
      if (!res.ok) throw new Error(`getAll failed: ${JSON.stringify(res.error)}`)
      expect(res.body.items.length).toBe(Math.min(5, COUNT - seen.length))
      seen.push(...res.body.items.map((e) => String(e.encounterId)))
      token = res.body.nextPageToken ?? undefined
      pages++
    } while (token !== undefined && pages < 10)
    expect(pages).toBe(Math.ceil(COUNT / 5))
    expect(new Set(seen)).toEqual(new Set(ids.values()))
    expect(seen.length).toBe(COUNT)
  })

  test("getAll with claimStatus paid: ok and empty; external_id finds one", async () => {
    const paid = await client.encounters.v4.getAll({ limit: 5, claimStatus: "paid" })
    expect(lastRequest().url.searchParams.get("claim_status")).toBe("paid")
    if (!paid.ok) throw new Error(`getAll paid failed: ${JSON.stringify(paid.error)}`)
    expect(paid.body.items).toEqual([])

    const ext = cases[3]!.externalId
    const one = await client.encounters.v4.getAll({ externalId: ext })
    expect(lastRequest().url.searchParams.get("external_id")).toBe(String(ext))
    if (!one.ok) throw new Error(`getAll external_id failed: ${JSON.stringify(one.error)}`)
    expect(one.body.items.map((e) => String(e.externalId))).toEqual([String(ext)])
  })

  test("a status change shows up in getAll by claim_status and in the events scan", async () => {
    const id = ids.get(String(cases[1]!.externalId))!
    const read = await getJson(server.url, server.keys.a, `/api/encounters/compat-version/${id}`)
    const claimId = (read.body as { claims: Array<{ claim_id: string }> }).claims[0]!.claim_id
    const change = await fetch(`${server.url}/api/claims/${claimId}/status`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.keys.aWriter}`, "content-type": "application/json" },
      body: JSON.stringify({ status: "submitted_to_payer" })
    })
    expect(change.status).toBe(200)

    const submitted = await client.encounters.v4.getAll({ claimStatus: "submitted_to_payer" })
    if (!submitted.ok) throw new Error(`getAll submitted failed: ${JSON.stringify(submitted.error)}`)
    expect(submitted.body.items.map((e) => [String(e.encounterId), e.claims[0]?.status])).toEqual([[id, "submitted_to_payer"]])

    const types = ["ExternalApi.Encounter.Created", "ExternalApi.Encounter.StatusUpdated"]
    const scan = await client.events.v1.scan({ eventTypes: types, limit: 10 })
    const { url } = lastRequest()
    expect(url.pathname).toBe("/api/encounters/compat-version/events")
    expect(url.searchParams.getAll("event_types")).toEqual(types)
    expect(url.searchParams.get("limit")).toBe("10")
    if (!scan.ok) throw new Error(`scan failed: ${JSON.stringify(scan.error)}`)
    expect(scan.body.items.length).toBe(10)
    expect(scan.body.nextPageToken).toBeDefined()

    const all = [...scan.body.items]
    let token = scan.body.nextPageToken ?? undefined
    while (token !== undefined && all.length < 100) {
      const next = await client.events.v1.scan({ eventTypes: types, limit: 10, pageToken: CandidApi.PageToken(token) })
      expect(lastRequest().url.searchParams.get("page_token")).toBe(token)
      if (!next.ok) throw new Error(`scan page failed: ${JSON.stringify(next.error)}`)
      all.push(...next.body.items)
      token = next.body.nextPageToken ?? undefined
    }
    expect(all.filter((e) => e.eventType === types[0]).length).toBe(COUNT)
    const updated = all.filter((e) => e.eventType === types[1])
    expect(updated.map((e) => (e.payload as { encounter_id?: string }).encounter_id)).toEqual([id])

    const only = await client.events.v1.scan({ eventTypes: [types[1]!], limit: 10 })
    if (!only.ok) throw new Error(`scan StatusUpdated failed: ${JSON.stringify(only.error)}`)
    expect(only.body.items.map((e) => e.eventType)).toEqual([types[1]!])

    const got = await client.events.v1.get(CandidApi.events.v1.EventId(String(updated[0]!.id)))
    expect(lastRequest().url.pathname).toBe(`/api/encounters/compat-version/events/${String(updated[0]!.id)}`)
    if (!got.ok) throw new Error(`events get failed: ${JSON.stringify(got.error)}`)
    expect(String(got.body.id)).toBe(String(updated[0]!.id))
    expect(got.body.eventType).toBe(types[1]!)
  })
})
