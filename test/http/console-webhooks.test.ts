import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { parseRetrySchedule } from "../../lib/webhooks/schedule.js"
import { seedEncounters } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { startReceiver } from "../webhooks/receiver.js"
import { api, expectProblem, sleep, unknownUuid } from "./client.js"
import { consoleCall, signInConsole } from "./console-support.js"

/**
 * The console's webhook endpoints: the API's rules behind the session, the scope webhooks:write
 * for reads and retries alike, CSRF on the retry, and a retry that makes one more attempt. One
 * attempt per delivery (schedule "0s"), to a receiver that always fails: a delivery fails at once.
 */

const schedule = parseRetrySchedule("0s")
if (schedule._tag === "Left") throw schedule.left

let server: TestServer
const receiver = startReceiver(() => "whsec_unused")
let endpointId = ""

interface DeliveryRow {
  readonly id: string
  readonly status: string
  readonly attempts: number
}
const deliveriesOf = async (key: string): Promise<ReadonlyArray<DeliveryRow>> =>
  (await api(server)("GET", `/api/webhooks/endpoints/${endpointId}/deliveries`, { key })).body.items

/** Polls until `check` holds (5 s at most). */
const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean): Promise<A> => {
  const until = Date.now() + 5000
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > until) throw new Error(`not within 5 s; last: ${JSON.stringify(value)}`)
    await sleep(25)
  }
}

beforeAll(async () => {
  server = await startTestServer({ webhooks: { allowPrivate: true, schedule: schedule.right, timeoutMs: 1000 }, worker: { pollMs: 50 } })
  const made = await api(server)("POST", "/api/webhooks/endpoints", {
    key: server.keys.aHooks,
    body: { url: receiver.url("/fail"), description: "Billing system" }
  })
  endpointId = made.body.id
  await seedEncounters(server.url, server.keys.aWriter, 2, "hook")
  await eventually(() => deliveriesOf(server.keys.aHooks), (ds) => ds.length === 2 && ds.every((d) => d.status === "failed"))
})
afterAll(async () => {
  await server.close()
  receiver.stop()
})

describe("console webhooks", () => {
  test("without webhooks:write every webhook route is refused (403), reads included", async () => {
    const s = await signInConsole(server, server.keys.aWriter)
    const [delivery] = await deliveriesOf(server.keys.aHooks)
    for (const [method, path] of [
      ["GET", "/console/api/webhooks/endpoints"],
      ["GET", `/console/api/webhooks/endpoints/${endpointId}`],
      ["GET", `/console/api/webhooks/endpoints/${endpointId}/deliveries`],
      ["POST", `/console/api/webhooks/deliveries/${delivery!.id}/retry`],
      ["GET", `/console/api/webhooks/deliveries/${delivery!.id}`]
    ] as const) {
      expectProblem(await consoleCall(server, s, method, path), 403, "forbidden")
    }
    expect((await deliveriesOf(server.keys.aHooks)).find((d) => d.id === delivery!.id)?.attempts).toBe(1)
  })

  test("endpoints and their deliveries, as the API lists them, never a secret; the status filter applies", async () => {
    const s = await signInConsole(server, server.keys.aHooks)
    const list = await consoleCall(server, s, "GET", "/console/api/webhooks/endpoints")
    expect(list.body.items).toEqual([
      expect.objectContaining({ id: endpointId, url: receiver.url("/fail"), description: "Billing system", event_types: [], status: "enabled", disabled_reason: null })
    ])
    const one = await consoleCall(server, s, "GET", `/console/api/webhooks/endpoints/${endpointId}`)
    for (const text of [list.text, one.text]) expect(text).not.toContain("secret")
    const failed = await consoleCall(server, s, "GET", `/console/api/webhooks/endpoints/${endpointId}/deliveries?status=failed`)
    expect(failed.body.items.map((d: { status: string; attempts: number; last_response_status: number }) => [d.status, d.attempts, d.last_response_status])).toEqual([
      ["failed", 1, 500],
      ["failed", 1, 500]
    ])
    const listed = await deliveriesOf(server.keys.aHooks)
    expect(failed.body.items.map((d: { id: string }) => d.id)).toEqual(listed.map((d) => d.id))
    const pending = await consoleCall(server, s, "GET", `/console/api/webhooks/endpoints/${endpointId}/deliveries?status=pending`)
    expect(pending.body.items).toEqual([])
    const paged = await consoleCall(server, s, "GET", `/console/api/webhooks/endpoints/${endpointId}/deliveries?limit=1`)
    expect(paged.body.items.length).toBe(1)
    const next = await consoleCall(server, s, "GET", `/console/api/webhooks/endpoints/${endpointId}/deliveries?limit=1&page_token=${paged.body.next_page_token}`)
    expect([...paged.body.items, ...next.body.items].map((d: { id: string }) => d.id)).toEqual(listed.map((d) => d.id))
    expectProblem(await consoleCall(server, s, "GET", `/console/api/webhooks/endpoints/${endpointId}/deliveries?status=lost`), 400, "invalid_parameter")
  })

  test("a retry needs the CSRF token; then the delivery gets one more attempt", async () => {
    const s = await signInConsole(server, server.keys.aHooks)
    const [delivery] = await deliveriesOf(server.keys.aHooks)
    const path = `/console/api/webhooks/deliveries/${delivery!.id}/retry`
    expectProblem(await consoleCall(server, s, "POST", path, { csrf: null }), 403, "csrf_failed")
    expectProblem(await consoleCall(server, s, "POST", path, { headers: { origin: "https://evil.example" } }), 403, "csrf_failed")
    expect((await deliveriesOf(server.keys.aHooks)).find((d) => d.id === delivery!.id)).toMatchObject({ status: "failed", attempts: 1 })
    const before = receiver.received.length
    const retried = await consoleCall(server, s, "POST", path)
    expect([retried.status, retried.body.id, retried.body.status]).toEqual([202, delivery!.id, "pending"])
    const after = await eventually(
      () => deliveriesOf(server.keys.aHooks),
      (ds) => ds.find((d) => d.id === delivery!.id)?.attempts === 2
    )
    expect(after.find((d) => d.id === delivery!.id)?.status).toBe("failed")
    expect(receiver.received.length).toBe(before + 1)
    // The one delivery, as the page reads it again after a retry.
    const one = await consoleCall(server, s, "GET", `/console/api/webhooks/deliveries/${delivery!.id}`)
    expect(one.body).toEqual(after.find((d) => d.id === delivery!.id))
  })

  test("another workspace's endpoint and delivery are not found", async () => {
    const s = await signInConsole(server, server.keys.bHooks)
    const [delivery] = await deliveriesOf(server.keys.aHooks)
    expectProblem(await consoleCall(server, s, "GET", `/console/api/webhooks/endpoints/${endpointId}`), 404, "not_found")
    expectProblem(await consoleCall(server, s, "GET", `/console/api/webhooks/endpoints/${endpointId}/deliveries`), 404, "not_found")
    expectProblem(await consoleCall(server, s, "POST", `/console/api/webhooks/deliveries/${delivery!.id}/retry`), 404, "not_found")
    expectProblem(await consoleCall(server, s, "POST", `/console/api/webhooks/deliveries/${unknownUuid()}/retry`), 404, "not_found")
    expectProblem(await consoleCall(server, s, "GET", `/console/api/webhooks/deliveries/${delivery!.id}`), 404, "not_found")
    expect((await consoleCall(server, s, "GET", "/console/api/webhooks/endpoints")).body.items).toEqual([])
  })
})
