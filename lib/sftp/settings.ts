import { Context } from "effect"

/**
 * How the clearinghouse worker paces itself: timeouts of a session, the retry backoff of failed
 * sessions and uploads, and the largest file it picks up (the inbound route's 10 MiB). The server
 * takes the defaults; tests shorten them.
 */
export interface SftpSettingsShape {
  /** To connect, agree keys and authenticate. */
  readonly connectTimeoutMs: number
  /** One SFTP request (a listing, a chunk) without an answer for this long ends the session. */
  readonly readTimeoutMs: number
  /** A whole session (every upload and the pickup) ends after this long; what is left waits for the next. */
  readonly totalTimeoutMs: number
  /** The first retry of a failed session or upload waits this long, doubling each time up to `maxBackoffMs`. */
  readonly backoffMs: number
  readonly maxBackoffMs: number
  /** How often the worker looks for due connections. */
  readonly tickMs: number
  /** Largest file picked up, as `POST /api/x12/inbound` takes. */
  readonly maxFileBytes: number
  /** No 999 for an uploaded batch within this long raises `no_999_for_batch`. */
  readonly ackAlertMs: number
  /** No 835 from a payer for this long raises `no_835_from_payer`. */
  readonly payerAlertMs: number
}

export const DEFAULT_SFTP_SETTINGS: SftpSettingsShape = {
  connectTimeoutMs: 20_000,
  readTimeoutMs: 30_000,
  totalTimeoutMs: 10 * 60_000,
  backoffMs: 30_000,
  maxBackoffMs: 3_600_000,
  tickMs: 1_000,
  maxFileBytes: 10 * 1024 * 1024,
  ackAlertMs: 24 * 3_600_000,
  payerAlertMs: 30 * 24 * 3_600_000
}

export class SftpSettings extends Context.Reference<SftpSettings>()("encounters/SftpSettings", {
  defaultValue: (): SftpSettingsShape => DEFAULT_SFTP_SETTINGS
}) {}

/** The wait before the `n`th retry (n from 1): doubling from `backoffMs`, at most `maxBackoffMs`. */
export const backoff = (s: SftpSettingsShape, n: number): number => Math.min(s.maxBackoffMs, s.backoffMs * 2 ** Math.max(0, Math.min(n - 1, 30)))
