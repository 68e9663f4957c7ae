import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ensureBinary, removeTemps, type RunningBinary, startBinary, tempDb } from "../support/binary.js"
import { rawRequest } from "../support/raw-http.js"

/** The compiled binary answers what load balancers send: HTTP/1.0 without Host, absolute-form targets. */
let server: RunningBinary
let port: number
beforeAll(async () => {
  ensureBinary()
  server = await startBinary({ db: tempDb("wire") })
  port = Number(new URL(server.url).port)
})
afterAll(async () => {
  await server.stop()
  removeTemps()
})

const logged = async (requestId: string) => {
  for (let i = 0; i < 50; i++) {
    const line = server.stdoutLines.find((l) => l.includes(`"request_id":"${requestId}"`))
    if (line !== undefined) return JSON.parse(line)
    await Bun.sleep(20)
  }
  throw new Error(`no log line with request_id ${requestId}`)
}

describe("the binary on the wire", () => {
  test("GET /healthz over HTTP/1.0 without Host: 200, a request id, a log line", async () => {
    const r = await rawRequest(port, "GET /healthz HTTP/1.0\r\n\r\n")
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body)).toEqual({ status: "ok" })
    const rid = r.headers.get("x-request-id")!
    expect(rid).toMatch(/^[0-9a-f-]{36}$/)
    expect(await logged(rid)).toMatchObject({ msg: "request", route: "/healthz", status: 200 })
  })

  test("/readyz over HTTP/1.0 and an absolute-form target over HTTP/1.1", async () => {
    const ready = await rawRequest(port, "GET /readyz HTTP/1.0\r\n\r\n")
    expect(ready.status).toBe(200)
    expect(JSON.parse(ready.body).status).toBe("ready")
    const absolute = await rawRequest(port, `GET http://lb.internal/readyz HTTP/1.1\r\nHost: lb.internal\r\nConnection: close\r\n\r\n`)
    expect(absolute.status).toBe(200)
    const unknown = await rawRequest(port, "GET /nowhere HTTP/1.0\r\n\r\n")
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get("content-type")).toBe("application/problem+json")
    expect(JSON.parse(unknown.body).request_id).toBe(unknown.headers.get("x-request-id"))
  })
})
