import { randomUUID } from "node:crypto"
import { Effect, Layer, Option } from "effect"
import type { WorkspaceId } from "../domain/ids.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { DEFAULT_CORE_TIMEOUT_MS } from "../status-checks/core-client.js"
import { WebhookSettings } from "../webhooks/settings.js"
import { StatusCheckSignal } from "./status-check-signal.js"
import { type CoreRun, DEFAULT_RETRY_DELAYS_MS, sendCoreCheck } from "./status-checks-core.js"
import { scheduleFollowUps } from "./status-checks-schedule.js"

export interface StatusCheckWorkerOptions {
  /** How often due follow-ups are looked for (`--status-check-poll`; default 60 s). */
  readonly pollMs?: number
  /** `core` exchanges under way at once per workspace (default 4). */
  readonly perWorkspace?: number
  /** The `core` exchange's timeout (default 20 s, the CORE rule's). */
  readonly timeoutMs?: number
  readonly retryDelaysMs?: ReadonlyArray<number>
  /** Told of every `core` send's outcome (tests, metrics). */
  readonly onSend?: (run: CoreRun) => void
}

export const DEFAULT_STATUS_CHECK_POLL_MS = 60_000
/** How often due `core` checks (retries among them) are looked for between follow-up rounds. */
const CORE_POLL_MS = 5_000

/** The `core` checks of a workspace due now, soonest first: queued, due, and not leased (or leased past expiry). */
const dueCoreChecks = (ws: WorkspaceId, now: string) =>
  Effect.map(Effect.flatMap(Storage, (s) => s.page("status_checks", ws, { where: { status: "queued" }, limit: 100 })), (rows) =>
    rows
      .filter((c) => c.transport === "core" && c.next_attempt_at !== null && c.next_attempt_at <= now && (c.lease_expires_at === null || c.lease_expires_at <= now))
      .sort((a, b) => ((a.next_attempt_at ?? "") < (b.next_attempt_at ?? "") ? -1 : 1))
  )

/**
 * One round of the worker: with `schedule`, the due follow-ups of every workspace whose settings
 * are enabled; then every workspace's due `core` checks, at most `perWorkspace` exchanges at once
 * per workspace (workspaces side by side). Answers when every exchange it started has ended.
 */
export const statusCheckRound = (owner: string, schedule: boolean, options: StatusCheckWorkerOptions = {}) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    const webhooks = yield* WebhookSettings
    const send = {
      timeoutMs: options.timeoutMs ?? DEFAULT_CORE_TIMEOUT_MS,
      retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
      key: webhooks.key
    }
    const workspaces = yield* storage.listWorkspaces()
    if (schedule) {
      for (const ws of workspaces) {
        const settings = yield* storage.get("status_check_settings", ws.id, ws.id)
        if (Option.isSome(settings) && settings.value.settings.enabled) yield* scheduleFollowUps(ws.id, settings.value.settings)
      }
    }
    const now = isoTime(clock.now())
    yield* Effect.forEach(
      workspaces,
      (ws) =>
        Effect.flatMap(dueCoreChecks(ws.id, now), (due) =>
          Effect.forEach(
            due,
            (check) =>
              sendCoreCheck(check, owner, send).pipe(
                Effect.tap((run) => Effect.sync(() => options.onSend?.(run))),
                // A storage failure leaves the lease to expire: the check is sent again later.
                Effect.catchAll(() => Effect.void)
              ),
            { concurrency: options.perWorkspace ?? 4, discard: true }
          )
        ),
      { concurrency: "unbounded", discard: true }
    )
  })

/**
 * The status check worker: at start and every `pollMs` it makes the due follow-ups; between
 * those, and whenever a `core` check is queued in this process, it sends the due `core` checks.
 * Follow-ups are unique per round and `core` sends are leased, so several instances on one
 * database make and send each due inquiry once; queued checks survive restarts.
 */
export const runStatusCheckWorker = (options: StatusCheckWorkerOptions = {}) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    const signal = yield* Effect.serviceOption(StatusCheckSignal)
    const local = Option.isSome(signal) ? signal.value : yield* Effect.provide(StatusCheckSignal, StatusCheckSignal.live)
    const pollMs = options.pollMs ?? DEFAULT_STATUS_CHECK_POLL_MS
    const owner = randomUUID()
    let scheduledAt = Number.NEGATIVE_INFINITY
    for (;;) {
      const now = clock.now()
      const schedule = now - scheduledAt >= pollMs
      if (schedule) scheduledAt = now
      yield* statusCheckRound(owner, schedule, options).pipe(Effect.catchAll(() => Effect.void))
      yield* local.wait(Math.min(pollMs, CORE_POLL_MS))
    }
  })

export const StatusCheckWorker = {
  layer: (options: StatusCheckWorkerOptions = {}) => Layer.scopedDiscard(Effect.forkScoped(runStatusCheckWorker(options)))
}
