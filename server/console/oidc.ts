import { randomBytes } from "node:crypto"
import * as client from "openid-client"
import type { OidcConfig, ServerConfig } from "../config.js"

/** A sign-in started at the provider and not yet back: what the callback checks the answer against. */
interface PendingLogin {
  readonly state: string
  readonly nonce: string
  readonly codeVerifier: string
  readonly workspace: string | undefined
  readonly expiresAt: number
}

/** How long a browser has to come back from the provider. */
export const PENDING_TTL_MS = 10 * 60_000
/** Sign-ins under way the server keeps at once; past it the oldest is dropped. */
const MAX_PENDING = 10_000

/** Why an OpenID Connect sign-in failed, as the console is told it (`/console?sign_in_error=CODE`). */
export type OidcFailure =
  | "provider_unavailable"
  | "sign_in_expired"
  | "provider_refused"
  | "token_invalid"
  | "email_unverified"
  | "unknown_user"
  | "workspace_required"
  | "too_many_sign_ins"
  | "sessions_full"

export class OidcError extends Error {
  constructor(
    readonly code: OidcFailure,
    /** What the log line says of the cause: an error code or claim name, never a token or an email. */
    readonly detail?: string
  ) {
    super(code)
  }
}

export interface OidcStart {
  readonly location: string
  /** Names the pending sign-in; the browser carries it back in an HttpOnly cookie. */
  readonly pendingId: string
}

export interface OidcClaims {
  readonly email: string
  readonly workspace: string | undefined
}

export interface OidcClient {
  readonly start: (workspace: string | undefined) => Promise<OidcStart>
  /** Exchanges the code of the callback URL and validates the ID token; the verified email and the workspace asked for. */
  readonly finish: (pendingId: string | undefined, callbackUrl: URL) => Promise<OidcClaims>
}

/** Loopback issuers alone may use plain http (a provider on the same machine, as in tests). */
export const isLoopbackHost = (hostname: string): boolean => hostname === "localhost" || hostname === "[::1]" || hostname === "::1" || /^127\.\d+\.\d+\.\d+$/.test(hostname)

/** The pending-login cookie: sent back on the provider's cross-site redirect (Lax), only to the callback path. */
export const pendingCookieName = (config: ServerConfig): string => (config.publicUrl.startsWith("https://") ? "__Secure-encounterd_oidc" : "encounterd_oidc")

const pendingAttributes = (config: ServerConfig): string =>
  `Path=/console/oidc; HttpOnly; SameSite=Lax${config.publicUrl.startsWith("https://") ? "; Secure" : ""}`

export const pendingCookie = (config: ServerConfig, id: string): string =>
  `${pendingCookieName(config)}=${id}; Max-Age=${PENDING_TTL_MS / 1000}; ${pendingAttributes(config)}`

export const clearedPendingCookie = (config: ServerConfig): string => `${pendingCookieName(config)}=; Max-Age=0; ${pendingAttributes(config)}`

const PENDING_ID = /^[A-Za-z0-9_-]{43}$/

export const readPendingId = (request: Request, config: ServerConfig): string | undefined => {
  const header = request.headers.get("cookie")
  if (header === null) return undefined
  const name = pendingCookieName(config)
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue
    const value = part.slice(eq + 1).trim()
    return PENDING_ID.test(value) ? value : undefined
  }
  return undefined
}

/** The claim a failed check names (`aud`, `exp`, `nonce`...), looked for along the error's causes; never a claim's value. */
const claimOf = (e: unknown, depth = 0): string | undefined => {
  if (typeof e !== "object" || e === null || depth > 3) return undefined
  if ("claim" in e && typeof e.claim === "string") return e.claim
  return "cause" in e ? claimOf(e.cause, depth + 1) : undefined
}

const errorCause = (e: unknown): string => {
  if (e instanceof client.ResponseBodyError) return `provider: ${e.error}`
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code
    const claim = claimOf(e)
    return `${typeof code === "string" ? code : e.name}${claim !== undefined ? ` ${claim}` : ""}`
  }
  return "unknown"
}

