import { Effect } from "effect"
import type { PasswordHasher } from "../lib/ports/passwords.js"

/**
 * Argon2id through Bun's own implementation (`Bun.password`), at its defaults (64 MiB, 2
 * iterations): the hash is a PHC string naming its parameters, so raising them later still verifies
 * older hashes. Hashing runs on Bun's thread pool, off the event loop.
 */
export const argon2idPasswords = (options: { readonly memoryCost?: number; readonly timeCost?: number } = {}): PasswordHasher => {
  const algorithm = { algorithm: "argon2id" as const, ...options }
  // An unknown email is answered after as long a check as a known one.
  let burnHash: Promise<string> | undefined
  return {
    hash: (password) => Effect.promise(() => Bun.password.hash(password, algorithm)),
    verify: (password, hash) => Effect.promise(() => Bun.password.verify(password, hash).catch(() => false)),
    burn: (password) =>
      Effect.promise(async () => {
        burnHash ??= Bun.password.hash("encounterd: no such user", algorithm)
        await Bun.password.verify(password, await burnHash)
      })
  }
}
