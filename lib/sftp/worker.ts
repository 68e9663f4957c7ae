import { randomUUID } from "node:crypto"
import { Effect, FiberSet, Layer } from "effect"
import type { ClearinghouseConnectionRecord } from "../domain/clearinghouse-connection.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { connectionAlerts } from "../rules/sftp-alerts.js"
import { dueUploads, queueNewBatches } from "../rules/sftp-uploads.js"
import { SftpMetrics } from "./metrics.js"
import { runSession, type SessionRun } from "./session.js"
import { SftpSettings } from "./settings.js"

export interface SftpWorkerOptions {
  /** Told of every session run (tests, logs). */
  readonly onRun?: (run: SessionRun) => void
  /** This instance's lease owner (a fresh one by default). */
  readonly owner?: string
}

/** How often the connections' state (alerts, pending uploads, last success) is read for `/metrics`. */
const STATE_EVERY_MS = 60_000

/** Every connection of every workspace (a few per workspace), one page of the connections at a time. */
const allConnections = Effect.gen(function* () {
  const storage = yield* Storage
  const out: Array<ClearinghouseConnectionRecord> = []
  for (const ws of yield* storage.listWorkspaces()) {
    let position: { readonly dir: "next"; readonly key: ReadonlyArray<string | number> } | undefined
    for (;;) {
      const rows = yield* storage.page("clearinghouse_connections", ws.id, { position, limit: 100 })
      out.push(...rows.slice(0, 100))
      const last = rows[99]
      if (rows.length <= 100 || last === undefined) break
      position = { dir: "next", key: [last.created_at, last.id] }
    }
  }
  return out
})

/**
 * Whether a connection has work now: enabled, past its failure backoff, with its lease free (or
 * expired), and a poll due or an upload due. New batches are queued first.
 */
const isDue = (c: ClearinghouseConnectionRecord, now: string) =>
  Effect.gen(function* () {
    if (!c.settings.enabled) return false
    if (c.retry_at !== null && c.retry_at > now) return false
    if (c.lease_owner !== null && c.lease_expires_at !== null && c.lease_expires_at > now) return false
    yield* queueNewBatches(c)
    if (c.next_poll_at <= now) return true
    return (yield* dueUploads(c)).length > 0
  })

/**
 * One pass: a session on every connection that has work, one at a time, answered when all are
 * done. What the worker runs on each tick (with sessions of different connections side by side).
 */
export const runDueSessions = (owner: string) =>
  Effect.gen(function* () {
    const now = isoTime((yield* Clock).now())
    const runs: Array<SessionRun> = []
    for (const c of yield* allConnections) {
      if (yield* isDue(c, now)) runs.push(yield* runSession(c, owner))
    }
    return runs
  })

/** Reads each connection's state for `/metrics`: seconds since success, pending uploads, alerts. */
const reportState = (seen: Set<string>) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const metrics = yield* SftpMetrics
    const now = new Set<string>()
    for (const c of yield* allConnections) {
      now.add(c.id)
      const pending = yield* storage.page("clearinghouse_uploads", c.workspace_id, { where: { connection_id: c.id, status: "pending" }, limit: 100 })
      const alerts: Record<string, number> = { no_999_for_batch: 0, no_835_from_payer: 0 }
      for (const a of yield* connectionAlerts(c)) alerts[a.code] = (alerts[a.code] ?? 0) + 1
      metrics.connectionState(c.id, {
        lastSuccessMs: c.last_success_at === null ? undefined : Date.parse(c.last_success_at),
        pendingUploads: Math.min(pending.length, 100),
        alerts
      })
    }
    for (const id of seen) if (!now.has(id)) metrics.forget(id)
    seen.clear()
    for (const id of now) seen.add(id)
  })

/**
 * The clearinghouse worker: every `tickMs`, a session on each connection that has work (at most
 * one per connection here, and one over every instance by the connection's lease), its
 * sessions side by side. Failures are recorded on the connection and retried after a backoff;
 * pending uploads and pickups survive restarts. Runs until interrupted.
 */
export const runSftpWorker = (options: SftpWorkerOptions = {}) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    const settings = yield* SftpSettings
    const owner = options.owner ?? randomUUID()
    const fibers = yield* FiberSet.make<void, never>()
    const busy = new Set<string>()
    const reported = new Set<string>()
    let reportedAt = 0
    for (;;) {
      const nowMs = clock.now()
      const now = isoTime(nowMs)
      yield* Effect.gen(function* () {
        for (const c of yield* allConnections) {
          if (busy.has(c.id)) continue
          if (!(yield* isDue(c, now))) continue
          busy.add(c.id)
          yield* FiberSet.run(fibers)(
            runSession(c, owner).pipe(
              Effect.tap((run) => Effect.sync(() => options.onRun?.(run))),
              // A storage failure leaves the lease to expire: the connection is tried again then.
              Effect.catchAll(() => Effect.void),
              Effect.asVoid,
              Effect.ensuring(Effect.sync(() => busy.delete(c.id)))
            )
          )
        }
        if (nowMs - reportedAt >= STATE_EVERY_MS) {
          reportedAt = nowMs
          yield* reportState(reported)
        }
      }).pipe(Effect.catchAll(() => Effect.void))
      yield* Effect.sleep(settings.tickMs)
    }
  }).pipe(Effect.scoped)

/** The worker as a layer: it runs while the layer is alive. */
export const SftpWorker = {
  layer: (options: SftpWorkerOptions = {}) => Layer.scopedDiscard(Effect.forkScoped(runSftpWorker(options)))
}
