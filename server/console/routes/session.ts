import { createHash } from "node:crypto"
import { Effect, Either, Schema } from "effect"
import { ClaimStatuses, NOTE_MAX_LENGTH } from "../../../lib/domain/claim-status.js"
import { TaskCategories } from "../../../lib/domain/code-meanings.js"
import { EventTypes } from "../../../lib/domain/event.js"
import { TaskStatuses, TaskTypes } from "../../../lib/domain/task.js"
import { parseJsonBody } from "../../../lib/domain/json.js"
import { normalizeEmail, PASSWORD_MAX_LENGTH, roleScopes, type UserWithWorkspace } from "../../../lib/domain/user.js"
import { Passwords } from "../../../lib/ports/passwords.js"
import { signInWithPassword } from "../../../lib/rules/password-sign-in.js"
import { changeOwnPassword } from "../../../lib/rules/users.js"
import { authenticate, hashKey } from "../../../lib/rules/workspaces.js"
import { readBody, requireJson } from "../../body.js"
import type { ServerConfig } from "../../config.js"
import { ConsoleSessionsFull, Forbidden, InvalidBody, SessionRequired } from "../../problem.js"
import { json, NoQuery, type Reply, type ServerContext } from "../../route.js"
import { clearedCookie, readSessionToken, sessionCookie } from "../cookies.js"
import { type ConsoleCaller, requireSameOrigin } from "../guard.js"
import { privateHeaders } from "../headers.js"
import { consoleRoute, sessionRoute } from "../route.js"
import type { Session, SessionSubject } from "../sessions.js"

const SignIn = Schema.Struct({
  api_key: Schema.optional(Schema.String),
  email: Schema.optional(Schema.String.pipe(Schema.maxLength(320))),
  password: Schema.optional(Schema.String.pipe(Schema.maxLength(PASSWORD_MAX_LENGTH))),
  workspace: Schema.optional(Schema.String.pipe(Schema.maxLength(63)))
})
const decodeSignIn = Schema.decodeUnknownEither(SignIn, { onExcessProperty: "ignore" })

const PasswordChange = Schema.Struct({ current_password: Schema.String, new_password: Schema.String })
const decodePasswordChange = Schema.decodeUnknownEither(PasswordChange, { onExcessProperty: "ignore" })

/**
 * What the page needs to act: the workspace, the user and role (or null with a key), the scopes
 * the page offers controls by, the CSRF token for writes, and when the session ends (idle and
 * absolute), so the page can warn before.
 */
const describe = (caller: Pick<ConsoleCaller, "principal" | "session" | "role"> & { readonly user: ConsoleUser | null }, config: ServerConfig) => ({
  workspace: caller.principal.workspace,
  user: caller.user,
  role: caller.role,
  must_change_password: caller.session.subject.kind === "user" && caller.session.subject.mustChangePassword,
  scopes: caller.principal.scopes,
  csrf_token: caller.session.csrf,
  idle_timeout_seconds: Math.floor(config.console.sessionIdleMs / 1000),
  session_expires_at: new Date(caller.session.createdAt + config.console.sessionMaxAgeMs).toISOString(),
  claim_statuses: ClaimStatuses,
  event_types: EventTypes,
  note_max_length: NOTE_MAX_LENGTH,
  task_types: TaskTypes,
  task_categories: TaskCategories,
  task_statuses: TaskStatuses
})

interface ConsoleUser {
  readonly id: string
  readonly email: string
  readonly name: string | null
}

const userOf = (caller: ConsoleCaller): ConsoleUser | null => (caller.actor.kind === "user" ? { id: caller.actor.id, email: caller.actor.name, name: null } : null)

/** A new session for a subject, replacing the browser's previous one; the answer sets its cookie. */
export const startSession = (request: Request, config: ServerConfig, server: ServerContext, subject: SessionSubject) =>
  Effect.gen(function* () {
    const sessions = server.console.sessions
    const previous = readSessionToken(request, config)
    if (previous !== undefined) sessions.remove(previous)
    const created = sessions.create(subject)
    if (created._tag === "Full") return yield* new ConsoleSessionsFull({ limit: config.console.maxSessions })
    return created
  })

const userSubject = (found: UserWithWorkspace): SessionSubject => ({
  kind: "user",
  id: found.user.id,
  workspace: found.workspace,
  mustChangePassword: found.user.password_state === "initial"
})

/** The answer of a sign-in as a user: the session's description and its cookie. */
export const userSignedIn = (found: UserWithWorkspace, session: Session, token: string, config: ServerConfig, extra: Record<string, string> = {}): Reply =>
  json(
    200,
    describe(
      {
        principal: { workspace: found.workspace, scopes: roleScopes[found.user.role] },
        session,
        role: found.user.role,
        user: { id: found.user.id, email: found.user.email, name: found.user.name }
      },
      config
    ),
    { ...privateHeaders, ...extra, "set-cookie": sessionCookie(config, token) }
  )

/** Charges one attempt to the client's address and to what it presents (an email's or a key's hash). */
const admit = (server: ServerContext, request: Request, presented: string) =>
  Effect.suspend(() => {
    const refused = server.console.admitSignIn(presented, server.clientAddress(request))
    if (refused === undefined) return Effect.void
    server.rateLimited()
    return Effect.fail(refused)
  })

