import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { REMITTANCES_SHOWN } from "../../lib/domain/remittance.js"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { bomb835, bomb999Ik4, bomb999Sets, repetitionsUnder } from "../support/x12-bombs.js"
import { api, expectProblem, unknownUuid } from "./client.js"

/**
 * The hostile files of the security review, over HTTP on a SQLite file at the 10 MiB body limit:
 * what they store is bounded, the files list summaries, outcomes and remittances are paged on their
 * own routes. How fast they are answered, and how fast /healthz answers meanwhile, is asserted on
 * the compiled binary (test/binary/x12-bounds.test.ts): here the server shares the test's process
 * and event loop with its clients, so its timings say more about the test than the server.
 */

const LIMIT = 10 * 1024 * 1024
const SLOW = 60_000
const CLAIMS = 100

let dir: string
let server: TestServer
let call: ReturnType<typeof api>
let group: number
const claims: Array<{ encounter: string; claim: string; pcn: string }> = []
const writer = () => ({ key: server.keys.aWriter })
const x12 = (text: string) => ({ ...writer(), raw: text, headers: { "content-type": "application/edi-x12" } })
const pcn = (i: number) => `PCN${String(i).padStart(7, "0")}`
/** A fresh ISA13 per file, so no import is a duplicate of another. */
let icn = 900
/** The file `make` makes at the body limit, under a fresh ISA13. */
const atLimit = (make: (icn: number, n: number) => string) => () => {
  const control = ++icn
  return make(control, repetitionsUnder(LIMIT, (n) => make(control, n)))
}
/** Imports one file at the body limit. */
const importAtLimit = (make: (icn: number, n: number) => string) => call("POST", "/api/x12/inbound", x12(atLimit(make)()))

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "encounterd-x12-bounds-"))
  server = await startTestServer({ db: join(dir, "x12.sqlite") })
  call = api(server)
  expect((await call("PUT", "/api/workspace/clearinghouse", { ...writer(), body: clearinghouseSettingsInput })).status).toBe(200)
  for (let i = 0; i < CLAIMS; i++) {
    const created = await call("POST", "/api/encounters", { body: exportablePayload(`bounds-${i}`, pcn(i)) })
    const read = await call("GET", `/api/encounters/${created.body.encounter_id}`)
    claims.push({ encounter: created.body.encounter_id, claim: read.body.latest_claim_id, pcn: pcn(i) })
  }
  const batch = await call("POST", "/api/x12/837p-batches", { ...writer(), body: { claim_ids: claims.map((c) => c.claim) } })
  expect(batch.status).toBe(201)
  group = batch.body.group_control_number
}, SLOW)
afterAll(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

describe("hostile files at the 10 MiB limit", () => {
  test("a 999 of IK4 element errors: one outcome per claim of the set", async () => {
    const r = await importAtLimit((c, n) => bomb999Ik4(c, group, n))
    expect([r.status, r.body.summary.total]).toEqual([200, CLAIMS])
    expect(r.body.claims.every((c: { outcome: string }) => c.outcome === "status_changed")).toBe(true)
  }, SLOW)

  test("a 999 acknowledging the batch's set over and over: one outcome per claim, the list of files a summary, the outcomes paged", async () => {
    const r = await importAtLimit((c, n) => bomb999Sets(c, group, n))
    expect([r.status, r.body.summary.total]).toEqual([200, CLAIMS])
    expect(r.body.claims[0].detail).toMatch(/named \d+ times in this file; the last entry kept/)
    const files = await call("GET", "/api/x12/files")
    expect(files.text.length).toBeLessThan(64 * 1024)
    expect(files.body.items[0]).toMatchObject({ id: r.body.id, kind: "999", summary: r.body.summary })
    expect(files.body.items[0].claims.length).toBe(20)
    // Every outcome, paged in file order, once.
    const seen: Array<string> = []
    let page = await call("GET", `/api/x12/files/${r.body.id}/outcomes?limit=30`)
    seen.push(...page.body.items.map((o: { claim_id: string }) => o.claim_id))
    while (page.body.next_page_token !== null) {
      page = await call("GET", `/api/x12/files/${r.body.id}/outcomes?limit=30&page_token=${page.body.next_page_token}`)
      seen.push(...page.body.items.map((o: { claim_id: string }) => o.claim_id))
    }
    expect([seen.length, new Set(seen).size]).toEqual([CLAIMS, CLAIMS])
    expect((await call("GET", `/api/x12/files/${r.body.id}`)).body).toEqual(files.body.items[0])
  }, SLOW)

  test("an 835 repeating one claim's CLP: refused, nothing stored on the claim", async () => {
    const target = claims[0]!
    const r = await importAtLimit((c, n) => bomb835(c, n, () => target.pcn))
    expectProblem(r, 422, "invalid_x12")
    expect(r.body.detail).toContain(`the 4th CLP for patient control number ${target.pcn}`)
    const read = await call("GET", `/api/encounters/${target.encounter}`)
    expect([read.body.latest_claim.remittances, read.body.latest_claim.more_remittances]).toEqual([[], false])
    expect((await call("GET", "/api/x12/files?limit=1")).body.items[0]).toMatchObject({ kind: "invalid", summary: { total: 0 } })
  }, SLOW)

  test("an 835 naming claims no one has: 1001 outcomes, the answer listing 1000", async () => {
    const unknown = (i: number) => `UNK${String(i).padStart(7, "0")}`
    const r = await importAtLimit((c, n) => bomb835(c, n, unknown))
    expect([r.status, r.body.summary.total, r.body.summary.unmatched, r.body.claims.length]).toEqual([200, 1001, 1001, 1000])
  }, SLOW)
})

describe("a claim's remittances", () => {
  test(`reads carry the ${REMITTANCES_SHOWN} most recent and say there are more; the route pages them all, newest first`, async () => {
    const target = claims[1]!
    // Eight 835s, each with three CLPs for the claim (the most one file may carry).
    for (let f = 0; f < 8; f++) {
      const res = await call("POST", "/api/x12/inbound", x12(bomb835(980 + f, 3, () => target.pcn)))
      expect(res.status).toBe(200)
    }
    const read = (await call("GET", `/api/encounters/${target.encounter}`)).body.latest_claim
    expect([read.remittances.length, read.more_remittances]).toEqual([REMITTANCES_SHOWN, true])
    const compat = (await call("GET", `/api/encounters/compat-version/${target.encounter}`)).body
    expect(compat.claims[0].eras.length).toBe(REMITTANCES_SHOWN)
    const listed = (await call("GET", "/api/encounters?limit=100")).body.items.find((e: { id: string }) => e.id === target.encounter)
    expect(listed.latest_claim.remittances.length).toBe(REMITTANCES_SHOWN)

    const all: Array<string> = []
    let page = await call("GET", `/api/claims/${target.claim}/remittances?limit=7`)
    all.push(...page.body.items.map((r: { id: string }) => r.id))
    while (page.body.next_page_token !== null) {
      page = await call("GET", `/api/claims/${target.claim}/remittances?limit=7&page_token=${page.body.next_page_token}`)
      all.push(...page.body.items.map((r: { id: string }) => r.id))
    }
    expect([all.length, new Set(all).size]).toEqual([24, 24])
    // The read's remittances are the newest, oldest first.
    expect(read.remittances.map((r: { id: string }) => r.id)).toEqual(all.slice(0, REMITTANCES_SHOWN).reverse())
    const back = await call("GET", `/api/claims/${target.claim}/remittances?limit=7&page_token=${page.body.prev_page_token}`)
    expect(back.body.items.map((r: { id: string }) => r.id)).toEqual(all.slice(14, 21))

    expectProblem(await call("GET", `/api/claims/${target.claim}/remittances`, { key: server.keys.b }), 404, "not_found")
    expectProblem(await call("GET", `/api/claims/${unknownUuid()}/remittances`), 404, "not_found")
    expectProblem(await call("GET", `/api/claims/${target.claim}/remittances?limit=101`), 400, "invalid_parameter")
    expectProblem(await call("GET", `/api/claims/${target.claim}/remittances?page_token=nope`), 400, "invalid_parameter")
    expectProblem(await call("GET", `/api/claims/${claims[2]!.claim}/remittances?page_token=${page.body.prev_page_token}`), 400, "invalid_parameter")
  }, SLOW)

  test("a file's outcomes: another workspace's file and bad pages are refused", async () => {
    const file = (await call("GET", "/api/x12/files?limit=1")).body.items[0]
    expectProblem(await call("GET", `/api/x12/files/${file.id}/outcomes`, { key: server.keys.b }), 404, "not_found")
    expectProblem(await call("GET", `/api/x12/files/${unknownUuid()}/outcomes`), 404, "not_found")
    expectProblem(await call("GET", `/api/x12/files/${file.id}/outcomes?limit=0`), 400, "invalid_parameter")
    expectProblem(await call("GET", `/api/x12/files/${file.id}/outcomes?page_token=%%%`), 400, "invalid_parameter")
  })
})
