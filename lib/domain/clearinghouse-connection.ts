import { Either, ParseResult, Schema } from "effect"
import { FieldIssue } from "./errors.js"
import { WorkspaceId } from "./ids.js"
import { formatPath } from "./validate.js"
import { SealedSecret } from "./webhook.js"

/**
 * A workspace's SFTP connection to a clearinghouse: where batches are dropped (`outbound_dir`),
 * where answers are picked up (`inbound_dir`, moved to `archive_dir` once imported), how often
 * (`poll_every`), and the host key it is pinned to. Its password or private key is stored sealed
 * like webhook signing secrets and never shown again.
 */

const text = (min: number, max: number, what: string) =>
  Schema.String.annotations({ message: () => `must be a string (${what})` }).pipe(
    Schema.filter((s) => {
      if (s.length < min || s.length > max) return `must be ${min} to ${max} characters`
      if (/[\x00-\x1F\x7F]/.test(s)) return "must not hold control characters"
      return true
    })
  )

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^\[?[0-9A-Fa-f:.]+\]?$/

const Host = text(1, 253, "a host name or address").pipe(Schema.filter((s) => HOST.test(s) || "must be a host name or an IP address"))

const Port = Schema.Number.annotations({ message: () => "must be a number" }).pipe(
  Schema.filter((n) => (Number.isInteger(n) && n >= 1 && n <= 65535) || "must be an integer from 1 to 65535")
)

/** `SHA256:` and 43 base64 characters: what `ssh-keygen -lf` and OpenSSH's prompts print. */
export const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/
const Fingerprint = Schema.String.annotations({ message: () => "must be a string" }).pipe(
  Schema.filter((s) => FINGERPRINT.test(s) || "must be SHA256: and the key's 43-character base64 fingerprint (ssh-keygen -lf KEY, or ssh-keyscan HOST | ssh-keygen -lf -)")
)

const RemoteDir = text(1, 1024, "a folder on the server").pipe(
  Schema.filter((s) => (!s.split("/").includes("..") && s.trim() === s) || "must not hold .. segments or edge spaces")
)

const POLL = /^(\d{1,5})(s|m|h)$/
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const
export const MIN_POLL_MS = 1000
export const MAX_POLL_MS = 24 * 3_600_000

/** `poll_every` in milliseconds ("90s", "5m", "1h"), or undefined when malformed or outside 1s to 24h. */
export const pollEveryMs = (s: string): number | undefined => {
  const m = POLL.exec(s)
  if (m === null) return undefined
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
  return ms >= MIN_POLL_MS && ms <= MAX_POLL_MS ? ms : undefined
}

const PollEvery = Schema.String.annotations({ message: () => "must be a string such as 5m" }).pipe(
  Schema.filter((s) => pollEveryMs(s) !== undefined || "must be a duration from 1s to 24h, in seconds, minutes or hours (30s, 5m, 1h)")
)

const Flag = Schema.Boolean.annotations({ message: () => "must be true or false" })

const Password = text(1, 1024, "the password")
const PrivateKey = Schema.String.annotations({ message: () => "must be a string (a private key in OpenSSH or PEM form)" }).pipe(
  Schema.filter((s) => (s.length <= 16_384 && /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(s)) || "must be an unencrypted private key in OpenSSH or PEM form, at most 16 KiB")
)

/** What a connection is set to (stored as one JSON value, shown as given). */
export const ConnectionSettings = Schema.Struct({
  name: text(1, 100, "the connection's name"),
  host: Host,
  port: Port,
  username: text(1, 100, "the user name"),
  host_key_fingerprint: Fingerprint,
  outbound_dir: RemoteDir,
  inbound_dir: RemoteDir,
  archive_dir: Schema.NullOr(RemoteDir),
  poll_every: PollEvery,
  upload_batches: Flag,
  enabled: Flag
})
export type ConnectionSettings = typeof ConnectionSettings.Type

const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/** The body of a create: the settings (port 22, poll_every 5m, no archive, uploads and polling on by default) and one secret. */
export const ConnectionCreate = Schema.Struct({
  ...ConnectionSettings.fields,
  port: optional(Port),
  archive_dir: optional(Schema.NullOr(RemoteDir)),
  poll_every: optional(PollEvery),
  upload_batches: optional(Flag),
  enabled: optional(Flag),
  password: optional(Password),
  private_key: optional(PrivateKey)
}).pipe(
  Schema.filter((c) =>
    (c.password === undefined) === (c.private_key === undefined)
      ? { path: ["password"], message: "exactly one of password and private_key is required" }
      : undefined
  )
)
export type ConnectionCreate = typeof ConnectionCreate.Type

/** The body of a change: any settings, and a new secret (either kind) when given. */
export const ConnectionPatch = Schema.Struct({
  name: optional(ConnectionSettings.fields.name),
  host: optional(Host),
  port: optional(Port),
  username: optional(ConnectionSettings.fields.username),
  host_key_fingerprint: optional(Fingerprint),
  outbound_dir: optional(RemoteDir),
  inbound_dir: optional(RemoteDir),
  archive_dir: optional(Schema.NullOr(RemoteDir)),
  poll_every: optional(PollEvery),
  upload_batches: optional(Flag),
  enabled: optional(Flag),
  password: optional(Password),
  private_key: optional(PrivateKey)
}).pipe(
  Schema.filter((c) =>
    c.password !== undefined && c.private_key !== undefined ? { path: ["password"], message: "give password or private_key, not both" } : undefined
  )
)
export type ConnectionPatch = typeof ConnectionPatch.Type

