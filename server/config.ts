/** HTTP server settings (the database has its own, `StorageConfig` in bin/database.ts): flags, else `ENCOUNTERD_*` environment variables, else these defaults. */
export interface ServerConfig {
  readonly port: number
  readonly host: string
  /** Base of the URLs the service writes into responses (compat `url`). No trailing slash. */
  readonly publicUrl: string
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number
  /** Sustained requests per second per API key; 0 turns the limit off. */
  readonly rateLimit: number
  /** Requests a key may send at once above the sustained rate. */
  readonly rateBurst: number
  /** Seconds a connection may stay silent (slow clients, unfinished headers or bodies). */
  readonly idleTimeout: number
  /** Serve `GET /metrics` (off: 404). */
  readonly metrics: boolean
  /** When set, `/metrics` needs `Authorization: Bearer <metricsKey>`. */
  readonly metricsKey: string | undefined
  /** The operator console's sessions and sign-in limits. */
  readonly console: ConsoleLimits
  /**
   * Addresses of reverse proxies whose `X-Forwarded-For` names the client (the console's sign-in
   * limit per address); from any other peer the header is ignored.
   */
  readonly trustedProxies: ReadonlyArray<string>
  /** Console sign-in through an OpenID Connect provider (`--oidc-issuer`); off when undefined. */
  readonly oidc: OidcConfig | undefined
}

/** The console's OpenID Connect client: the provider (discovered from its issuer URL) and this client's credentials there. */
export interface OidcConfig {
  /** The provider's issuer URL: https, or http on a loopback address only. */
  readonly issuer: string
  readonly clientId: string
  /** Read from `--oidc-client-secret-file`; never logged. */
  readonly clientSecret: string
  /** Seconds added to this server's clock when checking the ID token's times (`exp`, `iat`); 0 unless given. */
  readonly clockSkewSeconds?: number
}

export interface ConsoleLimits {
  /** A session ends after this long without a request. */
  readonly sessionIdleMs: number
  /** A session ends this long after its sign-in, however busy. */
  readonly sessionMaxAgeMs: number
  /** Sessions one API key may hold at once; a further sign-in with it ends that key's oldest. */
  readonly sessionsPerKey: number
  /** Sessions the server holds at once; at the limit further sign-ins are refused (503), no session is ended. */
  readonly maxSessions: number
  /** Sign-ins per minute with one key (any outcome); 0 turns the limit off. */
  readonly signInsPerKey: number
  /** Sign-ins per minute from one client address (an IPv6 /64 counts as one); 0 turns the limit off. */
  readonly signInsPerAddress: number
  /** Signing in to the console with an API key (an `admin`-scoped one only); off by default: people sign in as users. */
  readonly keySignIn: boolean
}

export const defaults = {
  port: 8080,
  host: "127.0.0.1",
  bodyLimit: 1024 * 1024,
  rateLimit: 100,
  rateBurst: 200,
  idleTimeout: 30,
  metrics: true
} as const

const HOUR_MS = 60 * 60 * 1000

export const consoleDefaults: ConsoleLimits = {
  // Automatic logoff: 15 minutes idle (HIPAA's addressable control; clinics often choose less).
  sessionIdleMs: 15 * 60 * 1000,
  sessionMaxAgeMs: 12 * HOUR_MS,
  sessionsPerKey: 20,
  maxSessions: 10_000,
  signInsPerKey: 10,
  signInsPerAddress: 30,
  keySignIn: false
}

/** What a caller sets of the configuration: the rest (console limits one by one) takes the defaults. */
export type ServerSettings = Partial<Omit<ServerConfig, "console">> & { readonly console?: Partial<ConsoleLimits> }

export const withDefaults = (partial: ServerSettings): ServerConfig => {
  const port = partial.port ?? defaults.port
  const host = partial.host ?? defaults.host
  return {
    port,
    host,
    publicUrl: (partial.publicUrl ?? `http://${host}:${port}`).replace(/\/+$/, ""),
    bodyLimit: partial.bodyLimit ?? defaults.bodyLimit,
    rateLimit: partial.rateLimit ?? defaults.rateLimit,
    rateBurst: partial.rateBurst ?? Math.max(defaults.rateBurst, (partial.rateLimit ?? defaults.rateLimit) * 2),
    idleTimeout: partial.idleTimeout ?? defaults.idleTimeout,
    metrics: partial.metrics ?? defaults.metrics,
    metricsKey: partial.metricsKey,
    console: { ...consoleDefaults, ...partial.console },
    trustedProxies: partial.trustedProxies ?? [],
    oidc: partial.oidc
  }
}
