import { createHash, randomBytes } from "node:crypto"
import type { ApiKeyId } from "../../lib/domain/ids.js"
import type { Workspace } from "../../lib/domain/workspace.js"
import type { UserId } from "../../lib/domain/user.js"
import { consoleDefaults } from "../config.js"

/**
 * Who a session acts for: a user (checked again on every request: a disabled user or a changed
 * role applies at once), or an API key (only with `--console-key-sign-in`, and only an admin key),
 * kept as its hash and id (never the key), so a revoked key ends its sessions.
 */
export type SessionSubject =
  | { readonly kind: "key"; readonly hash: string; readonly id: ApiKeyId }
  | {
      readonly kind: "user"
      readonly id: UserId
      readonly workspace: Workspace
      /** Signed in with a one-time password: the session may only change it. */
      readonly mustChangePassword: boolean
    }

/**
 * Console sessions live in this process's memory: a restart signs everyone out, and several
 * instances behind one address need sticky routing. The store keeps the SHA-256 of each session
 * token (never the token) and its subject.
 *
 * Bounds: each subject (user or key) holds at most `perKey` sessions (a further sign-in ends that
 * subject's oldest, never another's); the store holds at most `maxSessions` (at the limit, once
 * expired sessions are dropped, a sign-in is refused: no session of anyone is ended to make room).
 * A session ends after `idleMs` without a request, and `maxAgeMs` after its sign-in however busy
 * (automatic logoff).
 */
export interface Session {
  readonly subject: SessionSubject
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
  readonly create: (subject: SessionSubject) => Created
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
  /** Each subject's sessions (token digests), oldest first. */
  const byKey = new Map<string, Array<string>>()
  let lastSweep = options.now()

  const expired = (s: Session, now: number) => now - s.lastSeen > options.idleMs || now - s.createdAt > options.maxAgeMs

  const drop = (id: string) => {
    const s = sessions.get(id)
    if (s === undefined) return
    sessions.delete(id)
    const ofKey = byKey.get(s.subject.id)
    if (ofKey === undefined) return
    const left = ofKey.filter((x) => x !== id)
    if (left.length === 0) byKey.delete(s.subject.id)
    else byKey.set(s.subject.id, left)
  }

  const sweep = (now: number, force: boolean) => {
    if (!force && now - lastSweep < 60_000) return
    lastSweep = now
    for (const [id, s] of sessions) if (expired(s, now)) drop(id)
  }

  return {
    create: (subject) => {
      const key = subject
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
      const session: Session = { subject, csrf: newToken(), createdAt: now, lastSeen: now }
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