export const AuthMethod = Schema.Literal("password", "private_key")
export type AuthMethod = typeof AuthMethod.Type

/** Why the latest session failed (the closed set metrics and alerts count by). */
export const ConnectionErrorCode = Schema.Literal(
  "fingerprint_mismatch",
  "auth_failed",
  "connect_failed",
  "timeout",
  "connection_lost",
  "file_too_large",
  "sftp_error",
  "secret_unavailable"
)
export type ConnectionErrorCode = typeof ConnectionErrorCode.Type

/** The last 835 picked up from each payer (by payer id, or name without one): the quiet-payer alert reads it. */
export const PayerLastSeen = Schema.Record({ key: Schema.String, value: Schema.Struct({ name: Schema.String, at: Schema.String }) })

export const ClearinghouseConnectionRecord = Schema.Struct({
  id: Schema.String,
  workspace_id: WorkspaceId,
  settings: ConnectionSettings,
  auth_method: AuthMethod,
  /** The password or private key, sealed (context: the connection's id). */
  secret: SealedSecret,
  created_at: Schema.String,
  updated_at: Schema.String,
  /** Batches created from this time on are uploaded (set when `upload_batches` is turned on). */
  uploads_since: Schema.NullOr(Schema.String),
  last_success_at: Schema.NullOr(Schema.String),
  last_error: Schema.NullOr(Schema.String),
  last_error_code: Schema.NullOr(ConnectionErrorCode),
  last_error_at: Schema.NullOr(Schema.String),
  /** Sessions failed in a row: the next one waits longer (`retry_at`). */
  failures: Schema.Number,
  retry_at: Schema.NullOr(Schema.String),
  next_poll_at: Schema.String,
  /** The instance holding the connection's one session (a compare-and-set lease). */
  lease_owner: Schema.NullOr(Schema.String),
  lease_expires_at: Schema.NullOr(Schema.String),
  payers: PayerLastSeen
})
export type ClearinghouseConnectionRecord = typeof ClearinghouseConnectionRecord.Type

/** An alert a connection raises (see docs/operations.md). */
export const ConnectionAlert = Schema.Struct({
  code: Schema.Literal("no_999_for_batch", "no_835_from_payer"),
  message: Schema.String,
  /** The batch (no_999_for_batch) or the payer's id or name (no_835_from_payer). */
  subject: Schema.String,
  since: Schema.String
}).annotations({ identifier: "ClearinghouseConnectionAlert" })
export type ConnectionAlert = typeof ConnectionAlert.Type

/** A connection as the API shows it: never its secret. */
export const ClearinghouseConnection = Schema.Struct({
  id: Schema.String,
  ...ConnectionSettings.fields,
  auth_method: AuthMethod,
  created_at: Schema.String,
  updated_at: Schema.String,
  last_success_at: Schema.NullOr(Schema.String),
  last_error: Schema.NullOr(Schema.String),
  last_error_code: Schema.NullOr(ConnectionErrorCode),
  last_error_at: Schema.NullOr(Schema.String),
  next_poll_at: Schema.NullOr(Schema.String),
  retry_at: Schema.NullOr(Schema.String),
  pending_uploads: Schema.optionalWith(Schema.Number, { exact: true }),
  alerts: Schema.optionalWith(Schema.Array(ConnectionAlert), { exact: true })
}).annotations({ identifier: "ClearinghouseConnection" })
export type ClearinghouseConnection = typeof ClearinghouseConnection.Type

export const toConnectionView = (r: ClearinghouseConnectionRecord): ClearinghouseConnection => ({
  id: r.id,
  ...r.settings,
  auth_method: r.auth_method,
  created_at: r.created_at,
  updated_at: r.updated_at,
  last_success_at: r.last_success_at,
  last_error: r.last_error,
  last_error_code: r.last_error_code,
  last_error_at: r.last_error_at,
  next_poll_at: r.settings.enabled ? r.next_poll_at : null,
  retry_at: r.retry_at
})

/** The connection's input broke one or more rules; every problem is listed with its path. */
export class InvalidConnectionInput extends Schema.TaggedError<InvalidConnectionInput>()("InvalidConnectionInput", {
  errors: Schema.Array(FieldIssue)
}) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

export class ConnectionNotFound extends Schema.TaggedError<ConnectionNotFound>()("ConnectionNotFound", { id: Schema.String }) {
  override get message() {
    return `No clearinghouse connection with id ${this.id}`
  }
}

export class PickupNotFound extends Schema.TaggedError<PickupNotFound>()("PickupNotFound", { id: Schema.String }) {
  override get message() {
    return `No pickup with id ${this.id}`
  }
}

const decoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })
  return (input: unknown): Either.Either<A, InvalidConnectionInput> =>
    Either.mapLeft(
      decode(input),
      (error) =>
        new InvalidConnectionInput({
          errors: ParseResult.ArrayFormatter.formatErrorSync(error)
            .slice(0, 100)
            .map((i) => new FieldIssue({ path: formatPath(i.path), message: i._tag === "Missing" ? "is required" : i._tag === "Unexpected" ? "is not a field of a connection" : i.message }))
        })
    )
}

export const decodeConnectionCreate = decoder(ConnectionCreate)
export const decodeConnectionPatch = decoder(ConnectionPatch)
