import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { type CandidApi, serialization } from "candidhealth"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Create, featuresOf, getJson, makeCreates, npiCheckDigit, postEncounter, toWire } from "./sdk-generator.js"

/**
 * Typed vendor create objects → the SDK's serializer → POST /api/encounters → GET compat-version →
 * the SDK's strict parser → the typed fields compared with what was sent.
 */

const S = serialization
type Encounter = CandidApi.encounters.v4.Encounter
type ParseOpts = Parameters<typeof S.encounters.v4.Encounter.parseOrThrow>[1]

const COUNT = 36
const cases: Array<Create> = makeCreates(20_241_122, COUNT, "r1")
/** external id → encounter id, filled by the create tests. */
const created = new Map<string, string>()

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

/** Strict, except that the service's `draft` (not a vendor ClaimStatus) needs enum leniency. */
const optsFor = (json: unknown): ParseOpts => {
  const claims = (json as { claims?: Array<{ status?: unknown }> }).claims
  return claims?.[0]?.status === "draft" ? { allowUnrecognizedEnumValues: true } : {}
}
const parseEncounter = (json: unknown): Encounter => S.encounters.v4.Encounter.parseOrThrow(json, optsFor(json))

const npiOf = (p: { readonly npi?: string } | undefined) => p?.npi

const compare = (sent: Create, got: Encounter): void => {
  expect(String(got.externalId)).toBe(String(sent.externalId))
  expect(got.billableStatus).toBe(sent.billableStatus)
  expect(got.responsibleParty).toBe(sent.responsibleParty)
  expect(got.placeOfServiceCode).toBe(sent.placeOfServiceCode)
  expect(got.patientAuthorizedRelease).toBe(sent.patientAuthorizedRelease)

  const { patient } = got
  expect([patient.firstName, patient.lastName, patient.gender, patient.dateOfBirth]).toEqual([
    sent.patient.firstName,
    sent.patient.lastName,
    sent.patient.gender,
    sent.patient.dateOfBirth
  ])
  expect(String(patient.externalId)).toBe(sent.patient.externalId)
  expect(patient.address).toEqual(sent.patient.address)

  expect(got.billingProvider.npi).toBe(sent.billingProvider.npi)
  expect(got.billingProvider.taxId).toBe(sent.billingProvider.taxId)
  expect(got.billingProvider.address).toEqual(sent.billingProvider.address)
  expect(got.renderingProvider.npi).toBe(sent.renderingProvider.npi)

  expect(got.diagnoses.map((d) => [d.code, d.codeType])).toEqual(sent.diagnoses.map((d) => [d.code, d.codeType]))

  const claim = got.claims[0]
  expect(claim).toBeDefined()
  expect(String(claim?.status)).toBe(sent.billableStatus === "BILLABLE" ? "draft" : "not_billable")
  const lines = sent.serviceLines ?? []
  const out = claim?.serviceLines ?? []
  expect(out.length).toBe(lines.length)
  lines.forEach((l, i) => {
    const o = out[i]!
    expect(o.procedureCode).toBe(l.procedureCode)
    expect(String(o.quantity)).toBe(String(l.quantity))
    expect(o.units).toBe(l.units)
    expect(o.modifiers).toEqual(l.modifiers)
    expect(o.chargeAmountCents).toBe(l.chargeAmountCents)
    // A line without its own date takes the encounter's, else the day it was recorded.
    expect(o.dateOfService).toBe(sent.dateOfService ?? got.createdAt.toISOString().slice(0, 10))
    const ids = [o.diagnosisIdZero, o.diagnosisIdOne, o.diagnosisIdTwo, o.diagnosisIdThree].map((x) =>
      x === undefined ? undefined : String(x)
    )
    const expected = l.diagnosisPointers.map((ptr) => String(got.diagnoses[ptr]!.diagnosisId))
    expect(ids).toEqual([...expected, ...Array<undefined>(4 - expected.length).fill(undefined)])
  })

  const card = (s: CandidApi.Subscriber | undefined) =>
    s === undefined ? undefined : [s.insuranceCard.memberId, s.insuranceCard.payerId, s.insuranceCard.payerName]
  const sentCard = (s: CandidApi.SubscriberCreate | undefined) =>
    s === undefined ? undefined : [s.insuranceCard.memberId, s.insuranceCard.payerId, s.insuranceCard.payerName]
  expect(card(got.subscriberPrimary)).toEqual(sentCard(sent.subscriberPrimary))
  expect(card(got.subscriberSecondary)).toEqual(sentCard(sent.subscriberSecondary))

  if (sent.serviceFacility !== undefined) {
    expect(got.serviceFacility.organizationName).toBe(sent.serviceFacility.organizationName)
  }
  expect(npiOf(got.referringProvider)).toBe(npiOf(sent.referringProvider))
  expect(npiOf(got.supervisingProvider)).toBe(npiOf(sent.supervisingProvider))
}

