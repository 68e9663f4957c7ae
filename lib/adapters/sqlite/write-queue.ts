import { Effect, Exit } from "effect"
import { StorageError } from "../../domain/errors.js"
import { sqliteUnavailable } from "../sql/unavailable.js"
import type { MetricsSink } from "../../ports/metrics.js"
import type { Acknowledger } from "./acknowledger.js"
import type { ReadBatching, SqliteDriver } from "./driver.js"

/** Answered by a queued write to undo that write alone and answer `value`. */
export class Undo<A> {
  constructor(readonly value: A) {}
}

interface WriteJob {
  readonly operation: string
  /** Runs the write inside the batch; false when it must be undone (its answer is kept). Throws on failure. */
  readonly run: () => boolean
  /** Answers the caller: with the write's own result, or the failure given. */
  readonly done: (failure?: StorageError) => void
}

/** What the queue tells its owner about a batch: begun (the write lock held), and something undone. */
export interface BatchHooks {
  /** The batch's transaction has begun: no other connection can commit until it ends. */
  readonly begun?: () => void
  /** A write of the batch was undone, or the whole batch rolled back. */
  readonly undone?: () => void
}

export interface WriteQueue {
  /** A write: queued, committed with the others of its batch, answered once the batch is durable. */
  readonly submit: <A>(operation: string, run: () => A | Undo<A>) => Effect.Effect<A, StorageError>
  /** Commits what is queued, now; later writes fail (at close). */
  readonly close: () => void
}

/**
 * Group commit. Concurrent writes queue up; the queue is drained at the end of the event-loop turn
 * in one transaction (each write in a savepoint of its own, so one failing or refused write undoes
 * only itself), committed once, and each caller is answered when the acknowledger says the commit
 * is durable.
 */
export const makeWriteQueue = (
  driver: SqliteDriver,
  reads: ReadBatching,
  acks: Acknowledger,
  maxBatch: number,
  metrics: MetricsSink,
  hooks: BatchHooks = {},
  busyTimeoutMs = 5_000
): WriteQueue => {
  const queue: Array<WriteJob> = []
  let scheduled = false
  let closed = false
  /** Since when another connection has held the write lock, while the queue waits for it. */
  let busySince: number | undefined

  const q = driver.prepare
  const begin = q("BEGIN IMMEDIATE")
  const commit = q("COMMIT")
  const rollback = q("ROLLBACK")
  const savepoint = q("SAVEPOINT w")
  const release = q("RELEASE w")
  const rollbackTo = q("ROLLBACK TO w")

  const failure = (operation: string, cause: unknown) => new StorageError({ operation, cause, unavailable: sqliteUnavailable(cause) })

  const flush = (): void => {
    scheduled = false
    if (queue.length === 0) return
    reads.end()
    // A transaction opened through the SqlClient (an embedder's own) is still running: wait for it
    // (at close there is no waiting: the batch fails to begin and its callers get the error).
    if (driver.inTransaction() && !closed) {
      scheduled = true
      setTimeout(flush, 1)
      return
    }
    // Another connection (the CLI, another process) holds the write lock: wait for it off the event
    // loop, a few milliseconds at a time (SQLite's own busy wait would block every request), and
    // give up after the busy timeout: the batch then fails as unavailable (503, retryable).
    const began = performance.now()
    try {
      begin.run()
    } catch (cause) {
      const now = Date.now()
      busySince ??= now
      if (sqliteUnavailable(cause) === "busy" && !closed && now - busySince < busyTimeoutMs) {
        scheduled = true
        setTimeout(flush, 10)
        return
      }
      busySince = undefined
      for (const job of queue.splice(0, maxBatch)) job.done(failure(job.operation, cause))
      if (queue.length > 0) schedule()
      return
    }
    busySince = undefined
    const batch = queue.splice(0, maxBatch)
    if (queue.length > 0) schedule()
    const failed = new Map<WriteJob, StorageError>()
    try {
      hooks.begun?.()
      for (const job of batch) {
        savepoint.run()
        let keep = false
        try {
          keep = job.run()
        } catch (e) {
          // Some errors (a full disk, I/O) make SQLite roll the whole transaction back: then
          // nothing of the batch stands, and every write in it fails with that cause.
          if (!driver.inTransaction()) throw e
          failed.set(job, failure(job.operation, e))
        }
        if (!keep) {
          rollbackTo.run()
          hooks.undone?.()
        }
        release.run()
      }
      commit.run()
      metrics.observeCommit((performance.now() - began) / 1000, batch.length)
    } catch (cause) {
      if (driver.inTransaction()) rollback.run()
      hooks.undone?.()
      for (const job of batch) job.done(failure(job.operation, cause))
      return
    }
    acks.after(
      () => batch.forEach((job) => job.done(failed.get(job))),
      (cause) => batch.forEach((job) => job.done(failure(job.operation, cause)))
    )
  }

  const schedule = () => {
    if (scheduled) return
    scheduled = true
    // After the I/O callbacks already due: requests that arrived meanwhile join this batch.
    setImmediate(flush)
  }

  return {
    submit: <A>(operation: string, run: () => A | Undo<A>) =>
      Effect.async<A, StorageError>((resume) => {
        if (closed) return resume(Exit.fail(failure(operation, "the database is closed")))
        // Set when the write ran; an error value (which captures a stack) is made only on failure.
        let answer: Exit.Exit<A, StorageError> | undefined
        queue.push({
          operation,
          run: () => {
            const result = run()
            answer = Exit.succeed(result instanceof Undo ? result.value : result)
            return !(result instanceof Undo)
          },
          done: (e) => resume(e !== undefined ? Exit.fail(e) : (answer ?? Exit.fail(failure(operation, "no result"))))
        })
        schedule()
      }),
    close: () => {
      closed = true
      reads.end()
      acks.drainNow()
      while (queue.length > 0) flush()
    }
  }
}
