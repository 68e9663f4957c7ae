import { Effect, Option } from "effect"
import type { AuditActor } from "../../lib/domain/audit.js"
import { type Role, roleScopes } from "../../lib/domain/user.js"
import type { Scope, Workspace } from "../../lib/domain/workspace.js"
import { Storage } from "../../lib/ports/storage.js"
import { authenticateKeyHash } from "../../lib/rules/authenticate-key-hash.js"
import { keyActor } from "../audit.js"
import type { ServerConfig } from "../config.js"
import { CsrfRejected, SessionRequired } from "../problem.js"
import { clearedCookie, readSessionToken } from "./cookies.js"
import { sameSecret } from "../same-secret.js"
import type { Session, SessionStore } from "./sessions.js"

/** The workspace a console caller acts in and the scopes it holds (a key's, or its user's role's). */
export interface ConsolePrincipal {
  readonly workspace: Workspace
  readonly scopes: ReadonlyArray<Scope>
}

/** Who is calling a console endpoint: the session, its token and the subject's current rights. */
export interface ConsoleCaller {
  readonly principal: ConsolePrincipal
  /** As the audit log names the caller. */
  readonly actor: AuditActor
  /** The user's role; null in a session signed in with a key. */
  readonly role: Role | null
  /** The rate-limit bucket the caller's requests spend: its key's, or its user's. */
  readonly rateKey: string
  readonly session: Session
  readonly token: string
}

/**
 * The caller of a console request: a live session whose user is still active (or whose key is
 * still valid). The user (or key) is read again on every request: a disabled user, a removed
 * workspace membership or a revoked key ends the session and the answer clears the cookie; a
 * changed role applies to the next request.
 */
export const requireSession = (request: Request, config: ServerConfig, store: SessionStore) =>
  Effect.gen(function* () {
    const token = readSessionToken(request, config)
    const clear = { "set-cookie": clearedCookie(config) }
    if (token === undefined) return yield* new SessionRequired({ detail: "Sign in", headers: {} })
    const session = store.find(token)
    if (session === undefined) return yield* new SessionRequired({ detail: "The session has ended; sign in again", headers: clear })
    const subject = session.subject
    if (subject.kind === "key") {
      const principal = yield* authenticateKeyHash(subject.hash).pipe(
        Effect.catchTag("Unauthorized", () => {
          store.remove(token)
          return new SessionRequired({ detail: "The API key of this session is no longer valid; sign in again", headers: clear })
        })
      )
      const caller: ConsoleCaller = { principal, actor: keyActor(principal), role: null, rateKey: principal.keyId, session, token }
      return caller
    }
    const found = yield* (yield* Storage).get("users", subject.workspace.id, subject.id)
    if (Option.isNone(found) || found.value.status !== "active") {
      store.remove(token)
      return yield* new SessionRequired({ detail: "This user is disabled; sign in again once enabled", headers: clear })
    }
    const user = found.value
    const caller: ConsoleCaller = {
      principal: { workspace: subject.workspace, scopes: roleScopes[user.role] },
      actor: { kind: "user", id: user.id, name: user.email },
      role: user.role,
      rateKey: user.id,
      session,
      token
    }
    return caller
  })

/**
 * A state-changing request must come from this origin (when the browser says where it comes from)
 * and carry the session's CSRF token in `x-csrf-token`. The cookie is SameSite=Strict as well; the
 * token does not rest on that alone.
 */
export const requireCsrf = (request: Request, config: ServerConfig, session: Session) =>
  Effect.gen(function* () {
    yield* requireSameOrigin(request, config)
    const presented = request.headers.get("x-csrf-token")
    if (presented === null || presented === "") return yield* new CsrfRejected({ detail: "The x-csrf-token header is missing" })
    if (!sameSecret(presented, session.csrf)) return yield* new CsrfRejected({ detail: "The x-csrf-token header is not this session's" })
  })

/** Refuses what the browser says comes from another site (Sec-Fetch-Site, Origin). */
export const requireSameOrigin = (request: Request, config: ServerConfig) => {
  if (request.headers.get("sec-fetch-site") === "cross-site") {
    return Effect.fail(new CsrfRejected({ detail: "Cross-site requests are refused" }))
  }
  const origin = request.headers.get("origin")
  if (origin === null || origin === new URL(request.url).origin || origin === new URL(config.publicUrl).origin) return Effect.void
  return Effect.fail(new CsrfRejected({ detail: "The request comes from another origin" }))
}
