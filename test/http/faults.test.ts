import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, ManagedRuntime } from "effect"
import { memoryLayer } from "../../lib/layers.js"
import { withDefaults } from "../../server/config.js"
import { json, open, type Route } from "../../server/route.js"
import { type RunningServer, serverError, startServer } from "../../server/server.js"
import { capturedLogs } from "../support/server.js"

/**
 * Every 5xx, whatever path it comes from, carries X-Request-Id (the same id as its problem body)
 * and writes exactly one error log line with that id, and no request data.
 */
const doc = (path: string, method: "GET" | "POST" = "GET") => ({
  method,
  path,
  operationId: path.slice(1),
  tag: "Test",
  summary: "fault",
  responses: { 200: { description: "never" } }
})

const faultRoutes: ReadonlyArray<Route> = [
  open(doc("/defect"), () => Effect.die(new Error("boom"))),
  // A reply JSON cannot write: the failure happens while answering, after the handler succeeded.
  open(doc("/unserializable"), () => Effect.succeed(json(200, { n: 10n }))),
  open(doc("/unserializable", "POST"), () => Effect.succeed(json(200, { n: 10n }))),
  open(doc("/throws"), () => {
    throw new TypeError("thrown outside any effect")
  }),
  open(doc("/ok"), () => Effect.succeed(json(200, { ok: true })))
]

const runtime = ManagedRuntime.make(memoryLayer)
let server: RunningServer
beforeAll(() => {
  server = startServer(runtime, withDefaults({ port: 0, rateLimit: 0 }), { routes: faultRoutes })
})
afterAll(async () => {
  await server.stop()
  await runtime.dispose()
})

const PATIENT = "Zebulon Quackenbush"

const errorLines = (requestId: string) =>
  capturedLogs.filter((l) => l.includes(`"request_id":"${requestId}"`) && l.includes('"level":"error"'))

const expectFault = async (response: Response) => {
  expect(response.status).toBe(500)
  const rid = response.headers.get("x-request-id")
  expect(rid).toMatch(/^[0-9a-f-]{36}$/)
  const body = await response.json()
  expect(body.code).toBe("internal")
  expect(body.request_id).toBe(rid)
  await Bun.sleep(20)
  expect(errorLines(rid!).length).toBe(1)
  expect(capturedLogs.some((l) => l.includes(PATIENT))).toBe(false)
  return rid!
}

describe("5xx answers carry the request id and log it once", () => {
  test("a handler that dies", async () => {
    await expectFault(await fetch(`${server.url}/defect`))
  })

  test("a reply that cannot be serialized, without and with a body", async () => {
    await expectFault(await fetch(`${server.url}/unserializable`))
    const rid = await expectFault(
      await fetch(`${server.url}/unserializable`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ patient: PATIENT })
      })
    )
    // The request line is written too, with the route template and the status.
    expect(capturedLogs.some((l) => l.includes(`"request_id":"${rid}"`) && l.includes('"route":"/unserializable"') && l.includes('"status":500'))).toBe(true)
  })

  test("a handler that throws instead of failing", async () => {
    await expectFault(await fetch(`${server.url}/throws`))
  })

  test("the server keeps serving after each", async () => {
    const r = await fetch(`${server.url}/ok`)
    expect(r.status).toBe(200)
  })

  test("Bun's last-resort error handler answers with a fresh request id and logs it", async () => {
    const rid = await expectFault(serverError(new SyntaxError(`JSON Parse error: Unexpected identifier "${PATIENT}"`)))
    // The thrown message can quote request data: only the error's class and frame are logged.
    expect(errorLines(rid)[0]).toContain("SyntaxError")
  })
})
