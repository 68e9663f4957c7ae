import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { REMITTANCES_SHOWN } from "../../lib/domain/remittance.js"
import { api, ensureBinary, removeTemps, type RunningBinary, runCli, startBinary, tempDb } from "../support/binary.js"
import { BOMB_LIMIT as LIMIT, type BombClaim, filesAtLimit, prepareBombTarget, unknownPcn } from "../support/x12-bomb-target.js"
import { bomb835, bomb999Ik4, bomb999Sets, boundedUnderLoad, importsUnderLoad, reportUnderLoad } from "../support/x12-bombs.js"

/**
 * The security review's hostile files against the compiled binary (its server on a SQLite file,
 * as shipped) at the 10 MiB body limit: each is answered, again and again, while two other
 * clients' /healthz keep being answered; what each stores is bounded; the files list summaries;
 * the outcomes and a claim's remittances are paged over HTTP and through the CLI. How fast (each
 * answer within 2 s, /healthz within 250 ms at the 99th percentile) is measured by
 * `bench/x12-bombs.ts` on the same files, not asserted here: a timing depends on the machine.
 */

const SLOW = 120_000
const CLAIMS = 100

let db: string
let server: RunningBinary
let key: string
let group: number
let claims: ReadonlyArray<BombClaim> = []

beforeAll(async () => {
  ensureBinary()
  db = tempDb("x12-bounds")
  server = await startBinary({ db, args: ["--rate-limit", "0"] })
  ;({ key, group, claims } = await prepareBombTarget(server.url, db, CLAIMS, "bin-bounds"))
}, SLOW)

afterAll(async () => {
  await server?.stop()
  removeTemps()
})

/** A fresh ISA13 per file, so no import is a duplicate of another. */
const atLimit = filesAtLimit()
const under = { statuses: [200], measured: "at least 100" }

describe("encounterd binary: hostile X12 files at the 10 MiB limit", () => {
  test("80,000+ IK4s in one 999: imported while /healthz is answered, one outcome per claim", async () => {
    const r = await importsUnderLoad(server.url, key, atLimit((c, n) => bomb999Ik4(c, group, n)))
    reportUnderLoad("binary: 999 of IK4s", LIMIT, r)
    expect(boundedUnderLoad(r)).toEqual(under)
    for (const a of r.answers) expect(a.body.summary.total).toBe(CLAIMS)
  }, SLOW)

  test("a 999 acknowledging the 100-claim batch over and over: 100 outcomes, not one per acknowledgment; the file list is a summary", async () => {
    const r = await importsUnderLoad(server.url, key, atLimit((c, n) => bomb999Sets(c, group, n)))
    reportUnderLoad("binary: 999 of AK2 loops", LIMIT, r)
    expect(boundedUnderLoad(r)).toEqual(under)
    const last = r.answers[r.answers.length - 1]!.body
    expect(last.summary.total).toBe(CLAIMS)
    const files = await fetch(`${server.url}/api/x12/files`, { headers: { authorization: `Bearer ${key}` } })
    const listText = await files.text()
    expect(listText.length).toBeLessThan(64 * 1024)
    const listed = JSON.parse(listText).items[0]
    expect([listed.id, listed.summary, listed.claims.length]).toEqual([last.id, last.summary, 20])

    const page = await runCli(["x12", "outcomes", last.id, "--workspace", "default", "--limit", "60"], { db })
    expect([page.code, page.json.items.length, typeof page.json.next_page_token]).toEqual([0, 60, "string"])
    const rest = await runCli(["x12", "outcomes", last.id, "--workspace", "default", "--limit", "60", "--page-token", page.json.next_page_token], { db })
    expect([rest.json.items.length, rest.json.next_page_token]).toEqual([40, null])
    const viaCli = await runCli(["x12", "files", "--workspace", "default", "--limit", "1"], { db })
    expect(viaCli.json.items[0]).toEqual(listed)
  }, SLOW)

  test("one claim's CLP repeated up to 10 MiB: refused; the claim gains no remittance", async () => {
    const target = claims[0]!
    const r = await importsUnderLoad(server.url, key, atLimit((c, n) => bomb835(c, n, () => target.pcn)))
    reportUnderLoad("binary: 835 of one claim's CLPs", LIMIT, r)
    expect(boundedUnderLoad(r)).toEqual({ ...under, statuses: [422] })
    expect(r.answers[0]!.body.detail).toContain(`the 4th CLP for patient control number ${target.pcn}`)
    const read = await api(server.url, key, `/api/encounters/${target.encounter}`)
    expect(read.body.latest_claim.remittances).toEqual([])
  }, SLOW)

  test("an 835 naming 130,000 claims no one has: imported, 1001 outcomes", async () => {
    const r = await importsUnderLoad(server.url, key, atLimit((c, n) => bomb835(c, n, unknownPcn)))
    reportUnderLoad("binary: 835 of unknown claims", LIMIT, r)
    expect(boundedUnderLoad(r)).toEqual(under)
    for (const a of r.answers) expect([a.body.summary.total, a.body.claims.length]).toEqual([1001, 1000])
  }, SLOW)

  test("a claim paid in many files: reads carry its 20 most recent remittances, the route and the CLI page all of them", async () => {
    const target = claims[1]!
    for (let f = 0; f < 8; f++) {
      const res = await fetch(`${server.url}/api/x12/inbound`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/edi-x12" },
        body: bomb835(780 + f, 3, () => target.pcn)
      })
      expect(res.status).toBe(200)
    }
    const read = await api(server.url, key, `/api/encounters/${target.encounter}`)
    expect([read.body.latest_claim.remittances.length, read.body.latest_claim.more_remittances]).toEqual([REMITTANCES_SHOWN, true])
    const first = await api(server.url, key, `/api/claims/${target.claim}/remittances?limit=20`)
    const second = await api(server.url, key, `/api/claims/${target.claim}/remittances?limit=20&page_token=${first.body.next_page_token}`)
    expect([first.body.items.length, second.body.items.length, second.body.next_page_token]).toEqual([20, 4, null])
    const viaCli = await runCli(["claims", "remittances", target.claim, "--workspace", "default", "--limit", "20"], { db })
    expect(viaCli.json.items.map((r: { id: string }) => r.id)).toEqual(first.body.items.map((r: { id: string }) => r.id))
    const bad = await runCli(["claims", "remittances", target.claim, "--workspace", "default", "--limit", "many"], { db })
    expect(bad.code).toBe(2)
  }, SLOW)
})
