import { Schema } from "effect"
import { FieldIssue } from "./errors.js"

/** No user with this id (or email) in the workspace. */
export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", { id: Schema.String }) {
  override get message() {
    return `No user ${this.id}`
  }
}

/** A user body broke its schema, or a new password is too short or too long; every problem is listed. */
export class InvalidUserInput extends Schema.TaggedError<InvalidUserInput>()("InvalidUserInput", { errors: Schema.Array(FieldIssue) }) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

/** The workspace has a user with this email already. */
export class UserEmailTaken extends Schema.TaggedError<UserEmailTaken>()("UserEmailTaken", { email: Schema.String }) {
  override get message() {
    return "A user with this email exists in the workspace already"
  }
}

/**
 * A password sign-in refused: unknown email, wrong password or a disabled user, all alike (the
 * answer does not tell which).
 */
export class SignInRefused extends Schema.TaggedError<SignInRefused>()("SignInRefused", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

/** Too many failed sign-ins for this user: none is tried before `retryAfterSeconds`. */
export class SignInLocked extends Schema.TaggedError<SignInLocked>()("SignInLocked", { retryAfterSeconds: Schema.Int }) {
  override get message() {
    return `Too many failed sign-ins; try again in ${this.retryAfterSeconds} s`
  }
}

/** The email and password are good in more than one workspace: the sign-in must name one (`workspace`). */
export class WorkspaceRequired extends Schema.TaggedError<WorkspaceRequired>()("WorkspaceRequired", {}) {
  override get message() {
    return "This email signs in to several workspaces; name one (workspace)"
  }
}

/** The session signed in with a one-time password: it must be changed before anything else. */
export class PasswordChangeRequired extends Schema.TaggedError<PasswordChangeRequired>()("PasswordChangeRequired", {}) {
  override get message() {
    return "Change the one-time password first (POST /console/api/password)"
  }
}

/** Refusing what would leave the workspace without an active admin. */
export class LastAdmin extends Schema.TaggedError<LastAdmin>()("LastAdmin", {}) {
  override get message() {
    return "The workspace's last active admin cannot be disabled or given another role"
  }
}
