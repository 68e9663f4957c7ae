import { Effect } from "effect"
import type { WorkspaceId } from "../../lib/domain/ids.js"
import type { Role } from "../../lib/domain/user.js"
import { Passwords } from "../../lib/ports/passwords.js"
import { changeOwnPassword, createUser } from "../../lib/rules/users.js"
import type { TestServer } from "../support/server.js"
import type { Answer } from "./client.js"

/** A signed-in console session over plain HTTP: its cookie and CSRF token. */
export interface ConsoleSession {
  readonly cookie: string
  readonly csrf: string
  readonly setCookie: string
}

export interface TestUser {
  readonly id: string
  readonly email: string
  readonly password: string
  readonly workspace: WorkspaceId
}

const made = new WeakMap<TestServer, Map<string, Promise<TestUser>>>()

/** A user of a test server's workspace with this role and a password already set (made once per server). */
export const consoleUser = (server: TestServer, ws: "a" | "b", role: Role, tag = ""): Promise<TestUser> => {
  const users = made.get(server) ?? new Map<string, Promise<TestUser>>()
  made.set(server, users)
  const name = `${ws}-${role}${tag}`
  const known = users.get(name)
  if (known !== undefined) return known
  const workspace = server.workspaces[ws] as WorkspaceId
  const password = `password of ${name} at least twelve`
  const user = server.runtime.runPromise(
    Effect.gen(function* () {
      const created = yield* createUser(workspace, { email: `${name}@clinic.test`, role })
      yield* changeOwnPassword(workspace, created.id, created.initial_password, password)
      return { id: created.id, email: created.email, password, workspace }
    }).pipe(Effect.provideService(Passwords, server.passwords))
  )
  users.set(name, user)
  return user
}

/** The user the console tests sign in as in place of one of the test server's keys (the role holding its scopes). */
const userForKey = (server: TestServer, key: string): { readonly ws: "a" | "b"; readonly role: Role } | undefined => {
  const k = server.keys
  if (key === k.a) return { ws: "a", role: "viewer" }
  if (key === k.aWriter) return { ws: "a", role: "biller" }
  if (key === k.aHooks) return { ws: "a", role: "admin" }
  if (key === k.b) return { ws: "b", role: "biller" }
  if (key === k.bHooks) return { ws: "b", role: "admin" }
  return undefined
}

/** The user `signInConsole` signs in as for one of the test server's keys. */
export const userForTestKey = (server: TestServer, key: string): Promise<TestUser> => {
  const as = userForKey(server, key)
  if (as === undefined) throw new Error("not one of the test server's keys")
  return consoleUser(server, as.ws, as.role)
}

const toSession = async (res: Response): Promise<ConsoleSession> => {
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`)
  const setCookie = res.headers.get("set-cookie") ?? ""
  const body: unknown = await res.json()
  const csrf = typeof body === "object" && body !== null && "csrf_token" in body && typeof body.csrf_token === "string" ? body.csrf_token : ""
  return { cookie: setCookie.split(";")[0] ?? "", csrf, setCookie }
}

export const signInPassword = async (server: TestServer, email: string, password: string, workspace?: string): Promise<ConsoleSession> =>
  toSession(
    await fetch(`${server.url}/console/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password, ...(workspace === undefined ? {} : { workspace }) })
    })
  )

/**
 * Signs in to the console as a user: for one of the server's own keys, the user of that workspace
 * whose role holds the key's scopes (viewer for `a`, biller for `aWriter` and `b`, admin for the
 * hooks keys); any other key signs in as itself (the server must allow key sign-in, and the key
 * hold the admin scope).
 */
export const signInConsole = async (server: TestServer, key: string): Promise<ConsoleSession> => {
  const as = userForKey(server, key)
  if (as !== undefined) {
    const user = await consoleUser(server, as.ws, as.role)
    return signInPassword(server, user.email, user.password)
  }
  return toSession(
    await fetch(`${server.url}/console/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: key })
    })
  )
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
