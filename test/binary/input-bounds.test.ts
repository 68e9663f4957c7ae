import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { MAX_SERVICE_LINES } from "../../lib/domain/encounter-input.js"
import { MAX_PROBLEMS } from "../../lib/domain/problems.js"
import { MAX_WEBHOOK_EVENT_TYPES } from "../../lib/domain/webhook.js"
import { MAX_BATCH_CLAIMS } from "../../lib/rules/x12-export.js"
import { api, ensureBinary, removeTemps, runCli, type RunningBinary, startBinary, tempDb } from "../support/binary.js"
import { validPayload } from "../support/payloads.js"

/**
 * Hostile bodies at the default body limit (1 MiB), on the compiled binary and its SQLite
 * default: each is answered within 2 s with a short problem list, the intake log keeps that short
 * list, and another client's requests (`/healthz`, another workspace's `GET /api/workspace`)
 * sent while it is being decoded answer within 250 ms at the 99th percentile.
 */

const BODY_LIMIT = 1024 * 1024

let server: RunningBinary
let hostileKey = ""
let otherKey = ""

beforeAll(async () => {
  ensureBinary()
  const db = tempDb("bounds")
  const slugs = [["hostile", "Hostile"], ["other", "Other"]] as const
  for (const [slug, name] of slugs) expect((await runCli(["workspaces", "create", "--slug", slug, "--name", name], { db })).code).toBe(0)
  const hostile = await runCli(["keys", "create", "--workspace", "hostile", "--scope", "claims:write", "--scope", "webhooks:write"], { db })
  const other = await runCli(["keys", "create", "--workspace", "other"], { db })
  hostileKey = hostile.json.key
  otherKey = other.json.key
  server = await startBinary({ db, args: ["--rate-limit", "0"] })
}, 120_000)

afterAll(async () => {
  await server?.stop()
  removeTemps()
})

interface Answer {
  readonly status: number
  readonly body: any
  readonly ms: number
}

