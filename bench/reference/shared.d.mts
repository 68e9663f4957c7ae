/** Types of shared.mjs, the part both reference servers have in common. */

export interface Flags {
  readonly port: number
  readonly dbPath: string
  readonly synchronous: "FULL" | "NORMAL"
  /** `--audit on|off` (default on): an audit row per read or change, as encounterd keeps. */
  readonly audit: boolean
}

export interface Issue {
  readonly path: string
  readonly message: string
}

export type SqlValue = string | number | Uint8Array

/** A prepared statement of either driver (bun:sqlite, better-sqlite3): a missing row is null or undefined. */
export interface Statement {
  run(...params: Array<SqlValue>): { readonly changes: number }
  get(...params: Array<SqlValue>): unknown
  all(...params: Array<SqlValue>): Array<unknown>
}

/** What a server brings: its SQLite connection's statements and transactions, and its UUIDv7 source. */
export interface Driver {
  readonly prepare: (sql: string) => Statement
  readonly transaction: <A, R>(fn: (arg: A) => R) => (arg: A) => R
  readonly newId: () => string
  /** Whether to keep the audit log (`audit`); default true. */
  readonly audit?: boolean
}

export interface Principal {
  readonly workspaceId: string
  readonly keyId: string
  readonly prefix: string
  readonly scopes: ReadonlyArray<string>
}

export interface JsonAnswer {
  readonly kind: "json"
  readonly status: number
  readonly body: unknown
}

export interface Problem {
  readonly kind: "problem"
  readonly status: number
  readonly code: string
  readonly title: string
  readonly detail: string
  readonly errors: ReadonlyArray<Issue> | undefined
}

/** What a route answers; the server writes it out with its own headers. */
export type Answer = JsonAnswer | Problem

/**
 * The benchmarked routes. `limit` and `pageToken` are the query parameters as the framework
 * hands them over, undefined or null when absent.
 */
export interface ReferenceApi {
  /** The key stored at start, for the `listening` line. */
  readonly apiKey: string
  /**
   * Appends the audit row of an answered request: a change's at once, reads' gathered over the
   * turn and inserted in one transaction. A no-op when the driver says `audit: false`.
   */
  readonly audit: (
    who: Principal,
    action: string,
    resourceType: string,
    resourceId: string | null,
    clientIp: string | null,
    requestId: string,
    status: number,
    read: boolean
  ) => void
  /** The workspace of the presented `Authorization` header, or the 401 to answer. */
  readonly authenticate: (authorization: string | null | undefined) => Principal | Problem
  /** POST /api/encounters with a JSON body, stored as received. */
  readonly create: (who: Principal, contentType: string, body: Uint8Array) => Answer
  /** GET /api/encounters */
  readonly list: (workspaceId: string, limit: unknown, pageToken: unknown) => Answer
  /** GET /api/encounters/:id */
  readonly one: (workspaceId: string, id: string) => Answer
  /** GET /api/encounters/compat-version, each item in the vendor's v4 shape (its `url` under `baseUrl`) */
  readonly compatList: (workspaceId: string, limit: unknown, pageToken: unknown, baseUrl: string) => Answer
  /** GET /api/encounters/compat-version/:id */
  readonly compatOne: (workspaceId: string, id: string, baseUrl: string) => Answer
  /** POST /api/claims/:id/status with a JSON body (scope claims:write) */
  readonly changeStatus: (who: Principal, claimId: string, body: Uint8Array) => Answer
  /** GET /api/encounters/compat-version/events */
  readonly events: (workspaceId: string, limit: unknown, pageToken: unknown) => Answer
}

export declare const readFlags: () => Flags
export declare const pragmas: (synchronous: Flags["synchronous"]) => ReadonlyArray<string>
export declare const SCHEMA: string

export declare const problem: (status: number, code: string, title: string, detail: string, errors?: ReadonlyArray<Issue>) => Problem
export declare const problemBody: (
  p: Problem,
  requestId: string
) => {
  readonly type: string
  readonly title: string
  readonly status: number
  readonly detail: string
  readonly code: string
  readonly errors?: ReadonlyArray<Issue>
  readonly request_id: string
}
export declare const problemHeaders: (status: number, requestId: string) => Record<string, string>
export declare const notFound: (detail: string) => Problem
export declare const internalError: () => Problem

export declare const referenceApi: (driver: Driver) => ReferenceApi

export declare const announce: (port: number, key: string, synchronous: string) => void
export declare const exitOnSigterm: (stop: () => Promise<unknown>) => void
