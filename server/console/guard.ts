import { Effect } from "effect"
import type { Principal } from "../../lib/domain/workspace.js"
import { authenticateKeyHash } from "../../lib/rules/authenticate-key-hash.js"
import type { ServerConfig } from "../config.js"
import { CsrfRejected, SessionRequired } from "../problem.js"
import { clearedCookie, readSessionToken } from "./cookies.js"
import { sameSecret } from "../same-secret.js"
import type { Session, SessionStore } from "./sessions.js"

/** Who is calling a console endpoint: the session, its token and the key's current rights. */
export interface ConsoleCaller {
  readonly principal: Principal
  readonly session: Session
  readonly token: string
}

/**
 * The caller of a console request: a live session whose key is still valid. The key is looked up
 * again on every request; a revoked key ends the session and the answer clears the cookie.
 */
export const requireSession = (request: Request, config: ServerConfig, store: SessionStore) =>
  Effect.gen(function* () {
    const token = readSessionToken(request, config)
    const clear = { "set-cookie": clearedCookie(config) }
    if (token === undefined) return yield* new SessionRequired({ detail: "Sign in with an API key", headers: {} })
    const session = store.find(token)
    if (session === undefined) return yield* new SessionRequired({ detail: "The session has ended; sign in again", headers: clear })
    const principal = yield* authenticateKeyHash(session.keyHash).pipe(
      Effect.catchTag("Unauthorized", () => {
        store.remove(token)
        return new SessionRequired({ detail: "The API key of this session is no longer valid; sign in again", headers: clear })
      })
    )
    const caller: ConsoleCaller = { principal, session, token }
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
