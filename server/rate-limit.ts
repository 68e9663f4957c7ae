/**
 * Per-key token buckets: `rate` tokens a second, at most `burst` saved. In memory, per process
 * (several instances each apply their own limit).
 */
export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until a token is available (0 when allowed). */
  readonly resetSeconds: number
}

export const makeRateLimiter = (rate: number, burst: number, now: () => number = () => performance.now()) => {
  const buckets = new Map<string, { tokens: number; at: number }>()
  return (key: string): RateDecision => {
    const t = now()
    const b = buckets.get(key) ?? { tokens: burst, at: t }
    b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * rate)
    b.at = t
    buckets.set(key, b)
    if (b.tokens >= 1) {
      b.tokens -= 1
      return { allowed: true, limit: burst, remaining: Math.floor(b.tokens), resetSeconds: 0 }
    }
    return { allowed: false, limit: burst, remaining: 0, resetSeconds: Math.max(1, Math.ceil((1 - b.tokens) / rate)) }
  }
}
