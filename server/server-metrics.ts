import { readFileSync } from "node:fs"
import { Layer } from "effect"
import { Metrics, type MetricsSink } from "../lib/ports/metrics.js"
import { buildInfo } from "./build-info.js"
import { makeRegistry, type Registry } from "./metrics.js"

/** Request latencies are mostly well under a millisecond; writes wait for an fsync (milliseconds). */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const FSYNC_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
/** A group commit carries at most 256 writes (the SQLite adapter's cap). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256]

/** Methods a label may name; anything else a client sends is counted as `other`. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

export interface ServerMetrics {
  readonly registry: Registry
  /** For the storage layer: `Layer.provide(metrics.layer)` makes the adapter report into this registry. */
  readonly sink: MetricsSink
  readonly layer: Layer.Layer<Metrics>
  /** One answered request; `route` is the declared path template, or undefined when none matched. */
  readonly observeRequest: (route: string | undefined, method: string, status: number, seconds: number) => void
  readonly rateLimited: () => void
  /** A full collection of the heap made by the heap pacer (server/heap-pacer.ts), with its pause. */
  readonly heapCollected: (pauseSeconds: number) => void
  /** A young collection made by the heap pacer, with its pause. */
  readonly heapYoungCollected: (pauseSeconds: number) => void
}

/** Resident set size from /proc (Linux); elsewhere the runtime's own figure. */
const residentBytes = (): number => {
  try {
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]
    if (kb !== undefined) return Number(kb) * 1024
  } catch {
    // Not Linux: fall through.
  }
  return process.memoryUsage.rss()
}

export const makeServerMetrics = (): ServerMetrics => {
  const registry = makeRegistry()
  const build = buildInfo()
  registry
    .gauge("encounterd_build_info", "Version, commit and build date of the running binary (always 1)")
    .set(1, { version: build.version, commit: build.commit, built: build.built })
  const requests = registry.counter("encounterd_http_requests_total", "HTTP requests answered, by route template, method and status")
  const latency = registry.histogram(
    "encounterd_http_request_duration_seconds",
    "Time from receiving a request to its answer, by route template and method",
    LATENCY_BUCKETS
  )
  const limited = registry.counter("encounterd_rate_limited_total", "Requests refused with 429 by the per-key rate limit")
  const commit = registry.histogram("encounterd_db_commit_duration_seconds", "Duration of database commits", LATENCY_BUCKETS)
  const fsync = registry.histogram("encounterd_db_fsync_duration_seconds", "Duration of fsyncs of the database or its WAL", FSYNC_BUCKETS)
  const groupSize = registry.histogram("encounterd_db_group_commit_size", "Writes carried by one database commit", BATCH_BUCKETS)
  const queueDepth = registry.gauge("encounterd_webhook_queue_depth", "Webhook deliveries waiting in the outbox")
  const deliveries = registry.counter("encounterd_webhook_deliveries_total", "Webhook delivery attempts, by outcome")
  const deliveryLatency = registry.histogram("encounterd_webhook_delivery_duration_seconds", "Duration of webhook delivery attempts", LATENCY_BUCKETS)
  const pacedCollections = registry.counter("encounterd_heap_paced_collections_total", "Full collections of the JavaScript heap made by the heap pacer")
  const pacedPause = registry.counter("encounterd_heap_paced_pause_seconds_total", "Time the event loop spent in the heap pacer's full collections")
  const pacedYoung = registry.counter("encounterd_heap_paced_young_collections_total", "Young-generation collections of the JavaScript heap made by the heap pacer")
  const pacedYoungPause = registry.counter("encounterd_heap_paced_young_pause_seconds_total", "Time the event loop spent in the heap pacer's young collections")
  registry.gauge("process_resident_memory_bytes", "Resident memory size in bytes", residentBytes)
  const startSeconds = Math.round((Date.now() / 1000 - process.uptime()) * 1000) / 1000
  registry.gauge("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds", () => startSeconds)

  /**
   * The two series of each route, method and status answered, found once: a closed set (route
   * templates, the methods named above, the statuses the server answers), like the labels.
   */
  const requestSeries = new Map<string, { readonly answered: { readonly inc: () => void }; readonly took: { readonly observe: (seconds: number) => void } }>()

  const sink: MetricsSink = {
    observeCommit: (seconds, batchSize) => {
      commit.observe(seconds)
      groupSize.observe(batchSize)
    },
    observeFsync: (seconds) => fsync.observe(seconds),
    setWebhookQueueDepth: (depth) => queueDepth.set(depth),
    observeDelivery: (outcome, seconds) => {
      deliveries.inc({ outcome })
      deliveryLatency.observe(seconds)
    }
  }

  return {
    registry,
    sink,
    layer: Layer.succeed(Metrics, sink),
    observeRequest: (route, method, status, seconds) => {
      const r = route ?? "unmatched"
      const m = METHODS.has(method) ? method : "other"
      const key = `${status} ${m} ${r}`
      let found = requestSeries.get(key)
      if (found === undefined) {
        found = { answered: requests.series({ route: r, method: m, status: String(status) }), took: latency.series({ route: r, method: m }) }
        requestSeries.set(key, found)
      }
      found.answered.inc()
      found.took.observe(seconds)
    },
    rateLimited: () => limited.inc(),
    heapCollected: (pauseSeconds) => {
      pacedCollections.inc()
      pacedPause.inc({}, pauseSeconds)
    },
    heapYoungCollected: (pauseSeconds) => {
      pacedYoung.inc()
      pacedYoungPause.inc({}, pauseSeconds)
    }
  }
}
