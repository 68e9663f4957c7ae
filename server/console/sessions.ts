import { createHash, randomBytes } from "node:crypto"
import type { ApiKeyId } from "../../lib/domain/ids.js"

/**
 * Console sessions live in this process's memory: a restart signs everyone out, and several
 * instances behind one address need sticky routing. The store keeps the SHA-256 of each session
 * token (never the token) and, for the key, its hash and id (never the key): each request
 * re-checks the key, so a revoked key ends its sessions.
 */
export interface Session {
  readonly keyHash: string
  readonly keyId: ApiKeyId
  readonly csrf: string
  readonly lastSeen: number
}

export interface SessionStore {
  /** A new session: the cookie's token and the CSRF token, both shown to the browser only. */
  readonly create: (key: { readonly hash: string; readonly id: ApiKeyId }) => { readonly token: string; readonly session: Session }
  /** The live session of a token, its idle time restarted; expired sessions are dropped. */
  readonly find: (token: string) => Session | undefined
  readonly remove: (token: string) => void
  readonly size: () => number
}

export interface SessionOptions {
  readonly maxSessions: number
  readonly idleMs: number
  readonly now: () => number
}

export const IDLE_MS = 12 * 60 * 60 * 1000

const digest = (token: string): string => createHash("sha256").update(token).digest("base64url")

const newToken = (): string => randomBytes(32).toString("base64url")

export const makeSessionStore = (options: SessionOptions): SessionStore => {
  // Insertion order is last-use order (a used session is moved to the end): the first entries
  // are the least recently used, so a sweep stops at the first live one and eviction takes the first.
  const sessions = new Map<string, Session>()
  let lastSweep = options.now()

  const expired = (s: Session, now: number) => now - s.lastSeen > options.idleMs

  const sweep = (now: number) => {
    if (now - lastSweep < 60_000) return
    lastSweep = now
    for (const [id, s] of sessions) {
      if (!expired(s, now)) break
      sessions.delete(id)
    }
  }

  return {
    create: (key) => {
      const now = options.now()
      sweep(now)
      while (sessions.size >= options.maxSessions) {
        const oldest = sessions.keys().next()
        if (oldest.done === true) break
        sessions.delete(oldest.value)
      }
      const token = newToken()
      const session: Session = { keyHash: key.hash, keyId: key.id, csrf: newToken(), lastSeen: now }
      sessions.set(digest(token), session)
      return { token, session }
    },
    find: (token) => {
      const now = options.now()
      sweep(now)
      const id = digest(token)
      const found = sessions.get(id)
      if (found === undefined) return undefined
      sessions.delete(id)
      if (expired(found, now)) return undefined
      const touched: Session = { ...found, lastSeen: now }
      sessions.set(id, touched)
      return touched
    },
    remove: (token) => {
      sessions.delete(digest(token))
    },
    size: () => sessions.size
  }
}

/** The server's store: bounded, so a flood of sign-ins evicts the least recently used sessions. */
export const consoleSessions = makeSessionStore({ maxSessions: 10_000, idleMs: IDLE_MS, now: () => Date.now() })
