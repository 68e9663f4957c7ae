import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { type SeededExchange, seedExchange } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { api, expectProblem, unknownUuid } from "./client.js"
import { consoleCall, signInConsole } from "./console-support.js"

/** The console's clearinghouse reads: the API's lists and file behind the session, read-only, any key. */

let server: TestServer
let seeded: SeededExchange

beforeAll(async () => {
  server = await startTestServer()
  seeded = await seedExchange(server.url, server.keys.aWriter)
})
afterAll(() => server.close())

describe("console clearinghouse", () => {
  test("batches and files as the API lists them, to a key without claims:write", async () => {
    const s = await signInConsole(server, server.keys.a)
    const batches = await consoleCall(server, s, "GET", "/console/api/x12/batches")
    expect(batches.body).toEqual((await api(server)("GET", "/api/x12/837p-batches")).body)
    expect(batches.body.items.map((b: { id: string; claim_ids: ReadonlyArray<string> }) => [b.id, b.claim_ids.length])).toEqual([[seeded.batchId, 4]])
    const files = await consoleCall(server, s, "GET", "/console/api/x12/files")
    expect(files.body).toEqual((await api(server)("GET", "/api/x12/files")).body)
    expect(files.body.items.map((f: { kind: string }) => f.kind)).toEqual(["invalid", "277CA", "999"])
    expect(files.body.items[0].error).toContain("SE")
    const paged = await consoleCall(server, s, "GET", "/console/api/x12/files?limit=2")
    const rest = await consoleCall(server, s, "GET", `/console/api/x12/files?limit=2&page_token=${paged.body.next_page_token}`)
    expect([...paged.body.items, ...rest.body.items].map((f: { id: string }) => f.id)).toEqual(files.body.items.map((f: { id: string }) => f.id))
  })

  test("one file with what it did to each claim; a batch's 837P as a download, byte for byte", async () => {
    const s = await signInConsole(server, server.keys.a)
    const [ack277] = seeded.fileIds
    const file = await consoleCall(server, s, "GET", `/console/api/x12/files/${ack277}`)
    expect(file.body).toEqual((await api(server)("GET", `/api/x12/files/${ack277}`)).body)
    expect(file.body.claims.map((c: { patient_control_number: string; outcome: string }) => c.outcome)).toContain("unmatched")
    const download = await fetch(`${server.url}/console/api/x12/batches/${seeded.batchId}/file`, { headers: { cookie: s.cookie } })
    expect([download.status, download.headers.get("content-type"), download.headers.get("content-disposition")]).toEqual([
      200,
      "application/edi-x12",
      `attachment; filename="837p-${String(seeded.interchangeControlNumber).padStart(9, "0")}.x12"`
    ])
    const viaApi = await fetch(`${server.url}/api/x12/837p-batches/${seeded.batchId}/file`, { headers: { authorization: `Bearer ${server.keys.a}` } })
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(new Uint8Array(await viaApi.arrayBuffer()))
    expect(download.headers.get("cache-control")).toBe("no-store")
  })

  test("another workspace's batch and file are not found, nor listed; without a session nothing is read", async () => {
    const s = await signInConsole(server, server.keys.b)
    expectProblem(await consoleCall(server, s, "GET", `/console/api/x12/files/${seeded.fileIds[0]}`), 404, "not_found")
    expectProblem(await consoleCall(server, s, "GET", `/console/api/x12/files/${unknownUuid()}`), 404, "not_found")
    expectProblem(await consoleCall(server, s, "GET", `/console/api/x12/batches/${seeded.batchId}/file`), 404, "not_found")
    expect((await consoleCall(server, s, "GET", "/console/api/x12/batches")).body.items).toEqual([])
    expect((await consoleCall(server, s, "GET", "/console/api/x12/files")).body.items).toEqual([])
    expectProblem(await consoleCall(server, undefined, "GET", "/console/api/x12/files"), 401, "session_required")
  })
})