/**
 * Sign-in: by email and password (with `workspace` when the email has users in several), or, only
 * on a server started with `--console-key-sign-in`, by an API key holding the `admin` scope. Every
 * attempt, whatever its outcome, counts against the client address's and the presented email's (or
 * key's) sign-in limits before anything is looked up; each user also locks after repeated failures.
 */
export const signInRoute = consoleRoute(
  { method: "POST", path: "/console/api/session", summary: "Sign in with an email and password" },
  ({ request, config, server }) =>
    Effect.gen(function* () {
      // JSON only: a cross-site form cannot send it without the browser asking first.
      yield* requireSameOrigin(request, config)
      yield* requireJson(request)
      const raw = yield* parseJsonBody(yield* readBody(request, 4096))
      const decoded = decodeSignIn(raw)
      if (Either.isLeft(decoded)) return yield* new InvalidBody({ errors: [{ path: "$", message: "must be {email, password} (and workspace when asked)" }] })
      const body = decoded.right
      if (body.api_key !== undefined && body.email === undefined) {
        if (!config.console.keySignIn) {
          return yield* new InvalidBody({ errors: [{ path: "api_key", message: "signing in with an API key is off on this server; sign in with an email and password" }] })
        }
        const key = body.api_key.trim()
        const hash = hashKey(key)
        yield* admit(server, request, hash)
        const principal = yield* authenticate(key)
        if (!principal.scopes.includes("admin")) return yield* new Forbidden({ scope: "admin" })
        const created = yield* startSession(request, config, server, { kind: "key", hash, id: principal.keyId })
        const reply: Reply = json(200, describe({ principal, session: created.session, role: null, user: null }, config), {
          ...privateHeaders,
          "set-cookie": sessionCookie(config, created.token)
        })
        return reply
      }
      const errors = [
        ...(body.email === undefined || body.email.trim() === "" ? [{ path: "email", message: "is required" }] : []),
        ...(body.password === undefined || body.password === "" ? [{ path: "password", message: "is required" }] : [])
      ]
      if (errors.length > 0 || body.email === undefined || body.password === undefined) return yield* new InvalidBody({ errors })
      yield* admit(server, request, createHash("sha256").update(`email:${normalizeEmail(body.email)}`).digest("hex"))
      const found = yield* signInWithPassword({ email: body.email, password: body.password, workspace: body.workspace }).pipe(
        Effect.provideService(Passwords, server.passwords)
      )
      const created = yield* startSession(request, config, server, userSubject(found))
      return userSignedIn(found, created.session, created.token, config)
    })
)

export const sessionInfoRoute = sessionRoute(
  {
    method: "GET",
    path: "/console/api/session",
    summary: "The signed-in workspace, user, role, scopes, CSRF token and session times",
    query: NoQuery,
    audit: "none",
    beforePasswordChange: true
  },
  ({ principal: caller, config }) => Effect.succeed(json(200, describe({ ...caller, user: userOf(caller) }, config)))
)

/**
 * A user changes their password (the one-time one at the first sign-in, or any time): the current
 * one and a new one of at least 12 characters. The session is replaced by a new one (new cookie and
 * CSRF token) that is no longer held to the change.
 */
export const changePasswordRoute = sessionRoute(
  { method: "POST", path: "/console/api/password", summary: "Change the signed-in user's password", query: NoQuery, audit: "none", beforePasswordChange: true },
  ({ principal: caller, config, server, request }) =>
    Effect.gen(function* () {
      const subject = caller.session.subject
      if (subject.kind !== "user") return yield* new SessionRequired({ detail: "Only a user has a password; sign in as one", headers: {} })
      yield* requireJson(request)
      const decoded = decodePasswordChange(yield* parseJsonBody(yield* readBody(request, 4096)))
      if (Either.isLeft(decoded)) {
        return yield* new InvalidBody({ errors: [{ path: "$", message: "must be {current_password, new_password}" }] })
      }
      yield* changeOwnPassword(subject.workspace.id, subject.id, decoded.right.current_password, decoded.right.new_password).pipe(
        Effect.provideService(Passwords, server.passwords)
      )
      server.console.sessions.remove(caller.token)
      const created = server.console.sessions.create({ ...subject, mustChangePassword: false })
      if (created._tag === "Full") return yield* new ConsoleSessionsFull({ limit: config.console.maxSessions })
      const user = { id: subject.id, email: caller.actor.name, name: null }
      return json(200, describe({ principal: caller.principal, session: created.session, role: caller.role, user }, config), {
        "set-cookie": sessionCookie(config, created.token)
      })
    })
)

export const signOutRoute = sessionRoute(
  { method: "POST", path: "/console/api/sign-out", summary: "End this session", query: NoQuery, audit: "none", beforePasswordChange: true },
  ({ principal: caller, config, server }) =>
    Effect.sync(() => {
      server.console.sessions.remove(caller.token)
      return json(204, null, { "set-cookie": clearedCookie(config) })
    })
)
