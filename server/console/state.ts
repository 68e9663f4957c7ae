import type { ConsoleLimits } from "../config.js"
import { RateLimited } from "../problem.js"
import { makeRateLimiter, type RateLimiter } from "../rate-limit.js"
import { addressLimitKey } from "../client-address.js"
import { makeSessionStore, type SessionStore } from "./sessions.js"

/** What the console keeps per server: its sessions and the sign-in limits. */
export interface ConsoleState {
  readonly sessions: SessionStore
  /**
   * Charges one sign-in attempt to the client's address, then to the presented key (by its hash,
   * known or not); the refusal when either has none left.
   */
  readonly admitSignIn: (keyHash: string, address: string | undefined) => RateLimited | undefined
}

/** Callers choose the keys and addresses they present: the limiters keep at most this many buckets each. */
const MAX_BUCKETS = 100_000

/** A limit of `perMinute` sign-ins, all of which may come at once (0: no limit). */
const perMinute = (n: number, now: () => number): RateLimiter | undefined =>
  n > 0 ? makeRateLimiter(n / 60, n, now, MAX_BUCKETS) : undefined

export const makeConsoleState = (limits: ConsoleLimits, now: () => number = () => Date.now()): ConsoleState => {
  const byAddress = perMinute(limits.signInsPerAddress, now)
  const byKey = perMinute(limits.signInsPerKey, now)
  return {
    sessions: makeSessionStore({
      maxSessions: limits.maxSessions,
      perKey: limits.sessionsPerKey,
      idleMs: limits.sessionIdleMs,
      maxAgeMs: limits.sessionMaxAgeMs,
      now
    }),
    admitSignIn: (keyHash, address) => {
      const fromAddress = address === undefined ? undefined : byAddress?.(addressLimitKey(address))
      if (fromAddress !== undefined && !fromAddress.allowed) return new RateLimited({ retryAfterSeconds: fromAddress.resetSeconds })
      const withKey = byKey?.(keyHash)
      if (withKey !== undefined && !withKey.allowed) return new RateLimited({ retryAfterSeconds: withKey.resetSeconds })
      return undefined
    }
  }
}
