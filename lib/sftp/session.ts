import { Duration, Effect, Either, Option } from "effect"
import type { ClearinghouseConnectionRecord, ConnectionErrorCode } from "../domain/clearinghouse-connection.js"
import { pollEveryMs } from "../domain/clearinghouse-connection.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { update } from "../ports/write.js"
import { commit } from "../rules/commit.js"
import { importPickup, pickupArchived, pickupFailed, pickupInterrupted, seePickup, startPickupAttempt } from "../rules/sftp-pickups.js"
import { dueUploads, uploadFailed, uploadSucceeded } from "../rules/sftp-uploads.js"
import { open } from "../webhooks/secret-box.js"
import { WebhookSettings } from "../webhooks/settings.js"
import { joinRemote, openSftpSession, SftpError, type SftpSession } from "./client.js"
import { SftpMetrics } from "./metrics.js"
import { backoff, SftpSettings } from "./settings.js"

/** A lease outlives the session it covers by this much; an instance that died frees it after that. */
export const LEASE_MARGIN_MS = 30_000

/** What one session on a connection did. */
export interface SessionRun {
  readonly connection_id: string
  readonly outcome: "claimed-elsewhere" | "succeeded" | "failed"
  readonly uploaded: number
  readonly upload_failures: number
  readonly picked_up: number
  readonly pickup_failures: number
  readonly error?: { readonly code: ConnectionErrorCode; readonly message: string }
}

/** A session's own failures end it; a file's (an upload refused, a file that will not import) are recorded on the file. */
const endsSession = (e: SftpError) => e.code !== "sftp_error" && e.code !== "file_too_large"

/**
 * One session on a connection, under its lease (a compare-and-set on the lease read, so of
 * several instances one holds it): the due uploads, then, when a poll is due, the pickup of the
 * inbound folder. The whole session is bounded by `totalTimeoutMs`. The outcome is recorded on the
 * connection (last success, or the error with a backoff) as the lease is given back.
 */
export const runSession = (c: ClearinghouseConnectionRecord, owner: string) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    const settings = yield* SftpSettings
    const metrics = yield* SftpMetrics
    const startedMs = clock.now()
    const claim = yield* commit({
      operation: "claimClearinghouseConnection",
      steps: [
        update(
          "clearinghouse_connections",
          c.id,
          { workspace_id: c.workspace_id, lease_owner: c.lease_owner, lease_expires_at: c.lease_expires_at },
          { lease_owner: owner, lease_expires_at: isoTime(startedMs + settings.totalTimeoutMs + LEASE_MARGIN_MS) },
          "taken" as const
        )
      ]
    })
    const counts = { uploaded: 0, upload_failures: 0, picked_up: 0, pickup_failures: 0 }
    if (claim._tag === "Refused") return { connection_id: c.id, outcome: "claimed-elsewhere", ...counts } satisfies SessionRun
    const pollDue = c.next_poll_at <= isoTime(startedMs)
    const release = (set: Partial<ClearinghouseConnectionRecord>) =>
      commit({
        operation: "releaseClearinghouseConnection",
        steps: [update("clearinghouse_connections", c.id, { workspace_id: c.workspace_id, lease_owner: owner }, { ...set, lease_owner: null, lease_expires_at: null })]
      })

    const work = Effect.gen(function* () {
      const secret = yield* secretOf(c)
      const session = yield* openSftpSession(
        {
          host: c.settings.host,
          port: c.settings.port,
          username: c.settings.username,
          fingerprint: c.settings.host_key_fingerprint,
          ...(c.auth_method === "password" ? { password: secret } : { privateKey: secret })
        },
        { connectMs: settings.connectTimeoutMs, readMs: settings.readTimeoutMs }
      )
      yield* uploads(c, session, counts)
      if (pollDue) yield* pickups(c, session, counts)
    }).pipe(
      Effect.scoped,
      Effect.timeoutFail({
        duration: Duration.millis(settings.totalTimeoutMs),
        onTimeout: () => new SftpError({ code: "timeout", reason: `the session took longer than ${settings.totalTimeoutMs} ms` })
      }),
      Effect.either
    )
    const result = yield* work.pipe(Effect.onInterrupt(() => Effect.ignore(release({}))))
    const nowMs = clock.now()
    const now = isoTime(nowMs)
    if (Either.isRight(result)) {
      const every = pollEveryMs(c.settings.poll_every) ?? 300_000
      yield* release({
        last_success_at: now,
        last_error: null,
        last_error_code: null,
        last_error_at: null,
        failures: 0,
        retry_at: null,
        ...(pollDue ? { next_poll_at: isoTime(startedMs + every) } : {})
      })
      return { connection_id: c.id, outcome: "succeeded", ...counts } satisfies SessionRun
    }
    const e = result.left
    if (e._tag === "StorageError") {
      yield* Effect.ignore(release({}))
      return yield* e
    }
    const code: ConnectionErrorCode = e.code
    metrics.sessionFailed(c.id, code)
    yield* release({
      last_error: e.message,
      last_error_code: code,
      last_error_at: now,
      failures: c.failures + 1,
      retry_at: isoTime(nowMs + backoff(settings, c.failures + 1))
    })
    return { connection_id: c.id, outcome: "failed", ...counts, error: { code, message: e.message } } satisfies SessionRun
  })

