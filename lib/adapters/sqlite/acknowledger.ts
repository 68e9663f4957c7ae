import { type MetricsSink, noMetrics } from "../../ports/metrics.js"

/**
 * Flushes committed transactions to stable storage when SQLite itself does not (WAL with
 * `synchronous = NORMAL`): `sync` off the event loop, `syncNow` blocking (at close).
 */
export interface WalSync {
  readonly sync: () => Promise<void>
  readonly syncNow: () => void
}

/** How committed batches become acknowledged: at once, or after a WAL sync begun after their commit. */
export interface Acknowledger {
  readonly after: (answer: () => void, refuse: (cause: unknown) => void) => void
  /** At close: everything still waiting is synced now (blocking) and answered. */
  readonly drainNow: () => void
}

export const acknowledger = (walSync: WalSync | undefined, metrics: MetricsSink = noMetrics): Acknowledger => {
  // SQLite synced the commit itself: durable when it returned.
  if (walSync === undefined) return { after: (answer) => answer(), drainNow: () => undefined }
  type Waiting = { readonly answer: () => void; readonly refuse: (cause: unknown) => void }
  let waiting: Array<Waiting> = []
  let syncing = false
  let closed = false
  const answerAll = (batches: ReadonlyArray<Waiting>) => {
    for (const b of batches) b.answer()
  }
  // Not known to be on disk: nothing of these batches is acknowledged.
  const refuseAll = (batches: ReadonlyArray<Waiting>, cause: unknown) => {
    for (const b of batches) b.refuse(cause)
  }
  const syncNow = (batches: ReadonlyArray<Waiting>) => {
    try {
      walSync.syncNow()
    } catch (cause) {
      return refuseAll(batches, cause)
    }
    answerAll(batches)
  }
  const start = () => {
    const covered = waiting
    waiting = []
    syncing = true
    const started = performance.now()
    walSync
      .sync()
      .finally(() => metrics.observeFsync((performance.now() - started) / 1000))
      .then(
        () => answerAll(covered),
        (cause: unknown) => refuseAll(covered, cause)
      )
      .finally(() => {
        syncing = false
        if (waiting.length > 0) start()
      })
  }
  const drainNow = () => {
    closed = true
    const last = waiting
    waiting = []
    if (last.length > 0) syncNow(last)
  }
  return {
    after: (answer, refuse) => {
      if (closed) return syncNow([{ answer, refuse }])
      waiting.push({ answer, refuse })
      if (!syncing) start()
    },
    drainNow
  }
}

