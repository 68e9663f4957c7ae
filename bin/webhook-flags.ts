import { Either } from "effect"
import { DEFAULT_MAX_ENDPOINTS, type WebhookSettingsOptions } from "../lib/webhooks/settings.js"
import { DEFAULT_RETRY_SCHEDULE, DEFAULT_TIMEOUT, parseRetrySchedule, parseTimeout } from "../lib/webhooks/schedule.js"
import { type CommandSpec, int, type Parsed, str, UsageError } from "./args.js"

/** The most `--webhook-max-endpoints` may be: each endpoint may hold 4 of the worker's attempts. */
const MAX_ENDPOINTS_LIMIT = 10_000

/** The webhook flags of `serve` (and of the CLI's `webhooks create`, which checks targets too). */
export const webhookFlagSpecs = {
  "webhook-retry-schedule": {
    type: "string",
    env: "ENCOUNTERD_WEBHOOK_RETRY_SCHEDULE",
    help: `Delay before each delivery attempt, the first included (default ${DEFAULT_RETRY_SCHEDULE})`
  },
  "webhook-timeout": { type: "string", env: "ENCOUNTERD_WEBHOOK_TIMEOUT", help: `Time allowed for one attempt (default ${DEFAULT_TIMEOUT})` },
  "webhook-allow-private": {
    type: "boolean",
    env: "ENCOUNTERD_WEBHOOK_ALLOW_PRIVATE",
    help: "Allow webhook targets on loopback, private, link-local and unique-local addresses (on-premises receivers)"
  },
  "webhook-max-endpoints": {
    type: "string",
    env: "ENCOUNTERD_WEBHOOK_MAX_ENDPOINTS",
    help: `Webhook endpoints one workspace may register, 1 to ${MAX_ENDPOINTS_LIMIT} (default ${DEFAULT_MAX_ENDPOINTS})`
  },
  "webhook-secret-key-file": {
    type: "string",
    env: "ENCOUNTERD_WEBHOOK_SECRET_KEY_FILE",
    help: "Key that seals signing secrets (default: webhook-secret.key beside a SQLite file; required on PostgreSQL, the same file on every instance)"
  }
} satisfies CommandSpec["options"]

/** A boolean flag, or its variable: `1`, `true`, `yes` (any case) are true. */
const flag = (p: Parsed, name: string): boolean => {
  const v = p.values[name]
  return v === true || (typeof v === "string" && /^(1|true|yes)$/i.test(v.trim()))
}

export const webhookOptions = (p: Parsed, db: string): WebhookSettingsOptions => {
  const scheduleText = str(p, "webhook-retry-schedule")
  const timeoutText = str(p, "webhook-timeout")
  const schedule = scheduleText === undefined ? undefined : parseRetrySchedule(scheduleText)
  const timeout = timeoutText === undefined ? undefined : parseTimeout(timeoutText)
  if (schedule !== undefined && Either.isLeft(schedule)) throw new UsageError(`--webhook-retry-schedule ${schedule.left.message}`)
  if (timeout !== undefined && Either.isLeft(timeout)) throw new UsageError(`--webhook-timeout ${timeout.left.message}`)
  const keyFile = str(p, "webhook-secret-key-file")
  const maxEndpoints = int(p, "webhook-max-endpoints", 1)
  if (maxEndpoints !== undefined && maxEndpoints > MAX_ENDPOINTS_LIMIT) {
    throw new UsageError(`--webhook-max-endpoints must be at most ${MAX_ENDPOINTS_LIMIT}`)
  }
  return {
    db,
    allowPrivate: flag(p, "webhook-allow-private"),
    ...(maxEndpoints !== undefined ? { maxEndpoints } : {}),
    ...(keyFile !== undefined ? { keyFile } : {}),
    ...(schedule !== undefined ? { schedule: schedule.right } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout.right } : {})
  }
}
