import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ClaimTransitions } from "../../lib/domain/claim-status.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, errorPaths, expectProblem, expectShape, sleep, uniqueId, unknownUuid } from "./client.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const CREATED = "ExternalApi.Encounter.Created"
const UPDATED = "ExternalApi.Encounter.StatusUpdated"
const EVENTS = "/api/encounters/compat-version/events"

interface Ev {
  id: string
  created_at: string
  timestamp: string
  event_type: string
  schema_version: string
  payload: Record<string, unknown>
}
interface Made {
  id: string
  ext: string
  claim: string
}

let server: TestServer
let call: ReturnType<typeof api>
const made: Array<Made> = []

/** Every event matching `query`, following next_page_token. */
const allEvents = async (query = "", key?: string): Promise<Array<Ev>> => {
  const out: Array<Ev> = []
  let token: string | null = null
  do {
    const tokenPart: string = token === null ? "" : `&page_token=${token}`
    const res = await call("GET", `${EVENTS}?limit=100${query}${tokenPart}`, key ? { key } : {})
    expect(res.status).toBe(200)
    out.push(...res.body.items)
    token = res.body.next_page_token
  } while (token !== null)
  return out
}
const eventsOf = async (encounterId: string, query = "") => (await allEvents(query)).filter((e) => e.payload.encounter_id === encounterId)

/** Creates an encounter in workspace a and reads its claim id. */
const make = async (): Promise<Made> => {
  const ext = uniqueId("ev")
  const res = await call("POST", "/api/encounters", { body: validPayload(ext) })
  expect(res.status).toBe(202)
  const read = await call("GET", `/encounters/${res.body.encounter_id}`)
  return { id: res.body.encounter_id, ext, claim: read.body.latest_claim_id }
}
const setStatus = (claimId: string, body: unknown, key = server.keys.aWriter) =>
  call("POST", `/api/claims/${claimId}/status`, { key, body })

beforeAll(async () => {
  server = await startTestServer()
  call = api(server)
  for (let i = 0; i < 3; i++) {
    made.push(await make())
    await sleep(5) // distinct created_at for the inclusive-bound test
  }
})
afterAll(() => server.close())

