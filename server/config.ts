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

export const withDefaults = (partial: Partial<ServerConfig>): ServerConfig => {
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
    metricsKey: partial.metricsKey
  }
}
