import type { ServerConfig } from "../config.js"

/**
 * The session cookie. Over https it carries the `__Host-` prefix, which browsers accept only with
 * `Secure`, `Path=/` and no `Domain`: no subdomain can set or shadow it.
 */
export const cookieName = (config: ServerConfig): string =>
  isSecure(config) ? "__Host-encounterd_session" : "encounterd_session"

const isSecure = (config: ServerConfig): boolean => config.publicUrl.startsWith("https://")

const attributes = (config: ServerConfig): string =>
  `Path=/; HttpOnly; SameSite=Strict${isSecure(config) ? "; Secure" : ""}`

/** No Max-Age: the cookie lasts the browser session; the server's idle expiry ends it sooner. */
export const sessionCookie = (config: ServerConfig, token: string): string => `${cookieName(config)}=${token}; ${attributes(config)}`

export const clearedCookie = (config: ServerConfig): string => `${cookieName(config)}=; Max-Age=0; ${attributes(config)}`

const TOKEN = /^[A-Za-z0-9_-]{20,128}$/

/** The session token from the Cookie header, when it is there and well-formed. */
export const readSessionToken = (request: Request, config: ServerConfig): string | undefined => {
  const header = request.headers.get("cookie")
  if (header === null) return undefined
  const name = cookieName(config)
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue
    const value = part.slice(eq + 1).trim()
    return TOKEN.test(value) ? value : undefined
  }
  return undefined
}
