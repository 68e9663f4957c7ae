import { afterAll, beforeAll, expect, test } from "bun:test"
import { connect, type Socket } from "node:net"
import { startTestServer, type TestServer } from "../support/server.js"

/**
 * Slow clients: a connection that stalls in its headers or body is closed, and others are served
 * meanwhile. A stalled body falls under the configured idle timeout; unfinished headers under the
 * HTTP server's own header timeout (about 10 s in Bun, not configurable).
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ config: { idleTimeout: 2 } })
})
afterAll(() => server.close())

const open = (): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const { port } = new URL(server.url)
    const socket = connect(Number(port), "127.0.0.1", () => resolve(socket))
    socket.once("error", reject)
  })

/** Resolves with the seconds until the server closed the socket (or `limit` if it did not). */
const closedAfter = (socket: Socket, limit: number): Promise<number> =>
  new Promise((resolve) => {
    const started = performance.now()
    const timer = setTimeout(() => resolve(limit), limit * 1000)
    socket.once("close", () => {
      clearTimeout(timer)
      resolve((performance.now() - started) / 1000)
    })
    socket.on("data", () => undefined)
    socket.on("error", () => undefined)
  })

test("a client that stops in the middle of its headers is disconnected; others are served meanwhile", async () => {
  const stalled = await Promise.all(Array.from({ length: 20 }, () => open()))
  for (const s of stalled) s.write("POST /api/encounters HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
  const closes = Promise.all(stalled.map((s) => closedAfter(s, 16)))
  const health = await fetch(`${server.url}/healthz`)
  expect(health.status).toBe(200)
  const seconds = await closes
  for (const s of seconds) expect(s).toBeLessThan(16)
}, 25_000)

test("a client that stops in the middle of its body is disconnected", async () => {
  const socket = await open()
  socket.write(
    `POST /api/encounters HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.keys.a}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"external_id":`
  )
  const seconds = await closedAfter(socket, 8)
  expect(seconds).toBeLessThan(8)
}, 15_000)