describe("generator sanity", () => {
  test("the NPI check digit matches known valid NPIs", () => {
    expect(npiCheckDigit("123456789")).toBe(3) // 1234567893
    expect(npiCheckDigit("254559340")).toBe(4) // 2545593404
  })

  test("the cases cover every feature and serialize strictly", () => {
    const fs = cases.map((_, i) => featuresOf(i))
    for (const key of ["insurance", "billable", "lines", "secondary", "facility", "referring", "supervising"] as const) {
      expect(fs.some((f) => f[key])).toBe(true)
      expect(fs.some((f) => !f[key])).toBe(true)
    }
    const lines = cases.flatMap((c) => c.serviceLines ?? [])
    expect(new Set(lines.map((l) => l.units))).toEqual(new Set(["UN", "MJ"]))
    expect(new Set(lines.map((l) => String(l.quantity)))).toEqual(new Set(["1", "0.5", "2"]))
    expect(lines.some((l) => (l.modifiers?.length ?? 0) > 1)).toBe(true)
    expect(lines.some((l) => l.diagnosisPointers.length === 4)).toBe(true)
    expect(lines.some((l) => l.diagnosisPointers.some((p) => p > 0))).toBe(true)
    for (const c of cases) {
      // The wire form parses back strictly as a vendor EncounterCreate.
      expect(S.encounters.v4.EncounterCreate.parse(JSON.parse(toWire(c))).ok).toBe(true)
    }
  })
})

describe("SDK create → POST → compat read → SDK strict parse", () => {
  cases.forEach((sent, i) => {
    const f = featuresOf(i)
    const label = [
      f.insurance ? "insurance" : "self-pay",
      f.billable ? "billable" : "not-billable",
      f.lines ? `${sent.serviceLines?.length ?? 0} line(s)` : "no lines",
      f.secondary ? "secondary" : "",
      f.facility ? "facility" : "",
      f.referring ? "referring" : "",
      f.supervising ? "supervising" : ""
    ].filter((s) => s !== "")
    test(`${String(sent.externalId)} (${label.join(", ")})`, async () => {
      const body = toWire(sent)
      const first = await postEncounter(server.url, server.keys.a, body)
      expect(first.status).toBe(202)
      const id = String(first.body.encounter_id)
      expect(first.body.encounterId).toBe(id)
      created.set(String(sent.externalId), id)

      const read = await getJson(server.url, server.keys.a, `/api/encounters/compat-version/${id}`)
      expect(read.status).toBe(200)
      const got = parseEncounter(read.body)
      expect(String(got.encounterId)).toBe(id)
      compare(sent, got)
      if (sent.billableStatus === "NOT_BILLABLE") {
        // `not_billable` is a vendor status: no allowance at all.
        expect(() => S.encounters.v4.Encounter.parseOrThrow(read.body)).not.toThrow()
      }

      const replay = await postEncounter(server.url, server.keys.a, body)
      expect(replay.status).toBe(200)
      expect(replay.body).toEqual({ encounter_id: id, encounterId: id, duplicate: true })
    })
  })
})

