import { Webhook } from "standardwebhooks"

/** What the loopback receiver saw of one request. */
export interface Received {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string
  /** The payload as `standardwebhooks` verified it, or the verifier's error message. */
  readonly verified: { readonly ok: true; readonly payload: unknown } | { readonly ok: false; readonly error: string }
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every message with the `standardwebhooks`
 * package (an independent implementation) against `secret`, then answers as the path asks.
 */
export const startReceiver = (secret: () => string) => {
  const received: Array<Received> = []
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname
      const body = await request.text()
      const headers: Record<string, string> = {}
      request.headers.forEach((value, key) => {
        headers[key] = value
      })
      let verified: Received["verified"]
      try {
        verified = { ok: true, payload: new Webhook(secret()).verify(body, headers) }
      } catch (e) {
        verified = { ok: false, error: e instanceof Error ? e.message : String(e) }
      }
      received.push({ path, headers, body, verified })
      switch (path) {
        case "/fail":
          return new Response("internal trouble", { status: 500 })
        case "/redirect":
          return new Response(null, { status: 302, headers: { location: "/ok" } })
        case "/gone":
          return new Response("gone", { status: 410 })
        case "/busy":
          return new Response("slow down", { status: 429, headers: { "retry-after": "7" } })
        case "/unavailable":
          return new Response("maintenance", {
            status: 503,
            headers: { "retry-after": new Date(Date.now() + 120_000).toUTCString() }
          })
        case "/big":
          return new Response("x".repeat(10 * 1024) + "END", { status: 200 })
        case "/drip": {
          // The status and a first chunk at once, the rest never (until the test is long over).
          const stream = new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode("accepted, still talking"))
              await Bun.sleep(1500)
              controller.close()
            }
          })
          return new Response(stream, { status: 200 })
        }
        case "/slow":
          await Bun.sleep(1500)
          return new Response("late", { status: 200 })
        default:
          return new Response("thanks", { status: 200 })
      }
    }
  })
  return { url: (path: string) => `http://127.0.0.1:${server.port}${path}`, port: server.port, received, stop: () => server.stop(true) }
}
