import { Schema } from "effect"
import { FieldIssue } from "./errors.js"
import { requestDecoder } from "./field-issues.js"
import { WorkspaceId } from "./ids.js"
import type { Scope, Workspace } from "./workspace.js"

export const UserId = Schema.String.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

/**
 * What a console user may do. `viewer`: read everything, change nothing. `biller`: also move and
 * correct claims, work tasks, export and import X12. `admin`: also users, keys, webhooks and the
 * clearinghouse settings.
 */
export const Roles = ["viewer", "biller", "admin"] as const
export const Role = Schema.Literal(...Roles)
export type Role = typeof Role.Type

/**
 * The key scopes a role holds: routes declare the scope they need once, and a user's session is
 * checked against its role's scopes, so a route added later is refused to the roles that lack its
 * scope without code of its own. Reads that declare no scope are open to every role.
 */
export const roleScopes: Readonly<Record<Role, ReadonlyArray<Scope>>> = {
  viewer: [],
  biller: ["encounters", "claims:write", "tasks:write"],
  admin: ["encounters", "claims:write", "webhooks:write", "tasks:write", "admin"]
}

export const UserStatuses = ["active", "disabled"] as const
export const UserStatus = Schema.Literal(...UserStatuses)
export type UserStatus = typeof UserStatus.Type

/**
 * `initial`: the password was made by the service (create, reset) and must be changed at the next
 * sign-in before anything else; `set`: chosen by the user; `none`: signs in only through the
 * identity provider.
 */
export const PasswordState = Schema.Literal("initial", "set", "none")
export type PasswordState = typeof PasswordState.Type

/** A stored user: the password only as its argon2id hash, never itself. */
export const UserRecord = Schema.Struct({
  id: UserId,
  workspace_id: WorkspaceId,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  role: Role,
  status: UserStatus,
  password_hash: Schema.NullOr(Schema.String),
  password_state: PasswordState,
  /** Failed sign-ins since the last good one (the backoff counts them). */
  failed_sign_ins: Schema.Number,
  /** No password sign-in is tried before this time (ISO), whatever the password. */
  locked_until: Schema.NullOr(Schema.String),
  last_sign_in_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type UserRecord = typeof UserRecord.Type

/** What lists and the API show of a user: never the hash or the sign-in counters. */
export const UserView = Schema.Struct({
  id: UserId,
  workspace_id: WorkspaceId,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  role: Role,
  status: UserStatus,
  /** True while the one-time password has not been changed. */
  must_change_password: Schema.Boolean,
  created_at: Schema.String,
  last_sign_in_at: Schema.NullOr(Schema.String)
})
export type UserView = typeof UserView.Type

export const toUserView = (u: UserRecord): UserView => ({
  id: u.id,
  workspace_id: u.workspace_id,
  email: u.email,
  name: u.name,
  role: u.role,
  status: u.status,
  created_at: u.created_at,
  last_sign_in_at: u.last_sign_in_at,
  must_change_password: u.password_state === "initial"
})

/** A user made or reset: the one-time password is shown this once. */
export const UserCreated = Schema.Struct({ ...UserView.fields, initial_password: Schema.String })
export type UserCreated = typeof UserCreated.Type

/** A user found by email, with the workspace it belongs to (sign-in names no workspace). */
export interface UserWithWorkspace {
  readonly user: UserRecord
  readonly workspace: Workspace
}

/** Passwords: at least this long, no composition rules (NIST SP 800-63B). */
export const PASSWORD_MIN_LENGTH = 12
export const PASSWORD_MAX_LENGTH = 256

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/

/** Emails compare case-insensitively: they are stored trimmed and lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

export const Email = Schema.String.pipe(
  Schema.filter((s) => EMAIL.test(s.trim()), { message: () => "must be an email address" })
)

export const UserCreate = Schema.Struct({
  email: Email,
  name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))),
  role: Role
})
export type UserCreate = typeof UserCreate.Type

export const UserPatch = Schema.Struct({
  role: Schema.optional(Role),
  status: Schema.optional(UserStatus),
  name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200))))
})
export type UserPatch = typeof UserPatch.Type

export const decodeUserCreate = requestDecoder(UserCreate)
export const decodeUserPatch = requestDecoder(UserPatch)

/** A new password's problems (length only): empty when it may be used. */
export const passwordProblems = (password: string, path = "new_password"): ReadonlyArray<FieldIssue> => {
  const length = [...password].length
  if (length < PASSWORD_MIN_LENGTH) return [new FieldIssue({ path, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` })]
  if (length > PASSWORD_MAX_LENGTH) return [new FieldIssue({ path, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` })]
  return []
}
