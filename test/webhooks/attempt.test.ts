import { afterAll, describe, expect, test } from "bun:test"
import { Layer } from "effect"
import type { WebhookSecret } from "../../lib/domain/webhook.js"
import { attemptDelivery, type AttemptOptions, EXCERPT_BYTES } from "../../lib/webhooks/attempt.js"
import { newSecret } from "../../lib/webhooks/signature.js"
import type { Resolve } from "../../lib/webhooks/targets.js"
import { runWith } from "../support/run.js"
import { startReceiver } from "./receiver.js"

let secret: WebhookSecret = newSecret()
const receiver = startReceiver(() => secret)
afterAll(() => receiver.stop())

const event = { id: "0190c2a0-0000-7000-8000-000000000001", event_type: "ExternalApi.Encounter.Created", payload: { status: "created" } }
const body = JSON.stringify(event)
const local: AttemptOptions = { version: "9.9.9", allowPrivate: true, timeoutMs: 2000 }

const attempt = (url: string, options: AttemptOptions = local, secrets: ReadonlyArray<WebhookSecret> = [secret]) =>
  runWith(Layer.empty, attemptDelivery({ url, messageId: event.id, body, secrets, nowMs: Date.now() }, options))

const lastTo = (path: string) => receiver.received.filter((r) => r.path === path).at(-1)

describe("one delivery attempt against a loopback receiver", () => {
  test("a 2xx succeeds, and the message verifies with standardwebhooks", async () => {
    const result = await attempt(receiver.url("/ok"))
    expect(result).toMatchObject({ ok: true, status: 200, gone: false, responseExcerpt: "thanks" })
    expect(result.error).toBeUndefined()
    const seen = lastTo("/ok")
    expect(seen?.verified).toEqual({ ok: true, payload: event })
    expect(seen?.body).toBe(body)
    expect(seen?.headers).toMatchObject({
      "content-type": "application/json",
      "webhook-id": event.id,
      "user-agent": "encounterd/9.9.9"
    })
    expect(Math.abs(Number(seen?.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60)
  })

  test("during a rotation the receiver verifies with the new secret and with the old one", async () => {
    const old = secret
    const fresh = newSecret()
    secret = old
    const withOld = await attempt(receiver.url("/ok"), local, [fresh, old])
    expect(withOld.ok).toBe(true)
    expect(lastTo("/ok")?.verified.ok).toBe(true)
    expect(lastTo("/ok")?.headers["webhook-signature"]?.split(" ")).toHaveLength(2)
    secret = fresh
    await attempt(receiver.url("/ok"), local, [fresh, old])
    expect(lastTo("/ok")?.verified.ok).toBe(true)
    // A receiver holding a secret that signs nothing refuses the message.
    secret = newSecret()
    await attempt(receiver.url("/ok"), local, [fresh, old])
    expect(lastTo("/ok")?.verified).toEqual({ ok: false, error: "No matching signature found" })
    secret = fresh
  })

  test("a 500 fails with the status and the start of the answer", async () => {
    const result = await attempt(receiver.url("/fail"))
    expect(result).toMatchObject({ ok: false, status: 500, gone: false, error: "HTTP 500", responseExcerpt: "internal trouble" })
  })

  test("a redirect fails and is not followed", async () => {
    const before = receiver.received.filter((r) => r.path === "/ok").length
    const result = await attempt(receiver.url("/redirect"))
    expect(result).toMatchObject({ ok: false, status: 302 })
    expect(result.error).toContain("redirects are not followed")
    expect(receiver.received.filter((r) => r.path === "/ok").length).toBe(before)
  })

  test("410 Gone is flagged so the endpoint is disabled", async () => {
    const result = await attempt(receiver.url("/gone"))
    expect(result).toMatchObject({ ok: false, status: 410, gone: true })
  })

  test("Retry-After is read on 429 (seconds) and on 503 (an HTTP date)", async () => {
    const busy = await attempt(receiver.url("/busy"))
    expect(busy).toMatchObject({ ok: false, status: 429, retryAfterMs: 7000 })
    const unavailable = await attempt(receiver.url("/unavailable"))
    expect(unavailable.status).toBe(503)
    expect(unavailable.retryAfterMs).toBeGreaterThan(100_000)
    expect(unavailable.retryAfterMs).toBeLessThanOrEqual(121_000)
    expect((await attempt(receiver.url("/fail"))).retryAfterMs).toBeUndefined()
  })

  test("only the first KiB of the answer is kept", async () => {
    const result = await attempt(receiver.url("/big"))
    expect(result.ok).toBe(true)
    expect(result.responseExcerpt).toBe("x".repeat(EXCERPT_BYTES))
  })

  test("no answer within the timeout fails the attempt", async () => {
    const result = await attempt(receiver.url("/slow"), { ...local, timeoutMs: 200 })
    expect(result).toMatchObject({ ok: false, gone: false, error: "timed out after 200 ms" })
    expect(result.status).toBeUndefined()
  })

  test("a 2xx received in time counts even when the rest of the answer is still coming", async () => {
    const result = await attempt(receiver.url("/drip"), { ...local, timeoutMs: 300 })
    expect(result).toMatchObject({ ok: true, status: 200, responseExcerpt: "accepted, still talking" })
  })

  test("a closed port fails as a connection error", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") })
    const port = closed.port
    closed.stop(true)
    const result = await attempt(`http://127.0.0.1:${port}/ok`)
    expect(result.ok).toBe(false)
    expect(result.error).toMatch(/^connection failed: \S+/)
  })
})

describe("private targets at delivery time", () => {
  const toLoopback: Resolve = async () => [{ address: "127.0.0.1", family: 4 }]
  const mixed: Resolve = async () => [
    { address: "93.184.216.34", family: 4 },
    { address: "::1", family: 6 }
  ]
  const named = (path: string) => `http://receiver.test:${receiver.port}${path}`

  test("a loopback IP is refused without allowPrivate, before anything is sent", async () => {
    const before = receiver.received.length
    const result = await attempt(receiver.url("/ok"), { ...local, allowPrivate: false })
    expect(result).toMatchObject({ ok: false, error: "refused: 127.0.0.1 is a loopback address (refused unless private targets are allowed: --webhook-allow-private)" })
    expect(receiver.received.length).toBe(before)
  })

  test("a name resolving to loopback is refused at connect time without allowPrivate", async () => {
    const before = receiver.received.length
    const result = await attempt(named("/ok"), { ...local, allowPrivate: false, resolve: toLoopback })
    expect(result.ok).toBe(false)
    expect(result.error).toBe("refused: receiver.test resolves to 127.0.0.1, a loopback address (refused unless private targets are allowed: --webhook-allow-private)")
    expect(receiver.received.length).toBe(before)
  })

  test("a name with any refused address is refused", async () => {
    const result = await attempt(named("/ok"), { ...local, allowPrivate: false, resolve: mixed })
    expect(result.error).toContain("resolves to ::1, a loopback address")
  })

  test("with allowPrivate the same name is delivered and verifies", async () => {
    const result = await attempt(named("/ok"), { ...local, allowPrivate: true, resolve: toLoopback })
    expect(result).toMatchObject({ ok: true, status: 200 })
    expect(lastTo("/ok")?.headers["host"]).toBe(`receiver.test:${receiver.port}`)
    expect(lastTo("/ok")?.verified.ok).toBe(true)
  })
})
