import { Context, type Effect } from "effect"

/**
 * Password hashing, as a port: the library runs on Node and on Bun, and the binary hashes with
 * Bun's argon2id (`server/passwords.ts`); tests may give a cheaper one. A hash names its own
 * algorithm and parameters (PHC string), so `verify` takes any hash the port made.
 */
export interface PasswordHasher {
  readonly hash: (password: string) => Effect.Effect<string>
  readonly verify: (password: string, hash: string) => Effect.Effect<boolean>
  /** Takes as long as a `verify`, and checks nothing: a sign-in with an unknown email costs what one with a known email does. */
  readonly burn: (password: string) => Effect.Effect<void>
}

export class Passwords extends Context.Tag("encounters/Passwords")<Passwords, PasswordHasher>() {}
