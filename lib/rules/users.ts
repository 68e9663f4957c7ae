import { randomBytes } from "node:crypto"
import { Effect, Either, Option } from "effect"
import { commit } from "./commit.js"
import { FieldIssue, type StorageError } from "../domain/errors.js"
import { isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, type Page, toPage, tokenScope } from "../domain/page.js"
import {
  decodeUserCreate,
  decodeUserPatch,
  normalizeEmail,
  passwordProblems,
  toUserView,
  type UserCreated,
  UserId,
  type UserRecord,
  type UserView
} from "../domain/user.js"
import { InvalidUserInput, LastAdmin, SignInRefused, UserEmailTaken, UserNotFound } from "../domain/user-errors.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Passwords } from "../ports/passwords.js"
import { Storage } from "../ports/storage.js"
import { insert, update } from "../ports/write.js"

/** A one-time password: 120 random bits, 20 characters (above the minimum length). */
const oneTimePassword = (): string => randomBytes(15).toString("base64url")

/** A user of the workspace; another workspace's (or a malformed id) is not found. */
export const findUser = (ws: WorkspaceId, id: string): Effect.Effect<UserRecord, UserNotFound | StorageError, Storage> =>
  Effect.gen(function* () {
    if (!isUuid(id)) return yield* new UserNotFound({ id })
    const found = yield* (yield* Storage).get("users", ws, id)
    if (Option.isNone(found)) return yield* new UserNotFound({ id })
    return found.value
  })

/** The workspace's user with this email. */
export const findUserByEmail = (ws: WorkspaceId, email: string) =>
  Effect.gen(function* () {
    const all = yield* (yield* Storage).findUsersByEmail(normalizeEmail(email))
    const found = all.find((u) => u.workspace.id === ws)
    if (found === undefined) return yield* new UserNotFound({ id: email })
    return found.user
  })

/**
 * Adds a user with a one-time password, answered this once (only its argon2id hash is stored); it
 * must be changed at the first sign-in. An email is one user per workspace (409 otherwise).
 */
export const createUser = (ws: WorkspaceId, body: unknown) =>
  Effect.gen(function* () {
    const input = yield* Either.mapLeft(decodeUserCreate(body), (errors) => new InvalidUserInput({ errors }))
    const password = oneTimePassword()
    const hash = yield* (yield* Passwords).hash(password)
    const now = isoTime((yield* Clock).now())
    const user: UserRecord = {
      id: UserId.make((yield* Ids).next()),
      workspace_id: ws,
      email: normalizeEmail(input.email),
      name: input.name ?? null,
      role: input.role,
      status: "active",
      password_hash: hash,
      password_state: "initial",
      failed_sign_ins: 0,
      locked_until: null,
      last_sign_in_at: null,
      created_at: now,
      updated_at: now
    }
    const result = yield* commit({
      operation: "createUser",
      steps: [insert("users", user, { unique: "email", refuse: () => new UserEmailTaken({ email: user.email }) })]
    })
    if (result._tag === "Refused") return yield* result.refusal
    const created: UserCreated = { ...toUserView(user), initial_password: password }
    return created
  })

export interface UserListQuery {
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/** The workspace's users, newest first. */
export const listUsers = (ws: WorkspaceId, query: UserListQuery = {}) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const scope = tokenScope([ws, "users"])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const rows = yield* (yield* Storage).page("users", ws, { position, limit })
    return toPage(rows, limit, position, (u) => [u.created_at, u.id], scope, toUserView) satisfies Page<UserView>
  })

/** Whether another active admin than `except` is left in the workspace. */
const anotherAdmin = (ws: WorkspaceId, except: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    let position: Parameters<typeof storage.page>[2]["position"]
    for (;;) {
      const rows = yield* storage.page("users", ws, { position, limit: 100 })
      if (rows.slice(0, 100).some((u) => u.id !== except && u.role === "admin" && u.status === "active")) return true
      const last = rows[99]
      if (rows.length <= 100 || last === undefined) return false
      position = { dir: "next", key: [last.created_at, last.id] }
    }
  })

/**
 * Changes a user's role, status or name. A disabled user's sessions end at their next request;
 * enabling again clears the sign-in lockout. The workspace's last active admin keeps its role and
 * status (409), so that someone can always manage its users.
 */
export const updateUser = (ws: WorkspaceId, id: string, body: unknown) =>
  Effect.gen(function* () {
    const user = yield* findUser(ws, id)
    const patch = yield* Either.mapLeft(decodeUserPatch(body), (errors) => new InvalidUserInput({ errors }))
    const demoted = user.role === "admin" && user.status === "active" && ((patch.role ?? "admin") !== "admin" || (patch.status ?? "active") !== "active")
    if (demoted && !(yield* anotherAdmin(ws, user.id))) return yield* new LastAdmin()
    const now = isoTime((yield* Clock).now())
    const set: Partial<UserRecord> = {
      ...(patch.role !== undefined ? { role: patch.role } : {}),
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.status !== undefined ? { status: patch.status } : {}),
      ...(patch.status === "active" && user.status !== "active" ? { failed_sign_ins: 0, locked_until: null } : {}),
      updated_at: now
    }
    yield* commit({ operation: "updateUser", steps: [update("users", user.id, { workspace_id: ws }, set)] })
    return toUserView({ ...user, ...set })
  })

/** A new one-time password (answered once), to be changed at the next sign-in; the lockout is cleared. */
export const resetUserPassword = (ws: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    const user = yield* findUser(ws, id)
    const password = oneTimePassword()
    const hash = yield* (yield* Passwords).hash(password)
    const now = isoTime((yield* Clock).now())
    const set: Partial<UserRecord> = { password_hash: hash, password_state: "initial", failed_sign_ins: 0, locked_until: null, updated_at: now }
    yield* commit({ operation: "resetUserPassword", steps: [update("users", user.id, { workspace_id: ws }, set)] })
    const reset: UserCreated = { ...toUserView({ ...user, ...set }), initial_password: password }
    return reset
  })

/**
 * A user changes their own password: the current one must be given (a one-time one included), and
 * the new one must be at least `PASSWORD_MIN_LENGTH` characters and differ from it.
 */
export const changeOwnPassword = (ws: WorkspaceId, id: string, current: string, next: string) =>
  Effect.gen(function* () {
    const user = yield* findUser(ws, id)
    const passwords = yield* Passwords
    const good = user.password_hash !== null && (yield* passwords.verify(current, user.password_hash))
    if (!good) return yield* new SignInRefused({ reason: "The current password is wrong" })
    const problems = passwordProblems(next)
    if (problems.length > 0) return yield* new InvalidUserInput({ errors: problems })
    if (next === current) {
      return yield* new InvalidUserInput({ errors: [new FieldIssue({ path: "new_password", message: "must differ from the current password" })] })
    }
    const hash = yield* passwords.hash(next)
    const now = isoTime((yield* Clock).now())
    // Only while the hash read is still stored: two changes at once do not both apply.
    yield* commit({
      operation: "changeOwnPassword",
      steps: [update("users", user.id, { workspace_id: ws, password_hash: user.password_hash }, { password_hash: hash, password_state: "set", updated_at: now })]
    })
    return toUserView({ ...user, password_state: "set" })
  })
