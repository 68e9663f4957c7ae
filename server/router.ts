import type { Route } from "./route.js"

interface Compiled {
  readonly route: Route
  readonly segments: ReadonlyArray<string>
}

export type RouteTable = ReadonlyArray<Compiled>

export const compile = (routes: ReadonlyArray<Route>): RouteTable =>
  routes.map((route) => ({ route, segments: route.path.split("/").slice(1) }))

export type Match =
  | { readonly _tag: "Found"; readonly route: Route; readonly params: Record<string, string> }
  | { readonly _tag: "WrongMethod"; readonly path: string; readonly allow: ReadonlyArray<string> }
  | { readonly _tag: "None" }

const matchPath = (c: Compiled, parts: ReadonlyArray<string>): Record<string, string> | undefined => {
  if (c.segments.length !== parts.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    const seg = c.segments[i]!
    const part = parts[i]!
    if (seg.startsWith("{")) {
      if (part === "") return undefined
      params[seg.slice(1, -1)] = part
    } else if (seg !== part) return undefined
  }
  return params
}

const decodeSegment = (s: string): string | undefined => {
  try {
    return decodeURIComponent(s)
  } catch {
    return undefined
  }
}

export const route = (table: RouteTable, method: string, pathname: string): Match => {
  const raw = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname
  const parts: Array<string> = []
  for (const s of raw.split("/").slice(1)) {
    const d = decodeSegment(s)
    if (d === undefined) return { _tag: "None" }
    parts.push(d)
  }
  const allow: Array<string> = []
  let path = ""
  for (const c of table) {
    const params = matchPath(c, parts)
    if (params === undefined) continue
    // HEAD is answered as GET without a body.
    if (c.route.method === method || (method === "HEAD" && c.route.method === "GET")) {
      return { _tag: "Found", route: c.route, params }
    }
    allow.push(c.route.method)
    path ||= c.route.path
  }
  return allow.length > 0 ? { _tag: "WrongMethod", path, allow: [...new Set(allow)] } : { _tag: "None" }
}

const ORIGIN = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/

/**
 * An absolute URL whose path and query hold only characters URL parsing leaves as they are (no
 * percent escapes or dot segments in the path): its path and query are read off the string, which
 * costs a fraction of a full parse on every request. Anything else is parsed in full.
 */
const SEGMENT = "[A-Za-z0-9_~-][A-Za-z0-9._~-]*"
const PLAIN = new RegExp(`^https?://[A-Za-z0-9.:[\\]-]+(/(?:${SEGMENT}(?:/${SEGMENT})*/?)?)(?:\\?([A-Za-z0-9._~=&%+,:/-]*))?$`)

/** What a request's URL is used for: its path and its query. */
export interface RequestTarget {
  readonly pathname: string
  readonly searchParams: URLSearchParams
}

/**
 * The request's path and query. Without a usable `Host` (HTTP/1.0 probes, an empty or malformed
 * header) Bun leaves the origin-form target as it came (`/healthz?x=1`), or prefixes a Host that no
 * URL parser takes (`http://[::1/healthz`): the path and query are read against a placeholder
 * origin. Only the path and query are used; the origin never is.
 */
export const requestUrl = (raw: string): RequestTarget => {
  const plain = PLAIN.exec(raw)
  if (plain !== null) return { pathname: plain[1] ?? "/", searchParams: new URLSearchParams(plain[2] ?? "") }
  if (URL.canParse(raw)) return new URL(raw)
  const rest = raw.startsWith("/") ? raw : raw.replace(ORIGIN, "")
  const local = `http://unknown${rest.startsWith("/") ? "" : "/"}${rest}`
  return URL.canParse(local) ? new URL(local) : new URL("http://unknown/")
}