/**
 * The console's OpenID Connect client: authorization code flow with PKCE (S256), `state` and
 * `nonce`, against a provider found by discovery (retried after a failure). The ID token is checked
 * by openid-client: its signature by the provider's JWKS, `iss`, `aud`, `exp` and `nonce`.
 */
export const makeOidcClient = (
  settings: OidcConfig,
  config: ServerConfig,
  options: { readonly fetch?: client.CustomFetch; readonly now?: () => number } = {}
): OidcClient => {
  const issuer = new URL(settings.issuer)
  const redirectUri = `${config.publicUrl}/console/oidc/callback`
  const now = options.now ?? (() => Date.now())
  let discovered: Promise<client.Configuration> | undefined
  const configuration = (): Promise<client.Configuration> => {
    if (discovered === undefined) {
      discovered = client
        .discovery(
          issuer,
          settings.clientId,
          { client_secret: settings.clientSecret, ...(settings.clockSkewSeconds !== undefined ? { [client.clockSkew]: settings.clockSkewSeconds } : {}) },
          client.ClientSecretBasic(settings.clientSecret),
          {
            ...(issuer.protocol === "http:" && isLoopbackHost(issuer.hostname) ? { execute: [client.allowInsecureRequests] } : {}),
            ...(options.fetch !== undefined ? { [client.customFetch]: options.fetch } : {}),
            timeout: 10
          }
        )
        .catch((e: unknown) => {
          discovered = undefined
          throw new OidcError("provider_unavailable", errorCause(e))
        })
    }
    return discovered
  }
  const pending = new Map<string, PendingLogin>()
  const sweep = () => {
    const t = now()
    for (const [id, p] of pending) if (p.expiresAt <= t) pending.delete(id)
    while (pending.size >= MAX_PENDING) {
      const oldest = pending.keys().next()
      if (oldest.done === true) break
      pending.delete(oldest.value)
    }
  }
  return {
    start: async (workspace) => {
      const c = await configuration()
      const codeVerifier = client.randomPKCECodeVerifier()
      const state = client.randomState()
      const nonce = client.randomNonce()
      sweep()
      const pendingId = randomBytes(32).toString("base64url")
      pending.set(pendingId, { state, nonce, codeVerifier, workspace, expiresAt: now() + PENDING_TTL_MS })
      const url = client.buildAuthorizationUrl(c, {
        redirect_uri: redirectUri,
        scope: "openid email",
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
        state,
        nonce
      })
      return { location: url.href, pendingId }
    },
    finish: async (pendingId, callbackUrl) => {
      const found = pendingId === undefined ? undefined : pending.get(pendingId)
      // One use: a callback replayed, or one for another browser, finds nothing.
      if (pendingId !== undefined) pending.delete(pendingId)
      if (found === undefined || found.expiresAt <= now()) throw new OidcError("sign_in_expired")
      if (callbackUrl.searchParams.has("error")) throw new OidcError("provider_refused", `provider: ${callbackUrl.searchParams.get("error")?.slice(0, 64)}`)
      const c = await configuration()
      let claims: client.IDToken | undefined
      try {
        const tokens = await client.authorizationCodeGrant(c, callbackUrl, {
          pkceCodeVerifier: found.codeVerifier,
          expectedState: found.state,
          expectedNonce: found.nonce,
          idTokenExpected: true
        })
        claims = tokens.claims()
      } catch (e) {
        throw new OidcError("token_invalid", errorCause(e))
      }
      if (claims === undefined) throw new OidcError("token_invalid", "no id_token")
      const email = claims.email
      if (typeof email !== "string" || email === "") throw new OidcError("email_unverified", "no email claim")
      if (claims.email_verified === false) throw new OidcError("email_unverified", "email_verified false")
      return { email, workspace: found.workspace }
    }
  }
}

/**
 * The callback URL as the provider sent the browser to it, under the public URL (behind a proxy the
 * request's own URL may differ): openid-client reads the code and state from it and sends its
 * origin and path as the `redirect_uri` of the token request.
 */
export const callbackUrl = (config: ServerConfig, request: Request): URL => {
  const search = new URL(request.url).search
  return new URL(`${config.publicUrl}/console/oidc/callback${search}`)
}
