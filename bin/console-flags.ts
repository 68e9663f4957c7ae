import { Either } from "effect"
import { parseDuration } from "../lib/webhooks/schedule.js"
import { normalAddress } from "../server/client-address.js"
import { type ConsoleLimits, consoleDefaults } from "../server/config.js"
import { type CommandSpec, int, type Parsed, str, UsageError } from "./args.js"

/** The console's session and sign-in limits of `serve`, and the proxies trusted to name the client. */
export const consoleFlagSpecs = {
  "console-session-idle": {
    type: "string",
    env: "ENCOUNTERD_CONSOLE_SESSION_IDLE",
    help: "Automatic logoff: a console session ends after this long without a request (default 15m; 1m to 30d)"
  },
  "console-session-max-age": {
    type: "string",
    env: "ENCOUNTERD_CONSOLE_SESSION_MAX_AGE",
    help: "A console session ends this long after its sign-in, however busy (default 12h; 1m to 30d)"
  },
  "console-sessions-per-key": {
    type: "string",
    env: "ENCOUNTERD_CONSOLE_SESSIONS_PER_KEY",
    help: `Console sessions one API key may hold; a further sign-in ends that key's oldest (default ${consoleDefaults.sessionsPerKey})`
  },
  "console-max-sessions": {
    type: "string",
    env: "ENCOUNTERD_CONSOLE_MAX_SESSIONS",
    help: `Console sessions the server holds; past it sign-ins are refused, no session is ended (default ${consoleDefaults.maxSessions})`
  },
  "console-sign-ins-per-key": {
    type: "string",
    env: "ENCOUNTERD_CONSOLE_SIGN_INS_PER_KEY",
    help: `Console sign-ins per minute with one key, 0 = off (default ${consoleDefaults.signInsPerKey})`
  },
  "console-sign-ins-per-address": {
    type: "string",
    env: "ENCOUNTERD_CONSOLE_SIGN_INS_PER_ADDRESS",
    help: `Console sign-ins per minute from one client address (IPv6: per /64), 0 = off (default ${consoleDefaults.signInsPerAddress})`
  },
  "console-key-sign-in": {
    type: "boolean",
    env: "ENCOUNTERD_CONSOLE_KEY_SIGN_IN",
    help: "Also let an API key with the admin scope sign in to the console (default off: people sign in as users)"
  },
  "trusted-proxy": {
    type: "string",
    multiple: true,
    env: "ENCOUNTERD_TRUSTED_PROXIES",
    help: "Address of a reverse proxy whose X-Forwarded-For names the client; repeatable or comma-separated (default: none)"
  }
} satisfies CommandSpec["options"]

/** A console session duration: 1 minute to 30 days. */
const sessionDuration = (p: Parsed, name: string): number | undefined => {
  const text = str(p, name)
  if (text === undefined) return undefined
  const ms = parseDuration(text)
  if (Either.isLeft(ms)) throw new UsageError(`--${name} ${ms.left.message}`)
  if (ms.right < 60_000) throw new UsageError(`--${name} must be at least 1m`)
  return ms.right
}

/** A boolean flag, or its variable set to 1, true or yes. */
const isOn = (value: unknown): boolean => value === true || (typeof value === "string" && ["1", "true", "yes"].includes(value.trim().toLowerCase()))

export const consoleLimits = (p: Parsed): Partial<ConsoleLimits> => {
  const idle = sessionDuration(p, "console-session-idle")
  const maxAge = sessionDuration(p, "console-session-max-age")
  const perKey = int(p, "console-sessions-per-key", 1)
  const max = int(p, "console-max-sessions", 1)
  const signInsPerKey = int(p, "console-sign-ins-per-key", 0)
  const signInsPerAddress = int(p, "console-sign-ins-per-address", 0)
  return {
    ...(idle !== undefined ? { sessionIdleMs: idle } : {}),
    ...(maxAge !== undefined ? { sessionMaxAgeMs: maxAge } : {}),
    ...(perKey !== undefined ? { sessionsPerKey: perKey } : {}),
    ...(max !== undefined ? { maxSessions: max } : {}),
    ...(signInsPerKey !== undefined ? { signInsPerKey } : {}),
    ...(signInsPerAddress !== undefined ? { signInsPerAddress } : {}),
    ...(isOn(p.values["console-key-sign-in"]) ? { keySignIn: true } : {})
  }
}

/** `--trusted-proxy` (repeatable) or its variable (comma-separated): IP addresses only. */
export const trustedProxies = (p: Parsed): ReadonlyArray<string> => {
  const raw = p.values["trusted-proxy"]
  const given = Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : []
  const addresses = given.flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")
  for (const a of addresses) {
    if (normalAddress(a) === undefined) throw new UsageError(`--trusted-proxy must be an IP address, got ${JSON.stringify(a)}`)
  }
  return addresses
}