/** One hostile request, its body serialized beforehand (the measuring process stays idle while it is sent). */
const send = async (path: string, body: string): Promise<Answer> => {
  const started = performance.now()
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${hostileKey}`, "content-type": "application/json" },
    body
  })
  const text = await res.text()
  return { status: res.status, body: JSON.parse(text), ms: performance.now() - started }
}

/** A JSON body (ASCII) of at most the body limit: `make(n)` with the largest `n` (from `start`, stepping down) that fits. */
const atLimit = (make: (n: number) => unknown, start: number): string => {
  for (let n = start; n > 0; n = Math.floor(n * 0.99)) {
    const text = JSON.stringify(make(n))
    if (text.length <= BODY_LIMIT) return text
  }
  throw new Error("no body fits")
}

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

/**
 * Sends `body` again and again (at least 3 times, until 200 other requests were measured or 60
 * were sent), one after another, while two other clients poll `/healthz` and another
 * workspace's `/api/workspace` back to back; answers the hostile answers and the other clients'
 * latencies (ms) of requests sent while a hostile one was in flight.
 */
const underLoad = async (path: string, body: string) => {
  let running = true
  let inFlight = false
  const latencies: Array<number> = []
  const poll = async (url: string, headers: Record<string, string>) => {
    while (running) {
      const sentDuring = inFlight
      const started = performance.now()
      const res = await fetch(url, { headers })
      await res.arrayBuffer()
      expect(res.status).toBe(200)
      if (sentDuring) latencies.push(performance.now() - started)
    }
  }
  const pollers = [
    poll(`${server.url}/healthz`, {}),
    poll(`${server.url}/api/workspace`, { authorization: `Bearer ${otherKey}` })
  ]
  const answers: Array<Answer> = []
  try {
    for (let i = 0; i < 60 && (i < 3 || latencies.length < 200); i++) {
      inFlight = true
      answers.push(await send(path, body))
      inFlight = false
      await Bun.sleep(20)
    }
  } finally {
    running = false
    await Promise.all(pollers)
  }
  return { answers, latencies, p99: percentile(latencies, 99) }
}

const report = (label: string, bytes: number, r: Awaited<ReturnType<typeof underLoad>>) =>
  console.log(
    `${label}: ${(bytes / 1024).toFixed(0)} KiB; hostile ${r.answers.length} times, median ${percentile(r.answers.map((a) => a.ms), 50).toFixed(0)} ms, max ${Math.max(...r.answers.map((a) => a.ms)).toFixed(0)} ms; ` +
      `other clients p99 ${r.p99.toFixed(1)} ms, max ${Math.max(...r.latencies).toFixed(1)} ms over ${r.latencies.length} requests`
  )

/** The answer is a short problem list and every other client was served in time. */
const expectBounded = (r: Awaited<ReturnType<typeof underLoad>>, expected: ReadonlyArray<unknown> | "capped") => {
  for (const a of r.answers) {
    expect(a.status).toBe(422)
    expect(a.body.code).toBe("validation_failed")
    expect(a.ms).toBeLessThan(2000)
    expect(a.body.errors.length).toBeLessThanOrEqual(MAX_PROBLEMS + 1)
    if (expected === "capped") expectCapped(a.body.errors)
    else expect(a.body.errors).toEqual(expected)
  }
  expect(r.latencies.length).toBeGreaterThanOrEqual(100)
  expect(r.p99).toBeLessThanOrEqual(250)
}

/** 100 problems, then `too_many_problems` stating how many were found (more than 100). */
const expectCapped = (errors: ReadonlyArray<{ path: string; message: string; code?: string }>) => {
  expect(errors.length).toBe(MAX_PROBLEMS + 1)
  expect(errors.slice(0, MAX_PROBLEMS).every((e) => e.code === undefined)).toBe(true)
  const last = errors[MAX_PROBLEMS]!
  expect(last.code).toBe("too_many_problems")
  expect(last.path).toBe("$")
  const found = Number(/^at least (\d+) problems were found; the first 100 are listed$/.exec(last.message)?.[1])
  expect(found).toBeGreaterThan(MAX_PROBLEMS)
}

/** The intake log's newest entries, as a client reads them: their size and their problem lists. */
const intakeLog = async (limit: number) => {
  const res = await fetch(`${server.url}/api/intake-requests?limit=${limit}`, { headers: { authorization: `Bearer ${hostileKey}` } })
  const text = await res.text()
  return { status: res.status, bytes: text.length, items: JSON.parse(text).items as Array<{ outcome: string; errors: Array<{ path: string; message: string; code?: string }> }> }
}

describe("hostile lists at the body limit (compiled binary, SQLite)", () => {
  test("create: service_lines of ~340,000 empty objects is one problem, its entries never decoded", async () => {
    const body = atLimit((n) => validPayload("bounds-lines", { service_lines: Array(n).fill({}) }), 360_000)
    const r = await underLoad("/api/encounters", body)
    report("service_lines of {}", body.length, r)
    expectBounded(r, [{ path: "service_lines", message: `must have at most ${MAX_SERVICE_LINES} entries` }])
    const log = await intakeLog(5)
    expect(log.status).toBe(200)
    expect(log.items.slice(0, 3).map((i) => i.errors.length)).toEqual([1, 1, 1])
    expect(log.bytes).toBeLessThan(4096)
  }, 60_000)

  test("create: diagnoses of ~500,000 numbers is one problem; the intake log stays small", async () => {
    const body = atLimit((n) => validPayload("bounds-diagnoses", { diagnoses: Array(n).fill(1) }), 520_000)
    const r = await underLoad("/api/encounters", body)
    report("diagnoses of numbers", body.length, r)
    expectBounded(r, [{ path: "diagnoses", message: "must have at most 50 entries" }])
    const log = await intakeLog(5)
    expect(log.items.every((i) => i.outcome === "rejected" && i.errors.length === 1)).toBe(true)
    expect(log.bytes).toBeLessThan(4096)
  }, 60_000)

  test("create: nested lists within their limits, ~350,000 entries with problems, answer 100 and too_many_problems; so does the log", async () => {
    // 1000 notes per category is the limit; each empty note lacks three keys.
    const body = atLimit(
      (n) => validPayload("bounds-notes", { clinical_notes: Array(Math.ceil(n / 1000)).fill({ category: "x", notes: Array(1000).fill({}) }) }),
      360_000
    )
    const r = await underLoad("/api/encounters", body)
    report("nested clinical notes", body.length, r)
    expectBounded(r, "capped")
    expect(r.answers[0]!.body.detail).toBe(`More than ${MAX_PROBLEMS} problems in the request body; the first ${MAX_PROBLEMS} are listed`)
    const log = await intakeLog(3)
    for (const item of log.items) expectCapped(item.errors)
    expect(log.bytes).toBeLessThan(3 * 16 * 1024)
  }, 60_000)

  test("837P batch: claim_ids of ~500,000 is one problem; 500 wrong ids answer 100 and too_many_problems", async () => {
    const body = atLimit((n) => ({ claim_ids: Array(n).fill(1) }), 520_000)
    const r = await underLoad("/api/x12/837p-batches", body)
    report("837P claim_ids", body.length, r)
    expectBounded(r, [{ path: "claim_ids", message: `must have at most ${MAX_BATCH_CLAIMS} entries` }])
    const within = await send("/api/x12/837p-batches", (JSON.stringify({ claim_ids: Array(MAX_BATCH_CLAIMS).fill(1) })))
    expect(within.status).toBe(422)
    expectCapped(within.body.errors)
  }, 60_000)

  test("webhook endpoint: event_types of ~500,000 is one problem; 100 wrong types and no url answer 100 and too_many_problems", async () => {
    const body = atLimit((n) => ({ url: "https://hooks.example.com/in", event_types: Array(n).fill(1) }), 520_000)
    const r = await underLoad("/api/webhooks/endpoints", body)
    report("webhook event_types", body.length, r)
    expectBounded(r, [{ path: "event_types", message: `must have at most ${MAX_WEBHOOK_EVENT_TYPES} entries` }])
    const within = await send("/api/webhooks/endpoints", (JSON.stringify({ event_types: Array(MAX_WEBHOOK_EVENT_TYPES).fill(1) })))
    expect(within.status).toBe(422)
    expectCapped(within.body.errors)
  }, 60_000)

  test("the other workspace saw none of it", async () => {
    const ws = await api(server.url, otherKey, "/api/workspace")
    expect(ws.body.slug).toBe("other")
    const log = await api(server.url, otherKey, "/api/intake-requests?limit=5")
    expect(log.body.items).toEqual([])
  })
})