describe("compat list and events", () => {
  test("the list, followed to the end with limit=7, parses strictly and holds every id once", async () => {
    const seen: Array<string> = []
    let token: string | undefined
    let pages = 0
    do {
      const q = new URLSearchParams({ limit: "7" })
      if (token !== undefined) q.set("page_token", token)
      const res = await getJson(server.url, server.keys.a, `/api/encounters/compat-version?${q}`)
      expect(res.status).toBe(200)
      const page = S.encounters.v4.EncounterPage.parseOrThrow(res.body, { allowUnrecognizedEnumValues: true })
      const raw = res.body as { items: Array<unknown> }
      expect(raw.items.length).toBeLessThanOrEqual(7)
      for (const item of raw.items) seen.push(String(parseEncounter(item).encounterId))
      token = page.nextPageToken ?? undefined
      pages++
    } while (token !== undefined && pages < 50)
    expect(pages).toBe(Math.ceil(COUNT / 7))
    expect(seen.length).toBe(COUNT)
    expect(new Set(seen).size).toBe(COUNT)
    expect(new Set(seen)).toEqual(new Set(created.values()))
  })

  test("claim_status filters: not_billable matches, vendor-only paid and coded are accepted and empty", async () => {
    const notBillable = cases.filter((c) => c.billableStatus === "NOT_BILLABLE").length
    const nb = await getJson(server.url, server.keys.a, "/api/encounters/compat-version?claim_status=not_billable&limit=100")
    expect(nb.status).toBe(200)
    const page = S.encounters.v4.EncounterPage.parseOrThrow(nb.body)
    expect(page.items.length).toBe(notBillable)
    for (const status of ["paid", "coded"]) {
      const res = await getJson(server.url, server.keys.a, `/api/encounters/compat-version?claim_status=${status}`)
      expect(res.status).toBe(200)
      expect(S.encounters.v4.EncounterPage.parseOrThrow(res.body).items).toEqual([])
    }
    const one = cases[5]!
    const byExt = await getJson(
      server.url,
      server.keys.a,
      `/api/encounters/compat-version?external_id=${encodeURIComponent(String(one.externalId))}`
    )
    const items = (byExt.body as { items: Array<unknown> }).items
    expect(items.map((x) => String(parseEncounter(x).externalId))).toEqual([String(one.externalId)])
  })

  test("events: every item parses as a vendor Event, pages parse as EventScanPage, one Created per encounter", async () => {
    const createdFor: Array<string> = []
    let firstId: string | undefined
    let token: string | undefined
    let pages = 0
    do {
      const q = new URLSearchParams({ limit: "10", event_types: "ExternalApi.Encounter.Created" })
      if (token !== undefined) q.set("page_token", token)
      const res = await getJson(server.url, server.keys.a, `/api/encounters/compat-version/events?${q}`)
      expect(res.status).toBe(200)
      const page = S.events.v1.EventScanPage.parseOrThrow(res.body, { unrecognizedObjectKeys: "passthrough" })
      for (const item of (res.body as { items: Array<unknown> }).items) {
        const ev = S.events.v1.Event.parseOrThrow(item)
        expect(ev.eventType).toBe("ExternalApi.Encounter.Created")
        firstId ??= String(ev.id)
        createdFor.push(String((ev.payload as { encounter_id?: unknown }).encounter_id))
      }
      token = page.nextPageToken ?? undefined
      pages++
    } while (token !== undefined && pages < 50)
    // Replays record no event: exactly one Created per encounter.
    expect(createdFor.length).toBe(COUNT)
    expect(new Set(createdFor)).toEqual(new Set(created.values()))

    const one = await getJson(server.url, server.keys.a, `/api/encounters/compat-version/events/${firstId}`)
    expect(one.status).toBe(200)
    expect(String(S.events.v1.Event.parseOrThrow(one.body).id)).toBe(String(firstId))

    const old = await getJson(server.url, server.keys.a, "/api/encounters/compat-version/events?created_before=2000-01-01T00:00:00Z")
    expect(old.status).toBe(200)
    expect(S.events.v1.EventScanPage.parseOrThrow(old.body, { unrecognizedObjectKeys: "passthrough" }).items).toEqual([])
    const recent = await getJson(server.url, server.keys.a, "/api/encounters/compat-version/events?created_after=2000-01-01T00:00:00Z&limit=100")
    expect((recent.body as { items: Array<unknown> }).items.length).toBe(COUNT)
  })
})