/** The connection's password or key, opened with the server's key. */
const secretOf = (c: ClearinghouseConnectionRecord) =>
  Effect.gen(function* () {
    const key = (yield* WebhookSettings).key
    if (Option.isNone(key)) return yield* new SftpError({ code: "secret_unavailable", reason: "the server has no secret key file" })
    const opened = open(c.secret, key.value, c.id)
    if (Either.isLeft(opened)) return yield* new SftpError({ code: "secret_unavailable", reason: `the stored secret cannot be opened: ${opened.left.reason}` })
    return opened.right
  })

interface Counts {
  uploaded: number
  upload_failures: number
  picked_up: number
  pickup_failures: number
}

/** Drops each due upload, oldest first: a temporary name, then the final one. */
const uploads = (c: ClearinghouseConnectionRecord, session: SftpSession, counts: Counts) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const metrics = yield* SftpMetrics
    for (const u of yield* dueUploads(c)) {
      const batch = yield* storage.get("x12_batches", c.workspace_id, u.batch_id)
      if (Option.isNone(batch)) {
        yield* uploadFailed(u, "the batch no longer exists")
        continue
      }
      const sent = yield* Effect.either(session.writeAtomically(c.settings.outbound_dir, u.file_name, batch.value.file))
      if (Either.isRight(sent)) {
        yield* uploadSucceeded(u)
        metrics.upload(c.id, "uploaded")
        counts.uploaded++
        continue
      }
      yield* uploadFailed(u, sent.left.message)
      metrics.upload(c.id, "failed")
      counts.upload_failures++
      if (endsSession(sent.left)) return yield* sent.left
    }
  })

/**
 * Picks up the inbound folder's files not yet imported, oldest name first: download, import
 * (recorded), then the move to the archive folder. A file already imported but not yet moved (the
 * move failed last time) is only moved.
 */
const pickups = (c: ClearinghouseConnectionRecord, session: SftpSession, counts: Counts) =>
  Effect.gen(function* () {
    const settings = yield* SftpSettings
    const metrics = yield* SftpMetrics
    const files = [...(yield* session.list(c.settings.inbound_dir))].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const archive = c.settings.archive_dir
    for (const f of files) {
      const seen = yield* seePickup(c, f)
      if (seen.status === "failed") continue
      if (seen.status !== "pending") {
        if (archive !== null && seen.archived_at === null) {
          yield* session.move(joinRemote(c.settings.inbound_dir, f.name), joinRemote(archive, f.name))
          yield* pickupArchived(seen)
        }
        continue
      }
      if (f.size > settings.maxFileBytes) {
        yield* pickupFailed(seen, `file_too_large: ${f.size} bytes, more than ${settings.maxFileBytes}`, null)
        metrics.pickup(c.id, "failed")
        counts.pickup_failures++
        continue
      }
      const attempt = yield* startPickupAttempt(seen)
      if (Option.isNone(attempt)) continue
      const p = attempt.value
      const bytes = yield* Effect.either(session.read(joinRemote(c.settings.inbound_dir, f.name), settings.maxFileBytes))
      if (Either.isLeft(bytes)) {
        if (bytes.left.code === "file_too_large") {
          yield* pickupFailed(p, bytes.left.message, null)
          metrics.pickup(c.id, "failed")
          counts.pickup_failures++
          continue
        }
        yield* pickupInterrupted(p, bytes.left.message)
        if (endsSession(bytes.left)) return yield* bytes.left
        continue
      }
      const status = yield* importPickup(c, p, bytes.right)
      metrics.pickup(c.id, status)
      if (status === "failed") {
        counts.pickup_failures++
        continue
      }
      counts.picked_up++
      if (archive !== null) {
        yield* session.move(joinRemote(c.settings.inbound_dir, f.name), joinRemote(archive, f.name))
        yield* pickupArchived(p)
      }
    }
  })
