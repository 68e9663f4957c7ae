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

export type RateLimiter = (key: string) => RateDecision

/**
 * `maxKeys` bounds the buckets kept, for limiters keyed by what callers choose (a presented key,
 * an address): past it the bucket used longest ago is dropped (it has most likely refilled, and a
 * dropped bucket starts full again). Without it the buckets are those of known API keys.
 */
export const makeRateLimiter = (rate: number, burst: number, now: () => number = () => performance.now(), maxKeys?: number): RateLimiter => {
  const buckets = new Map<string, { tokens: number; at: number }>()
  return (key: string): RateDecision => {
    const t = now()
    const b = buckets.get(key) ?? { tokens: burst, at: t }
    b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * rate)
    b.at = t
    if (maxKeys !== undefined) {
      // Map order is use order: the first entry is the bucket used longest ago.
      buckets.delete(key)
      if (buckets.size >= maxKeys) {
        const oldest = buckets.keys().next()
        if (oldest.done !== true) buckets.delete(oldest.value)
      }
    }
    buckets.set(key, b)
    if (b.tokens >= 1) {
      b.tokens -= 1
      return { allowed: true, limit: burst, remaining: Math.floor(b.tokens), resetSeconds: 0 }
    }
    return { allowed: false, limit: burst, remaining: 0, resetSeconds: Math.max(1, Math.ceil((1 - b.tokens) / rate)) }
  }
}
