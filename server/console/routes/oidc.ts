import { createHash } from "node:crypto"
import { Effect } from "effect"
import { log } from "../../log.js"
import { json, type Reply, text } from "../../route.js"
import { clearedPendingCookie, OidcError, type OidcFailure, callbackUrl, pendingCookie, readPendingId } from "../oidc.js"
import { privateHeaders } from "../headers.js"
import { consoleRoute } from "../route.js"
import { signInWithIdentity } from "../../../lib/rules/identity-sign-in.js"
import { sessionCookie } from "../cookies.js"
import { startSession } from "./session.js"

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/

const redirect = (location: string, cookie?: string): Reply =>
  text(302, "", "text/plain; charset=utf-8", { ...privateHeaders, location, ...(cookie !== undefined ? { "set-cookie": cookie } : {}) })

/** What the sign-in page offers: a single sign-on link when the server has an OpenID Connect provider. */
export const signInOptionsRoute = consoleRoute(
  { method: "GET", path: "/console/api/sign-in-options", summary: "How one may sign in to this console", audit: "none" },
  ({ config }) => Effect.succeed(json(200, { oidc: config.oidc !== undefined, key_sign_in: config.console.keySignIn }, privateHeaders))
)

const failed = (config: Parameters<typeof clearedPendingCookie>[0], requestId: string, code: OidcFailure, cause: string | undefined): Reply => {
  log("warn", "oidc sign-in failed", { request_id: requestId, code, ...(cause !== undefined ? { cause } : {}) })
  return redirect(`/console?sign_in_error=${code}`, clearedPendingCookie(config))
}

/**
 * Starts an OpenID Connect sign-in: the browser goes to the provider with a PKCE challenge, a
 * `state` and a `nonce`, kept here under a random id its HttpOnly cookie carries back.
 * `?workspace=SLUG` chooses the workspace when the email has users in several.
 */
export const oidcLoginRoute = consoleRoute(
  { method: "GET", path: "/console/oidc/login", summary: "Sign in with single sign-on (OpenID Connect)" },
  ({ config, server, request, query, requestId }) =>
    Effect.gen(function* () {
      const oidc = server.oidc
      if (oidc === undefined || config.oidc === undefined) return redirect("/console?sign_in_error=sso_off")
      const address = server.clientAddress(request)
      const refused = server.console.admitSignIn(createHash("sha256").update(`oidc:${address ?? ""}`).digest("hex"), address)
      if (refused !== undefined) {
        server.rateLimited()
        return failed(config, requestId, "too_many_sign_ins", undefined)
      }
      const asked = query.get("workspace")?.trim().toLowerCase()
      const workspace = asked !== undefined && SLUG.test(asked) ? asked : undefined
      const started = yield* Effect.either(Effect.tryPromise(() => oidc.start(workspace)))
      if (started._tag === "Left") {
        const e = started.left.error
        return failed(config, requestId, e instanceof OidcError ? e.code : "provider_unavailable", e instanceof OidcError ? e.detail : undefined)
      }
      return redirect(started.right.location, pendingCookie(config, started.right.pendingId))
    })
)

/**
 * The provider sends the browser back here: the code is exchanged and the ID token validated, the
 * verified email matched to an active user, and the same session a password sign-in makes begins.
 * Every failure goes back to the sign-in page with a code, and a log line without token or email.
 */
export const oidcCallbackRoute = consoleRoute(
  { method: "GET", path: "/console/oidc/callback", summary: "Where the OpenID Connect provider returns the browser" },
  ({ config, server, request, requestId }) =>
    Effect.gen(function* () {
      const oidc = server.oidc
      if (oidc === undefined) return redirect("/console?sign_in_error=sso_off")
      const claims = yield* Effect.either(Effect.tryPromise(() => oidc.finish(readPendingId(request, config), callbackUrl(config, request))))
      if (claims._tag === "Left") {
        const e = claims.left.error
        return failed(config, requestId, e instanceof OidcError ? e.code : "token_invalid", e instanceof OidcError ? e.detail : "unexpected")
      }
      const found = yield* Effect.either(signInWithIdentity(claims.right))
      if (found._tag === "Left") {
        const e = found.left
        const code: OidcFailure = e._tag === "WorkspaceRequired" ? "workspace_required" : e._tag === "SignInRefused" ? "unknown_user" : "provider_unavailable"
        return failed(config, requestId, code, e._tag)
      }
      const user = found.right
      const created = yield* Effect.either(startSession(request, config, server, { kind: "user", id: user.user.id, workspace: user.workspace, mustChangePassword: false }))
      if (created._tag === "Left") return failed(config, requestId, "sessions_full", undefined)
      log("info", "oidc sign-in", { request_id: requestId, user_id: user.user.id, workspace: user.workspace.slug })
      return redirect("/console", sessionCookie(config, created.right.token))
    })
)