describe("GET /api/encounters/compat-version/events", () => {
  test("each create records one Created event with {encounter_id, external_id, claim_id, status}, oldest first", async () => {
    const created = (await allEvents()).filter((e) => made.some((m) => m.id === e.payload.encounter_id))
    expect(created.map((e) => e.payload.encounter_id)).toEqual(made.map((m) => m.id))
    created.forEach((e, i) => {
      expect(e).toEqual({
        id: expect.stringMatching(UUID),
        created_at: expect.stringMatching(ISO_MS),
        timestamp: expect.stringMatching(ISO_MS),
        event_type: CREATED,
        schema_version: "service.compat-version.v1",
        payload: { encounter_id: made[i]!.id, external_id: made[i]!.ext, claim_id: made[i]!.claim, status: "draft" }
      })
    })
  })

  test("the feed's head polled again answers the same events, and an event added since once it is added", async () => {
    const head = `${EVENTS}?limit=100`
    const first = await call("GET", head)
    const again = await call("GET", head)
    expect(first.status).toBe(200)
    expect(again.body).toEqual(first.body)
    // Answered again from the page remembered (as one blob of its bytes): the same text, a JSON answer.
    const third = await call("GET", head)
    expect(third.text).toBe(first.text)
    expect(third.headers.get("content-type")).toBe("application/json")
    expect(Number(third.headers.get("content-length"))).toBe(Buffer.byteLength(first.text))
    // Fewer than a page of events so far: the head holds them all, and then the new one too.
    expect(first.body.next_page_token).toBeNull()
    const added = await make()
    const after = await call("GET", head)
    expect(after.body.items).toEqual([...first.body.items, expect.objectContaining({ event_type: CREATED, payload: expect.objectContaining({ encounter_id: added.id }) })])
    // Another workspace's head is its own, however often either is polled.
    const other = await call("GET", head, { key: server.keys.b })
    expect(other.status).toBe(200)
    expect(other.body.items.some((e: Ev) => e.payload.encounter_id === added.id)).toBe(false)
  })

  test("a replayed create records no event", async () => {
    const replay = await call("POST", "/api/encounters", { body: validPayload(made[0]!.ext) })
    expect(replay.status).toBe(200)
    expect((await eventsOf(made[0]!.id)).length).toBe(1)
  })

  test("created_after and created_before are inclusive: the same instant as both bounds gives exactly that event", async () => {
    const target = (await eventsOf(made[1]!.id))[0]!
    const at = encodeURIComponent(target.created_at)
    const both = await call("GET", `${EVENTS}?created_after=${at}&created_before=${at}`)
    expect(both.status).toBe(200)
    expect(both.body).toEqual({ items: [target], next_page_token: null, prev_page_token: null })
    const after = await allEvents(`&created_after=${at}`)
    expect(after[0]).toEqual(target)
    const before = await allEvents(`&created_before=${at}`)
    expect(before[before.length - 1]).toEqual(target)
  })

  for (const bad of ["yesterday", "2026-13-45T00:00:00Z", "1700000000"]) {
    test(`a bad timestamp (${bad}) is 400 invalid_parameter`, async () => {
      for (const param of ["created_after", "created_before"]) {
        const res = await call("GET", `${EVENTS}?${param}=${bad}`)
        expectProblem(res, 400, "invalid_parameter")
        expect(errorPaths(res)).toContain(param)
      }
    })
  }

  test("GET .../events/{event_id} equals the list item; unknown, malformed and other workspace's ids are 404", async () => {
    const item = (await eventsOf(made[2]!.id))[0]!
    const one = await call("GET", `${EVENTS}/${item.id}`)
    expect(one.status).toBe(200)
    expect(one.body).toEqual(item)
    await call("POST", "/api/encounters", { key: server.keys.b, body: validPayload(uniqueId("b")) })
    const bEvent = (await allEvents("", server.keys.b))[0]!
    expect(bEvent.id).toMatch(UUID)
    for (const id of [unknownUuid(), "not-an-id", bEvent.id]) {
      const res = await call("GET", `${EVENTS}/${id}`)
      expectProblem(res, 404, "not_found")
    }
  })
})

