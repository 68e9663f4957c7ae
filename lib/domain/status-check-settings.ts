import { Schema } from "effect"
import { FieldIssue } from "./errors.js"
import { MAX_WINDOW_DAYS, STATUS_CHECK_DEFAULTS, StatusCheckTransport } from "./status-check.js"

/** The follow-up settings as a request sets them and as they are shown (the password never is). */

const whole = (min: number, max: number) =>
  Schema.Number.pipe(Schema.int({ message: () => "must be a whole number" }), Schema.between(min, max, { message: () => `must be from ${min} to ${max}` }))

const X12_SAFE = /^[\x20-\x7E]+$/
/** An id that ends up in an X12 element or a CORE envelope field: printable, no delimiter. */
const Identifier = Schema.String.pipe(
  Schema.filter((s) =>
    X12_SAFE.test(s) && !/[*~:^]/.test(s) && s.trim() === s && s.length <= 80 ? true : "must be 1 to 80 printable characters without * ~ : ^ or edge spaces"
  )
)

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"])

/** https, or http to the machine itself (a local gateway, tests): credentials never cross a network in clear. */
export const CoreUrl = Schema.String.pipe(
  Schema.filter((s) => {
    try {
      const u = new URL(s)
      if (u.protocol === "https:" || (u.protocol === "http:" && LOOPBACK.has(u.hostname))) return true
      return "must be an https URL (http only to 127.0.0.1, localhost or [::1])"
    } catch {
      return "must be an absolute URL"
    }
  })
)

const Text = (max: number) => Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }), Schema.maxLength(max))

export const CoreConnectionInput = Schema.Struct({
  url: CoreUrl,
  sender_id: Identifier,
  receiver_id: Identifier,
  username: Text(256),
  /** Write-only: kept sealed; left out, the stored one is kept. */
  password: Schema.optionalWith(Text(256), { exact: true })
})

export const StatusCheckSettingsInput = Schema.Struct({
  enabled: Schema.Boolean,
  first_after_days: Schema.optionalWith(whole(0, 365), { default: () => STATUS_CHECK_DEFAULTS.first_after_days }),
  every_days: Schema.optionalWith(whole(1, 365), { default: () => STATUS_CHECK_DEFAULTS.every_days }),
  max_checks: Schema.optionalWith(whole(1, 50), { default: () => STATUS_CHECK_DEFAULTS.max_checks }),
  window_days: Schema.optionalWith(whole(0, MAX_WINDOW_DAYS), { default: () => STATUS_CHECK_DEFAULTS.window_days }),
  transport: Schema.optionalWith(StatusCheckTransport, { default: () => "file" as const }),
  core: Schema.optionalWith(Schema.NullOr(CoreConnectionInput), { default: () => null })
}).pipe(
  Schema.filter((s) => (s.transport === "core" && s.core === null ? { path: ["core"], message: "is required when transport is core" } : undefined))
)
export type StatusCheckSettingsInput = typeof StatusCheckSettingsInput.Type

/** The settings as shown: the `core` connection without its password. */
export const StatusCheckSettings = Schema.Struct({
  enabled: Schema.Boolean,
  first_after_days: Schema.Number,
  every_days: Schema.Number,
  max_checks: Schema.Number,
  window_days: Schema.Number,
  transport: StatusCheckTransport,
  core: Schema.NullOr(Schema.Struct({ url: Schema.String, sender_id: Schema.String, receiver_id: Schema.String, username: Schema.String }))
}).annotations({ identifier: "StatusCheckSettings" })
export type StatusCheckSettings = typeof StatusCheckSettings.Type

// ---- errors ---------------------------------------------------------------------------------

export class InvalidStatusCheckSettings extends Schema.TaggedError<InvalidStatusCheckSettings>()("InvalidStatusCheckSettings", {
  errors: Schema.Array(FieldIssue)
}) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

export class StatusCheckSettingsNotFound extends Schema.TaggedError<StatusCheckSettingsNotFound>()("StatusCheckSettingsNotFound", {}) {
  override get message() {
    return "This workspace has no status check settings"
  }
}

export class StatusCheckNotFound extends Schema.TaggedError<StatusCheckNotFound>()("StatusCheckNotFound", { id: Schema.String }) {
  override get message() {
    return "No such status check in this workspace"
  }
}

/** A status inquiry about a claim that was never sent to a payer. */
export class ClaimNotSubmitted extends Schema.TaggedError<ClaimNotSubmitted>()("ClaimNotSubmitted", {
  claim_id: Schema.String,
  status: Schema.String
}) {
  override get message() {
    return `The claim is ${this.status}: it was never submitted to a payer, so there is no status to ask for`
  }
}
