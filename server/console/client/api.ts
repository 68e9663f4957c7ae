import { h } from "./dom.js"
import { field, list, num, str, strings } from "./format.js"

/** The signed-in workspace and what its key may do; the CSRF token goes with every write. */
export interface SessionInfo {
  /** The signed-in user's email; empty in a session signed in with a key. */
  readonly userEmail: string
  readonly role: string
  /** Signed in with a one-time password: only the password change is open. */
  readonly mustChangePassword: boolean
  readonly idleTimeoutSeconds: number
  /** When the session ends however busy (ISO). */
  readonly expiresAt: string
  readonly workspaceName: string
  readonly workspaceSlug: string
  readonly scopes: ReadonlyArray<string>
  readonly csrf: string
  /** The claim status vocabulary, as the server knows it. */
  readonly claimStatuses: ReadonlyArray<string>
  /** The event types the feed holds (the server's one list). */
  readonly eventTypes: ReadonlyArray<string>
  /** The longest note a status move keeps. */
  readonly noteMaxLength: number
  /** The work queue's task types, categories and statuses (the server's lists). */
  readonly taskTypes: ReadonlyArray<string>
  readonly taskCategories: ReadonlyArray<string>
  readonly taskStatuses: ReadonlyArray<string>
}

let current: SessionInfo | undefined

export const session = (): SessionInfo | undefined => current

export const canWriteClaims = (): boolean => current?.scopes.includes("claims:write") === true

/** Changing a work queue task needs this scope (as in the API). */
export const canWriteTasks = (): boolean => current?.scopes.includes("tasks:write") === true

/** Webhook endpoints and deliveries, reads included, need this scope (as in the API). */
export const canManageWebhooks = (): boolean => current?.scopes.includes("webhooks:write") === true

/** The workspace's audit log and users are an admin's. */
export const canReadAudit = (): boolean => current?.scopes.includes("admin") === true

/** When the page last heard from the server: every answer restarts the session's idle time. */
let lastActivity = Date.now()
export const lastServerContact = (): number => lastActivity

const toSession = (body: unknown): SessionInfo => ({
  userEmail: str(field(body, "user"), "email"),
  role: str(body, "role"),
  mustChangePassword: field(body, "must_change_password") === true,
  idleTimeoutSeconds: num(body, "idle_timeout_seconds"),
  expiresAt: str(body, "session_expires_at"),
  workspaceName: str(field(body, "workspace"), "name"),
  workspaceSlug: str(field(body, "workspace"), "slug"),
  scopes: strings(body, "scopes"),
  csrf: str(body, "csrf_token"),
  claimStatuses: strings(body, "claim_statuses"),
  eventTypes: strings(body, "event_types"),
  noteMaxLength: num(body, "note_max_length"),
  taskTypes: strings(body, "task_types"),
  taskCategories: strings(body, "task_categories"),
  taskStatuses: strings(body, "task_statuses")
})

/** A refused request: its status and the server's problem details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: unknown
  ) {
    super(str(problem, "detail") || `The server answered ${status}`)
  }
}

/** Listeners told when the server says the session is over (expired, signed out, key revoked). */
const ended: Array<() => void> = []
export const onSessionEnded = (listener: () => void) => ended.push(listener)

const read = async (response: Response): Promise<unknown> => {
  const text = await response.text()
  if (text === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const request = async (method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> => {
  const headers: Record<string, string> = { accept: "application/json" }
  if (method === "POST") {
    headers["content-type"] = "application/json"
    if (current !== undefined) headers["x-csrf-token"] = current.csrf
  }
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const parsed = await read(response)
  if (response.ok) lastActivity = Date.now()
  if (response.status === 401 && path !== "/console/api/session") {
    current = undefined
    for (const listener of ended) listener()
  }
  if (!response.ok) throw new ApiError(response.status, parsed)
  return parsed
}

export const getJson = (path: string) => request("GET", path)
export const postJson = (path: string, body: unknown) => request("POST", path, body)

/** The current session, or undefined when signed out. */
export const loadSession = async (): Promise<SessionInfo | undefined> => {
  try {
    current = toSession(await getJson("/console/api/session"))
    return current
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return undefined
    throw e
  }
}

export const signIn = async (email: string, password: string, workspace?: string): Promise<SessionInfo> => {
  current = toSession(await postJson("/console/api/session", { email, password, ...(workspace === undefined || workspace === "" ? {} : { workspace }) }))
  return current
}

export const changePassword = async (currentPassword: string, newPassword: string): Promise<SessionInfo> => {
  current = toSession(await postJson("/console/api/password", { current_password: currentPassword, new_password: newPassword }))
  return current
}

export const signOut = async (): Promise<void> => {
  await postJson("/console/api/sign-out", {})
  current = undefined
}

/** A failure as text for the page: the problem's detail, and each field error as "path: message". */
export const describeError = (e: unknown) => {
  if (!(e instanceof ApiError)) return [h("p", {}, "The server could not be reached. Check the connection and try again.")]
  const errors = list(e.problem, "errors").map((item) => h("li", {}, h("code", {}, str(item, "path")), ` ${str(item, "message")}`))
  return [h("p", {}, e.message), errors.length > 0 ? h("ul", {}, errors) : null]
}
