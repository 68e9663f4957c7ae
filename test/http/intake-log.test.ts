import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { validPayload } from "../support/payloads.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, expectProblem, uniqueId, unknownUuid } from "./client.js"

/** The intake log over HTTP, on SQLite (the binary's default) and in memory. */
for (const store of ["sqlite", "memory"] as const) {
  describe(`intake log (${store})`, () => {
    let server: TestServer
    let call: ReturnType<typeof api>
    const dir = store === "sqlite" ? mkdtempSync(join(tmpdir(), "encounterd-intake-")) : undefined
    beforeAll(async () => {
      server = await startTestServer(dir !== undefined ? { db: join(dir, "db.sqlite") } : {})
      call = api(server)
    })
    afterAll(async () => {
      await server.close()
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
    })

    test("lists every create request with its outcome, newest first; filters by outcome and external id", async () => {
      const ext = uniqueId("intake")
      const accepted = await call("POST", "/api/encounters", { body: validPayload(ext) })
      expect(accepted.status).toBe(202)
      expect((await call("POST", "/api/encounters", { body: validPayload(ext) })).status).toBe(200)
      const badExt = uniqueId("intake-bad")
      const rejected = await call("POST", "/api/encounters", { body: { ...validPayload(badExt), diagnoses: [] , patient: { first_name: 7 } } })
      expect(rejected.status).toBe(422)
      const garbled = await call("POST", "/api/encounters", { raw: "{nope", headers: { "content-type": "application/json" } })
      expect(garbled.status).toBe(400)

      const all = await call("GET", "/api/intake-requests?limit=4")
      expect(all.status).toBe(200)
      const newest = all.body.items.slice(0, 4)
      expect(newest.map((r: { outcome: string }) => r.outcome)).toEqual(["rejected", "rejected", "duplicate", "accepted"])
      for (const r of newest) expect(Object.keys(r).sort()).toEqual(["encounter_id", "errors", "external_id", "id", "outcome", "received_at"])

      const byExt = await call("GET", `/api/intake-requests?external_id=${ext}`)
      expect(byExt.body.items.map((r: { outcome: string }) => r.outcome)).toEqual(["duplicate", "accepted"])
      expect(new Set(byExt.body.items.map((r: { encounter_id: string }) => r.encounter_id))).toEqual(new Set([accepted.body.encounter_id]))

      const onlyRejected = await call("GET", `/api/intake-requests?outcome=rejected&external_id=${badExt}`)
      expect(onlyRejected.body.items.length).toBe(1)
      const entry = onlyRejected.body.items[0]
      expect(entry.encounter_id).toBeNull()
      expect(entry.errors.map((e: { path: string }) => e.path)).toContain("diagnoses")
      for (const e of entry.errors) expect([typeof e.path, typeof e.message]).toEqual(["string", "string"])

      const detail = await call("GET", `/api/intake-requests/${entry.id}`)
      expect(detail.status).toBe(200)
      expect(detail.body.content_type).toBe("application/json")
      expect(JSON.parse(detail.body.body).external_id).toBe(badExt)
      expect(detail.body.errors).toEqual(entry.errors)
    })

    test("bad filters answer 400 naming the parameter; unknown, malformed and foreign ids answer 404", async () => {
      const badOutcome = await call("GET", "/api/intake-requests?outcome=lost")
      expectProblem(badOutcome, 400, "invalid_parameter")
      expect(badOutcome.body.errors.map((e: { path: string }) => e.path)).toEqual(["outcome"])
      const badTime = await call("GET", "/api/intake-requests?received_after=yesterday")
      expectProblem(badTime, 400, "invalid_parameter")
      expect(badTime.body.errors.map((e: { path: string }) => e.path)).toEqual(["received_after"])
      expectProblem(await call("GET", "/api/intake-requests?page_token=garbage!"), 400, "invalid_parameter")
      expectProblem(await call("GET", `/api/intake-requests/${unknownUuid()}`), 404, "not_found")
      expectProblem(await call("GET", "/api/intake-requests/not-a-uuid"), 404, "not_found")
      expectProblem(await call("GET", "/api/intake-requests", { key: null }), 401, "unauthorized")
    })

    test("a body with hundreds of problems is answered and stored with the first 100 and too_many_problems", async () => {
      const ext = uniqueId("intake-many")
      const res = await call("POST", "/api/encounters", { body: validPayload(ext, { service_lines: Array(200).fill({}) }) })
      expectProblem(res, 422, "validation_failed")
      expect(res.body.errors.length).toBe(101)
      expect(res.body.errors[100]).toEqual({ path: "$", message: expect.stringMatching(/^at least \d+ problems were found; the first 100 are listed$/), code: "too_many_problems" })
      expect(res.body.errors.slice(0, 100).every((e: object) => !("code" in e))).toBe(true)
      const stored = await call("GET", `/api/intake-requests?external_id=${ext}`)
      expect(stored.body.items.length).toBe(1)
      expect(stored.body.items[0].errors).toEqual(res.body.errors)
      const detail = await call("GET", `/api/intake-requests/${stored.body.items[0].id}`)
      expect(detail.body.errors).toEqual(res.body.errors)
    })

    test("workspace isolation: another workspace neither lists nor reads this one's requests", async () => {
      const ext = uniqueId("isolated")
      expect((await call("POST", "/api/encounters", { body: validPayload(ext) })).status).toBe(202)
      const mine = await call("GET", `/api/intake-requests?external_id=${ext}`)
      expect(mine.body.items.length).toBe(1)
      const theirs = await call("GET", `/api/intake-requests?external_id=${ext}`, { key: server.keys.b })
      expect(theirs.status).toBe(200)
      expect(theirs.body.items).toEqual([])
      expectProblem(await call("GET", `/api/intake-requests/${mine.body.items[0].id}`, { key: server.keys.b }), 404, "not_found")
    })
  })
}
