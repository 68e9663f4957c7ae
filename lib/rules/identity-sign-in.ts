import { Effect } from "effect"
import { commit } from "./commit.js"
import { normalizeEmail, type UserWithWorkspace } from "../domain/user.js"
import { SignInRefused, WorkspaceRequired } from "../domain/user-errors.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { update } from "../ports/write.js"

export interface IdentitySignIn {
  /** The email an identity provider vouched for (its ID token's verified `email` claim). */
  readonly email: string
  /** The workspace's slug, when the email has users in several. */
  readonly workspace?: string | undefined
}

const refused = new SignInRefused({ reason: "No active user has this email" })

/**
 * A sign-in vouched for by an identity provider (OpenID Connect): the one active user with the
 * email (in the named workspace, if one is named) signs in. Nobody is created: an email without an
 * active user is refused, and one with active users in several workspaces needs the workspace. The
 * password lockout does not apply (no password is tried); the sign-in is recorded as a password
 * one is.
 */
export const signInWithIdentity = (input: IdentitySignIn) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const now = (yield* Clock).now()
    const all = yield* storage.findUsersByEmail(normalizeEmail(input.email))
    const active = all.filter((c) => c.user.status === "active" && (input.workspace === undefined || c.workspace.slug === input.workspace))
    if (active.length > 1) return yield* new WorkspaceRequired()
    const found = active[0]
    if (found === undefined) return yield* refused
    const at = isoTime(now)
    yield* commit({
      operation: "signInUser",
      steps: [update("users", found.user.id, { workspace_id: found.user.workspace_id }, { last_sign_in_at: at })]
    })
    return { workspace: found.workspace, user: { ...found.user, last_sign_in_at: at } } satisfies UserWithWorkspace
  })
