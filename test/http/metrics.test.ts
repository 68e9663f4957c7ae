import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { Metrics, noMetrics } from "../../lib/ports/metrics.js"
import { makeRegistry } from "../../server/metrics.js"
import { sameSecret } from "../../server/same-secret.js"
import { makeServerMetrics } from "../../server/server-metrics.js"
import { validPayload } from "../support/payloads.js"
import { type Family, parsePrometheus, sampleValue } from "../support/prometheus.js"
import { runWith } from "../support/run.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { uniqueId } from "./client.js"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const auth = (key: string) => ({ authorization: `Bearer ${key}` })

const scrape = async (base = server.url, headers: Record<string, string> = {}) => {
  const r = await fetch(`${base}/metrics`, { headers })
  expect(r.status).toBe(200)
  expect(r.headers.get("content-type")).toStartWith("text/plain; version=0.0.4")
  expect(r.headers.get("x-request-id")).not.toBeNull()
  return parsePrometheus(await r.text())
}

/**
 * Every string a request carried: body values (recursively), path parameters, query values.
 * Values under three characters ("1", "ID", "11") are left out: they collide with bucket bounds
 * and statuses by chance, and identify no one.
 */
const stringsOf = (v: unknown, out: Set<string> = new Set()): Set<string> => {
  if (typeof v === "string" || typeof v === "number") {
    if (String(v).length >= 3) out.add(String(v))
  }
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out)
  else if (typeof v === "object" && v !== null) for (const x of Object.values(v)) stringsOf(x, out)
  return out
}

const labelValues = (families: Map<string, Family>): Set<string> => {
  const out = new Set<string>()
  for (const f of families.values()) for (const s of f.samples) for (const v of Object.values(s.labels)) out.add(v)
  return out
}

