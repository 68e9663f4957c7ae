import { createHash, randomBytes } from "node:crypto"
import type { ApiKeyId } from "../../lib/domain/ids.js"
import { consoleDefaults } from "../config.js"

/**
 * Console sessions live in this process's memory: a restart signs everyone out, and several
 * instances behind one address need sticky routing. The store keeps the SHA-256 of each session
 * token (never the token) and, for the key, its hash and id (never the key): each request
 * re-checks the key, so a revoked key ends its sessions.
 *
 * Bounds: each key holds at most `perKey` sessions (a further sign-in with it ends that key's
 * oldest, never another key's); the store holds at most `maxSessions` (at the limit, once expired
 * sessions are dropped, a sign-in is refused: no session of anyone is ended to make room).
 */
export interface Session {
  readonly keyHash: string
  readonly keyId: ApiKeyId
  readonly csrf: string
  readonly createdAt: number
  readonly lastSeen: number
}

export type Created =
  | { readonly _tag: "Created"; readonly token: string; readonly session: Session }
  /** The store holds `maxSessions` live sessions. */
  | { readonly _tag: "Full" }

export interface SessionStore {
  /** A new session: the cookie's token and the CSRF token, both shown to the browser only. */
  readonly create: (key: { readonly hash: string; readonly id: ApiKeyId }) => Created
  /** The live session of a token, its idle time restarted; expired sessions are dropped. */
  readonly find: (token: string) => Session | undefined
  readonly remove: (token: string) => void
  readonly size: () => number
}

export interface SessionOptions {
  readonly maxSessions: number
  readonly perKey: number
  readonly idleMs: number
  /** The absolute lifetime: a session ends this long after it was created, however busy. */
  readonly maxAgeMs: number
  readonly now: () => number
}

export const IDLE_MS = consoleDefaults.sessionIdleMs
export const MAX_AGE_MS = consoleDefaults.sessionMaxAgeMs

const digest = (token: string): string => createHash("sha256").update(token).digest("base64url")

const newToken = (): string => randomBytes(32).toString("base64url")

export const makeSessionStore = (options: SessionOptions): SessionStore => {
  const sessions = new Map<string, Session>()
  /** Each key's sessions (token digests), oldest first. */
  const byKey = new Map<ApiKeyId, Array<string>>()
  let lastSweep = options.now()

  const expired = (s: Session, now: number) => now - s.lastSeen > options.idleMs || now - s.createdAt > options.maxAgeMs

  const drop = (id: string) => {
    const s = sessions.get(id)
    if (s === undefined) return
    sessions.delete(id)
    const ofKey = byKey.get(s.keyId)
    if (ofKey === undefined) return
    const left = ofKey.filter((x) => x !== id)
    if (left.length === 0) byKey.delete(s.keyId)
    else byKey.set(s.keyId, left)
  }

  const sweep = (now: number, force: boolean) => {
    if (!force && now - lastSweep < 60_000) return
    lastSweep = now
    for (const [id, s] of sessions) if (expired(s, now)) drop(id)
  }

  return {
    create: (key) => {
      const now = options.now()
      sweep(now, false)
      // This key's expired sessions first, then its oldest live ones beyond the bound.
      for (const id of byKey.get(key.id) ?? []) {
        const s = sessions.get(id)
        if (s !== undefined && expired(s, now)) drop(id)
      }
      let ofKey = byKey.get(key.id) ?? []
      while (ofKey.length >= options.perKey && ofKey.length > 0) {
        drop(ofKey[0]!)
        ofKey = byKey.get(key.id) ?? []
      }
      if (sessions.size >= options.maxSessions) sweep(now, true)
      if (sessions.size >= options.maxSessions) return { _tag: "Full" }
      const token = newToken()
      const id = digest(token)
      const session: Session = { keyHash: key.hash, keyId: key.id, csrf: newToken(), createdAt: now, lastSeen: now }
      sessions.set(id, session)
      byKey.set(key.id, [...ofKey, id])
      return { _tag: "Created", token, session }
    },
    find: (token) => {
      const now = options.now()
      sweep(now, false)
      const id = digest(token)
      const found = sessions.get(id)
      if (found === undefined) return undefined
      if (expired(found, now)) {
        drop(id)
        return undefined
      }
      const touched: Session = { ...found, lastSeen: now }
      sessions.set(id, touched)
      return touched
    },
    remove: (token) => drop(digest(token)),
    size: () => sessions.size
  }
}
