import { Webhook } from "standardwebhooks"

/**
 * A receiver for the binary suites: verifies every message with `standardwebhooks` and answers
 * 200, or (while `hold` is set) keeps the request waiting 10 s and answers 503. `delivered`
 * counts the answered-200 messages per `webhook-id`; `received` keeps each of them as it came
 * (body and headers), in arrival order.
 */
export const startHookReceiver = () => {
  const state = { secret: "", hold: false }
  const delivered = new Map<string, number>()
  const unverified: Array<string> = []
  const received: Array<{ readonly id: string; readonly body: string; readonly headers: Record<string, string> }> = []
  let attempts = 0
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(request) {
      attempts++
      const body = await request.text()
      const headers: Record<string, string> = {}
      request.headers.forEach((value, key) => {
        headers[key] = value
      })
      try {
        new Webhook(state.secret).verify(body, headers)
      } catch (e) {
        unverified.push(`${headers["webhook-id"]}: ${e instanceof Error ? e.message : String(e)}`)
        return new Response("bad signature", { status: 400 })
      }
      if (state.hold) {
        await Bun.sleep(10_000)
        return new Response("busy", { status: 503 })
      }
      const id = headers["webhook-id"] ?? ""
      delivered.set(id, (delivered.get(id) ?? 0) + 1)
      received.push({ id, body, headers })
      return new Response("ok")
    }
  })
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    state,
    delivered,
    received,
    unverified,
    attempts: () => attempts,
    stop: () => server.stop(true)
  }
}

/** Polls until `done()` (at most `ms`); false when it never held. */
export const waitFor = async (done: () => boolean | Promise<boolean>, ms: number): Promise<boolean> => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await done()) return true
    await Bun.sleep(50)
  }
  return done()
}

/** `serve` flags for tests that deliver to a receiver on loopback: quick retries, the given attempt timeout. */
export const hookArgs = (timeout: string): ReadonlyArray<string> => [
  "--rate-limit", "0",
  "--webhook-allow-private",
  "--webhook-timeout", timeout,
  "--webhook-retry-schedule", Array.from({ length: 30 }, (_, i) => (i === 0 ? "0s" : "300ms")).join(",")
]