describe("GET /metrics", () => {
  test("counts requests by route template, never by a value the request carried", async () => {
    const externalId = uniqueId("metrics-ext")
    const payload = validPayload(externalId, { patient: { ...(validPayload("x").patient as object), first_name: "Philomena", last_name: "Zanzibar" } })
    const created = await fetch(`${server.url}/api/encounters`, {
      method: "POST",
      headers: { ...auth(server.keys.a), "content-type": "application/json" },
      body: JSON.stringify(payload)
    })
    expect(created.status).toBe(202)
    const { encounter_id: id } = await created.json()
    const taken = stringsOf(payload)
    taken.add(id)
    const paths = [`/encounters/${id}`, `/api/encounters/${id}`, `/encounters/${externalId}`, `/api/encounters/compat-version/${id}`,
      `/encounters?external_id=${externalId}`, "/nope/Philomena", `/api/claims/${externalId}/status`]
    for (const p of paths) await fetch(`${server.url}${p}`, { headers: auth(server.keys.a) })
    await fetch(`${server.url}/api/encounters`, { method: "POST", headers: { ...auth(server.keys.a), "content-type": "application/json" }, body: "{" })
    await fetch(`${server.url}/healthz`, { method: "PATCH" })
    taken.add(externalId)

    const families = await scrape()
    const count = (route: string, method: string, status: string) =>
      sampleValue(families, "encounterd_http_requests_total", { route, method, status })
    expect(count("/api/encounters", "POST", "202")).toBeGreaterThanOrEqual(1)
    expect(count("/api/encounters", "POST", "400")).toBeGreaterThanOrEqual(1)
    expect(count("/encounters/{id}", "GET", "200")).toBeGreaterThanOrEqual(1)
    expect(count("/encounters/{id}", "GET", "404")).toBeGreaterThanOrEqual(1)
    expect(count("/api/encounters/compat-version/{encounter_id}", "GET", "200")).toBe(1)
    expect(count("unmatched", "GET", "404")).toBeGreaterThanOrEqual(1)
    expect(count("/healthz", "PATCH", "405")).toBe(1)
    const latency = sampleValue(families, "encounterd_http_request_duration_seconds_count", { route: "/encounters/{id}", method: "GET" })
    expect(latency).toBeGreaterThanOrEqual(2)

    const labels = labelValues(families)
    for (const v of labels) {
      if (taken.has(v)) throw new Error(`label value ${JSON.stringify(v)} was taken from the request`)
      expect(v).not.toContain("Philomena")
      expect(v).not.toContain(externalId)
      expect(v).not.toContain(id)
    }
    // Every route label is a declared template or `unmatched`.
    const routes = new Set(families.get("encounterd_http_requests_total")!.samples.map((s) => s.labels.route))
    for (const r of routes) expect(r === "unmatched" || (r !== undefined && r.startsWith("/"))).toBe(true)
    expect([...routes].filter((r) => r !== undefined && r !== "unmatched" && !/^[/a-z_{}.-]+$/.test(r))).toEqual([])
  })

  test("database, rate-limit, webhook and process families are declared; process figures are live", async () => {
    const families = await scrape()
    for (const [name, type] of [
      ["encounterd_db_commit_duration_seconds", "histogram"],
      ["encounterd_db_fsync_duration_seconds", "histogram"],
      ["encounterd_db_group_commit_size", "histogram"],
      ["encounterd_rate_limited_total", "counter"],
      ["encounterd_webhook_queue_depth", "gauge"],
      ["encounterd_webhook_deliveries_total", "counter"],
      ["process_resident_memory_bytes", "gauge"],
      ["process_start_time_seconds", "gauge"],
      ["encounterd_heap_paced_collections_total", "counter"],
      ["encounterd_heap_paced_pause_seconds_total", "counter"],
      ["encounterd_heap_paced_young_collections_total", "counter"],
      ["encounterd_heap_paced_young_pause_seconds_total", "counter"],
      ["encounterd_build_info", "gauge"]
    ] as const) {
      expect(families.get(name)?.type).toBe(type)
    }
    expect(sampleValue(families, "process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024)
    const start = sampleValue(families, "process_start_time_seconds")!
    expect(Math.abs(start - (Date.now() / 1000 - process.uptime()))).toBeLessThan(5)
  })

  test("rate-limit refusals are counted", async () => {
    const limited = await startTestServer({ config: { rateLimit: 1, rateBurst: 1 } })
    try {
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) statuses.push((await fetch(`${limited.url}/api/workspace`, { headers: auth(limited.keys.a) })).status)
      const refused = statuses.filter((s) => s === 429).length
      expect(refused).toBeGreaterThan(0)
      expect(sampleValue(await scrape(limited.url), "encounterd_rate_limited_total")).toBe(refused)
    } finally {
      await limited.close()
    }
  })

  test("--metrics-key: a bearer key is required; --no-metrics: 404", async () => {
    const key = "metrics-key-0123456789"
    const locked = await startTestServer({ config: { metricsKey: key } })
    const off = await startTestServer({ config: { metrics: false } })
    try {
      const none = await fetch(`${locked.url}/metrics`)
      expect(none.status).toBe(401)
      expect((await none.json()).code).toBe("unauthorized")
      expect((await fetch(`${locked.url}/metrics`, { headers: auth(locked.keys.a) })).status).toBe(401)
      expect((await fetch(`${locked.url}/metrics`, { headers: auth(`${key}x`) })).status).toBe(401)
      // A wrong key of the same length, a shorter one, and the right one with a different last character.
      for (const wrong of ["metrics-key-9876543210", "metrics-key", `${key.slice(0, -1)}8`]) {
        const res = await fetch(`${locked.url}/metrics`, { headers: auth(wrong) })
        expect(res.status).toBe(401)
        expect((await res.json()).code).toBe("unauthorized")
      }
      await scrape(locked.url, auth(key))
      const gone = await fetch(`${off.url}/metrics`)
      expect(gone.status).toBe(404)
      expect((await gone.json()).code).toBe("not_found")
    } finally {
      await locked.close()
      await off.close()
    }
  })

  test("the route is in the OpenAPI document as text/plain", async () => {
    const doc = await (await fetch(`${server.url}/api/openapi.json`)).json()
    expect(Object.keys(doc.paths["/metrics"].get.responses["200"].content)).toEqual(["text/plain; version=0.0.4"])
  })
})

describe("the metrics key comparison", () => {
  test("equal only for the same key, whatever the presented key's length (digests of both are compared)", () => {
    const key = "metrics-key-0123456789"
    expect(sameSecret(key, key)).toBe(true)
    expect(sameSecret("metrics-key-0123456788", key)).toBe(false)
    expect(sameSecret("metrics-key", key)).toBe(false)
    expect(sameSecret(`${key}${key}`, key)).toBe(false)
    expect(sameSecret("", key)).toBe(false)
  })
})

describe("the metrics registry", () => {
  test("label values are escaped as the format requires and read back the same", () => {
    const registry = makeRegistry()
    const c = registry.counter("t_total", "help with \\ and\nnewline")
    const tricky = 'a"b\\c\nd}e,f="g"'
    c.inc({ v: tricky })
    c.inc({ v: tricky }, 2)
    const families = parsePrometheus(registry.render())
    expect(families.get("t_total")!.help).toBe("help with \\\\ and\\nnewline")
    expect(sampleValue(families, "t_total", { v: tricky })).toBe(3)
  })

  test("histograms render cumulative buckets with _sum and _count", () => {
    const registry = makeRegistry()
    const h = registry.histogram("t_seconds", "t", [0.1, 1, 10])
    for (const v of [0.05, 0.5, 0.5, 5, 50]) h.observe(v, { k: "x" })
    const families = parsePrometheus(registry.render())
    const bucket = (le: string) => sampleValue(families, "t_seconds_bucket", { k: "x", le })
    expect([bucket("0.1"), bucket("1"), bucket("10"), bucket("+Inf")]).toEqual([1, 3, 4, 5])
    expect(sampleValue(families, "t_seconds_sum", { k: "x" })).toBeCloseTo(56.05)
    expect(sampleValue(families, "t_seconds_count", { k: "x" })).toBe(5)
  })

  test("a series found once counts into the same series as the calls naming its labels", () => {
    const registry = makeRegistry()
    const c = registry.counter("t_total", "t")
    const h = registry.histogram("t_seconds", "t", [0.1, 1])
    const bound = c.series({ k: "x" })
    const timed = h.series({ k: "x" })
    bound.inc()
    c.inc({ k: "x" }, 2)
    bound.inc(4)
    c.inc({ k: "y" })
    timed.observe(0.05)
    h.observe(0.5, { k: "x" })
    timed.observe(5)
    expect(() => bound.inc(-1)).toThrow("a counter only goes up")
    const families = parsePrometheus(registry.render())
    expect(sampleValue(families, "t_total", { k: "x" })).toBe(7)
    expect(sampleValue(families, "t_total", { k: "y" })).toBe(1)
    const bucket = (le: string) => sampleValue(families, "t_seconds_bucket", { k: "x", le })
    expect([bucket("0.1"), bucket("1"), bucket("+Inf")]).toEqual([1, 2, 3])
    expect(sampleValue(families, "t_seconds_sum", { k: "x" })).toBeCloseTo(5.55)
  })

  test("a name or label outside the format is refused", () => {
    const registry = makeRegistry()
    expect(() => registry.counter("bad-name", "x")).toThrow()
    expect(() => registry.counter("ok_total", "x").inc({ "bad-label": "v" })).toThrow()
    expect(() => registry.counter("ok_total", "x")).toThrow()
  })

  test("the library's sink feeds the database families; its default records nothing", async () => {
    const metrics = makeServerMetrics()
    const sink = await runWith(metrics.layer, Metrics)
    sink.observeCommit(0.004, 12)
    sink.observeFsync(0.002)
    sink.setWebhookQueueDepth(3)
    sink.observeDelivery("succeeded", 0.2)
    const families = parsePrometheus(metrics.registry.render())
    expect(sampleValue(families, "encounterd_db_commit_duration_seconds_count")).toBe(1)
    expect(sampleValue(families, "encounterd_db_group_commit_size_bucket", { le: "16" })).toBe(1)
    expect(sampleValue(families, "encounterd_db_group_commit_size_bucket", { le: "8" })).toBe(0)
    expect(sampleValue(families, "encounterd_db_fsync_duration_seconds_sum")).toBeCloseTo(0.002)
    expect(sampleValue(families, "encounterd_webhook_queue_depth")).toBe(3)
    expect(sampleValue(families, "encounterd_webhook_deliveries_total", { outcome: "succeeded" })).toBe(1)
    expect(await runWith(Layer.empty, Effect.map(Metrics, (m) => m === noMetrics))).toBe(true)
  })
})
