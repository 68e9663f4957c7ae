import { Effect, Option } from "effect"
import { StorageError } from "../../domain/errors.js"
import { Metrics } from "../../ports/metrics.js"
import type { StorageShape } from "../../ports/storage.js"
import type { Write, WriteResult } from "../../ports/write.js"
import { type Program, type Row, sqliteDialect } from "../sql/dialect.js"
import { makeReadCaches } from "../sql/read-cache.js"
import { sqliteUnavailable } from "../sql/unavailable.js"
import { executeWrite, type FeedTimes, reads as programs } from "../sql/programs.js"
import { type Executor, makeSqlStorage } from "../sql/storage.js"
import { acknowledger, type WalSync } from "./acknowledger.js"
import type { ReadBatching, SqliteDriver } from "./driver.js"
import { watchDataVersion } from "./data-version.js"
import { makeKeyCache } from "./key-cache.js"
import { makeWriteQueue, Undo } from "./write-queue.js"

export type { WalSync }

export interface SqliteStorageOptions {
  /** Most writes committed together in one transaction (default 256). */
  readonly maxBatch?: number
  /**
   * When given, a batch is answered only after `sync` has completed after its commit. One sync
   * runs at a time; the batches committed while it runs share the next one.
   */
  readonly walSync?: WalSync
  /**
   * Keep what was read for the reads to come (`sql/read-cache.ts`): recorded feed events (default
   * 10,000, about 10 MB) and encounters at their row revision (default 256, a few KB each). On unless false.
   */
  readonly readCache?: boolean
  readonly eventCacheSize?: number
}

const NO_ROWS: ReadonlyArray<Row> = []
const ONE_ROW: ReadonlyArray<Row> = [{}]
/** A counted write's answer: as many empty rows as it changed (usually none or one). */
const changedRows = (n: number): ReadonlyArray<Row> => (n === 0 ? NO_ROWS : n === 1 ? ONE_ROW : Array.from({ length: n }, () => ({})))

/** Runs a program synchronously on the connection: statements are prepared once and cached by text. */
const runOn =
  (driver: SqliteDriver) =>
  <A>(program: Program<A>): A => {
    let step = program.next()
    while (step.done !== true) {
      const q = step.value
      const stmt = driver.prepare(q.sql)
      if (q.kind === "rows") step = program.next(stmt.all(...q.params))
      else {
        const n = stmt.run(...q.params)
        step = program.next(q.kind === "count" ? changedRows(n) : NO_ROWS)
      }
    }
    return step.value
  }

/**
 * The SQLite adapter: the shared SQL programs run synchronously on one connection, writes through
 * the group-commit queue, reads at once (those of one turn of the event loop in one read
 * transaction, see `ReadBatching`), and API keys through a cache.
 */
export const makeSqliteStorage = (driver: SqliteDriver, reads: ReadBatching, options: SqliteStorageOptions = {}) =>
  Effect.gen(function* () {
    const run = runOn(driver)
    const metrics = yield* Metrics
    // Each workspace's newest recorded event time, read once and then kept while this connection
    // is the feed's only writer: dropped when a batch begins after another connection committed
    // (`PRAGMA data_version`, read with the write lock held) and whenever a write is undone.
    const feedTimes = new Map<string, string>()
    const feed: FeedTimes = { get: (ws) => feedTimes.get(ws), set: (ws, at) => void feedTimes.set(ws, at) }
    const others = watchDataVersion(driver)
    const queue = makeWriteQueue(driver, reads, acknowledger(options.walSync, metrics), options.maxBatch ?? 256, metrics, {
      begun: () => {
        if (others.changedElsewhere()) feedTimes.clear()
      },
      undone: () => feedTimes.clear()
    })
    const keys = makeKeyCache(driver)
    // Pending writes are committed before the connection closes.
    yield* Effect.addFinalizer(() => Effect.sync(queue.close))

    const read = <A>(operation: string, f: () => A): Effect.Effect<A, StorageError> =>
      Effect.try({
        try: () => {
          reads.ensure()
          return f()
        },
        catch: (cause) => new StorageError({ operation, cause, unavailable: sqliteUnavailable(cause) })
      })
    const exec: Executor = {
      dialect: sqliteDialect,
      ...(options.readCache === false
        ? {}
        : { caches: makeReadCaches({ events: options.eventCacheSize ?? 10_000 }) }),
      read: (operation, program) => read(operation, () => run(program)),
      write: <R>(w: Write<R>) =>
        queue.submit<WriteResult<R>>(w.operation, () => {
          if (w.steps.some((s) => s._tag !== "AppendEvent" && s.table === "api_keys")) keys.clear()
          const result = run(executeWrite(sqliteDialect, w, feed))
          return result._tag === "Refused" ? new Undo(result) : result
        })
    }
    const storage: StorageShape = {
      ...makeSqlStorage(exec),
      findApiKeyByHash: (hash) =>
        read("findApiKeyByHash", () => {
          const cached = keys.get(hash)
          if (cached !== undefined) return Option.some(cached)
          const found = run(programs.apiKeyByHash(hash))
          if (Option.isSome(found)) keys.set(hash, found.value)
          return found
        })
    }
    return storage
  })
