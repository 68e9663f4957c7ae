import { Effect } from "effect"
import { commit } from "./commit.js"
import { normalizeEmail, type UserRecord, type UserWithWorkspace } from "../domain/user.js"
import { SignInLocked, SignInRefused, WorkspaceRequired } from "../domain/user-errors.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Passwords } from "../ports/passwords.js"
import { Storage } from "../ports/storage.js"
import { update } from "../ports/write.js"

export interface PasswordSignIn {
  readonly email: string
  readonly password: string
  /** The workspace's slug, when the email has users in several. */
  readonly workspace?: string | undefined
}

/** Failed sign-ins a user may have before each further one locks it for a while. */
export const FREE_FAILURES = 5
const FIRST_LOCK_MS = 30_000
const LONGEST_LOCK_MS = 15 * 60_000

/** How long a user is locked after its `failures`-th failed sign-in in a row: 30 s, doubling to 15 min. */
export const lockMs = (failures: number): number =>
  failures < FREE_FAILURES ? 0 : Math.min(LONGEST_LOCK_MS, FIRST_LOCK_MS * 2 ** (failures - FREE_FAILURES))

const refused = new SignInRefused({ reason: "The email or password is wrong, or the user is disabled" })

/**
 * A password sign-in. Every user with the email (in the named workspace, if one is named) whose
 * lockout has passed has its password checked; an unknown email costs one check as well. Exactly one
 * active user with a good password signs in (its failures cleared); two or more ask for the
 * workspace. Otherwise each user checked counts a failure, and from the `FREE_FAILURES`-th on is
 * locked for a time that doubles with each further failure. Unknown email, wrong password and
 * disabled user are one refusal.
 */
export const signInWithPassword = (input: PasswordSignIn) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const passwords = yield* Passwords
    const now = (yield* Clock).now()
    const all = yield* storage.findUsersByEmail(normalizeEmail(input.email))
    const candidates = input.workspace === undefined ? all : all.filter((u) => u.workspace.slug === input.workspace)
    if (candidates.length === 0) {
      yield* passwords.burn(input.password)
      return yield* refused
    }
    const open = candidates.filter((c) => c.user.locked_until === null || Date.parse(c.user.locked_until) <= now)
    if (open.length === 0) {
      const soonest = Math.min(...candidates.map((c) => Date.parse(c.user.locked_until ?? "")))
      return yield* new SignInLocked({ retryAfterSeconds: Math.max(1, Math.ceil((soonest - now) / 1000)) })
    }
    const matched: Array<UserWithWorkspace> = []
    const failed: Array<UserRecord> = []
    for (const c of open) {
      const good = c.user.password_hash !== null && (yield* passwords.verify(input.password, c.user.password_hash))
      if (good && c.user.status === "active") matched.push(c)
      else if (!good) failed.push(c.user)
    }
    if (matched.length > 1) return yield* new WorkspaceRequired()
    const signedIn = matched[0]
    const at = isoTime(now)
    if (signedIn !== undefined) {
      yield* commit({
        operation: "signInUser",
        steps: [update("users", signedIn.user.id, { workspace_id: signedIn.user.workspace_id }, { failed_sign_ins: 0, locked_until: null, last_sign_in_at: at })]
      })
      const user: UserRecord = { ...signedIn.user, failed_sign_ins: 0, locked_until: null, last_sign_in_at: at }
      return { workspace: signedIn.workspace, user } satisfies UserWithWorkspace
    }
    if (failed.length > 0) {
      yield* commit({
        operation: "failedSignIn",
        steps: failed.map((u) => {
          const failures = u.failed_sign_ins + 1
          const lock = lockMs(failures)
          return update("users", u.id, { workspace_id: u.workspace_id }, { failed_sign_ins: failures, locked_until: lock === 0 ? null : isoTime(now + lock) })
        })
      })
    }
    return yield* refused
  })
