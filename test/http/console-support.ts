import type { TestServer } from "../support/server.js"
import type { Answer } from "./client.js"

/** A signed-in console session over plain HTTP: its cookie and CSRF token. */
export interface ConsoleSession {
  readonly cookie: string
  readonly csrf: string
  readonly setCookie: string
}

export const signInConsole = async (server: TestServer, key: string): Promise<ConsoleSession> => {
  const res = await fetch(`${server.url}/console/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ api_key: key })
  })
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`)
  const setCookie = res.headers.get("set-cookie") ?? ""
  const body: unknown = await res.json()
  const csrf = typeof body === "object" && body !== null && "csrf_token" in body && typeof body.csrf_token === "string" ? body.csrf_token : ""
  return { cookie: setCookie.split(";")[0] ?? "", csrf, setCookie }
}

/** A console request: the session's cookie, and for a POST a JSON body and (unless told) its CSRF token. */
export const consoleCall = async (
  server: TestServer,
  session: ConsoleSession | undefined,
  method: "GET" | "POST",
  path: string,
  options: { readonly body?: unknown; readonly csrf?: string | null; readonly headers?: Record<string, string> } = {}
): Promise<Answer> => {
  const headers: Record<string, string> = { ...(session === undefined ? {} : { cookie: session.cookie }) }
  if (method === "POST") {
    headers["content-type"] = "application/json"
    const csrf = options.csrf === undefined ? session?.csrf : options.csrf
    if (csrf !== null && csrf !== undefined) headers["x-csrf-token"] = csrf
  }
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...headers, ...options.headers },
    ...(method === "POST" ? { body: JSON.stringify(options.body ?? {}) } : {})
  })
  const text = await res.text()
  let body: unknown
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: res.status, headers: res.headers, text, body }
}