describe("POST /api/claims/{claim_id}/status", () => {
  let m: Made
  let changedAt: string
  beforeAll(async () => {
    m = await make()
  })

  test("a key without claims:write is 403 forbidden and the status stays", async () => {
    const res = await setStatus(m.claim, { status: "submitted_to_payer" }, server.keys.a)
    expectProblem(res, 403, "forbidden")
    expect((await call("GET", `/encounters/${m.id}`)).body.latest_claim.status).toBe("draft")
  })

  test("draft → submitted_to_payer is 200 with the claim in its new status, and one StatusUpdated event", async () => {
    const res = await setStatus(m.claim, { status: "submitted_to_payer", note: "sent" })
    expect(res.status).toBe(200)
    expectShape(res.body, { id: m.claim, status: "submitted_to_payer", status_changed_at: expect.stringMatching(ISO_MS) })
    expectShape(res.body.patient, { first_name: "Avery" })
    changedAt = res.body.status_changed_at
    const updates = await eventsOf(m.id, `&event_types=${UPDATED}`)
    expect(updates.length).toBe(1)
    expectShape(updates[0], { event_type: UPDATED, schema_version: "service.compat-version.v1" })
    expectShape(updates[0]!.payload, {
      encounter_id: m.id,
      external_id: m.ext,
      claim_id: m.claim,
      previous_status: "draft",
      status: "submitted_to_payer"
    })
    const enc = (await call("GET", `/encounters/${m.id}`)).body
    expectShape(enc.latest_claim, { status: "submitted_to_payer", status_changed_at: changedAt })
    expect(enc.initial_claim_status).toBe("draft")
    expect(enc.last_event_at).toBe(updates[0]!.created_at)
  })

  test("setting the same status again is a 200 no-op without a new event", async () => {
    const res = await setStatus(m.claim, { status: "submitted_to_payer" })
    expect(res.status).toBe(200)
    expectShape(res.body, { id: m.claim, status: "submitted_to_payer", status_changed_at: changedAt })
    expect((await eventsOf(m.id, `&event_types=${UPDATED}`)).length).toBe(1)
  })

  test("an illegal move is 409 invalid_transition listing the allowed moves", async () => {
    const res = await setStatus(m.claim, { status: "draft" })
    expectProblem(res, 409, "invalid_transition")
    expect([...res.body.allowed_transitions].sort()).toEqual([...ClaimTransitions.submitted_to_payer].sort())
    expect((await call("GET", `/encounters/${m.id}`)).body.latest_claim.status).toBe("submitted_to_payer")
  })

  test("an unknown or missing status is 422 validation_failed naming status", async () => {
    for (const body of [{ status: "bogus" }, {}, { status: 3 }]) {
      const res = await setStatus(m.claim, body)
      expectProblem(res, 422, "validation_failed")
      expect(errorPaths(res)).toContain("status")
    }
  })

  test("malformed JSON is 400 invalid_json", async () => {
    const res = await call("POST", `/api/claims/${m.claim}/status`, {
      key: server.keys.aWriter,
      raw: "{status:",
      headers: { "content-type": "application/json" }
    })
    expectProblem(res, 400, "invalid_json")
  })

  test("another workspace's claim, an unknown claim and a malformed id are 404 not_found", async () => {
    expectProblem(await setStatus(m.claim, { status: "rejected" }, server.keys.b), 404, "not_found")
    expectProblem(await setStatus(unknownUuid(), { status: "rejected" }), 404, "not_found")
    expectProblem(await setStatus("claim-1", { status: "rejected" }), 404, "not_found")
    expect((await call("GET", `/encounters/${m.id}`)).body.latest_claim.status).toBe("submitted_to_payer")
  })

  test("the normalized list's claim_status filter finds the encounter by its new status", async () => {
    const ids = async (status: string) =>
      (await call("GET", `/encounters?claim_status=${status}`)).body.items.map((e: { id: string }) => e.id)
    expect(await ids("submitted_to_payer")).toContain(m.id)
    expect(await ids("draft")).not.toContain(m.id)
  })
})

describe("event_types filter", () => {
  beforeAll(async () => {
    const m = await make()
    expect((await setStatus(m.claim, { status: "missing_information" })).status).toBe(200)
  })

  test("a comma list and the repeated parameter select the same events; each type alone only its own", async () => {
    const all = await allEvents()
    const created = await allEvents(`&event_types=${CREATED}`)
    const updated = await allEvents(`&event_types=${UPDATED}`)
    expect(created.length).toBeGreaterThan(0)
    expect(updated.length).toBeGreaterThan(0)
    expect(created.every((e) => e.event_type === CREATED)).toBe(true)
    expect(updated.every((e) => e.event_type === UPDATED)).toBe(true)
    expect(created.length + updated.length).toBe(all.length)
    expect(await allEvents(`&event_types=${CREATED},${UPDATED}`)).toEqual(all)
    expect(await allEvents(`&event_types=${CREATED}&event_types=${UPDATED}`)).toEqual(all)
  })

  test("an unknown type is 400 invalid_parameter, also inside a list", async () => {
    for (const q of ["ExternalApi.Encounter.Deleted", `${CREATED},Bogus`]) {
      const res = await call("GET", `${EVENTS}?event_types=${q}`)
      expectProblem(res, 400, "invalid_parameter")
      expect(errorPaths(res)).toContain("event_types")
    }
  })
})
