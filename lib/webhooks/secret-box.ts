import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"
import { Data, Either, Schema } from "effect"
import { SealedSecret } from "../domain/webhook.js"

/**
 * Signing secrets at rest. A signing secret must be usable to sign, so it cannot be hashed like an
 * API key: it is encrypted with AES-256-GCM under a 32-byte key the server holds outside the
 * database (see secret-key.ts). A stolen database or backup alone reveals no secret.
 *
 * Sealed form: `v1.<key id>.<base64url(iv ‖ ciphertext ‖ tag)>`. The key id (8 characters of the
 * key's SHA-256) tells "sealed under another key" apart from tampering, and lets a later key
 * rotation find what still needs re-sealing.
 */

export const SecretBoxKey = Schema.Uint8ArrayFromSelf.pipe(
  Schema.filter((bytes) => bytes.length === 32, { message: () => "must be 32 bytes" }),
  Schema.brand("SecretBoxKey")
)
export type SecretBoxKey = typeof SecretBoxKey.Type

/** A key from raw bytes: anything but 32 bytes is refused. */
export const secretBoxKey = Schema.decodeUnknownEither(SecretBoxKey)

/** A fresh random key. */
export const newSecretBoxKey = (): SecretBoxKey => SecretBoxKey.make(new Uint8Array(randomBytes(32)))

/** A sealed value could not be opened: wrong key, malformed, or altered. The value is never quoted. */
export class SecretBoxError extends Data.TaggedError("SecretBoxError")<{ readonly reason: string }> {
  override get message() {
    return `Cannot open the sealed secret: ${this.reason}`
  }
}

const VERSION = "v1"
const IV_BYTES = 12
const TAG_BYTES = 16

export const keyId = (key: SecretBoxKey): string => createHash("sha256").update(key).digest("base64url").slice(0, 8)

/**
 * Encrypts `plaintext`. `context` (for example the endpoint id) is authenticated but not stored:
 * a sealed secret copied onto another endpoint's row does not open there.
 */
export const seal = (plaintext: string, key: SecretBoxKey, context = ""): SealedSecret => {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(context, "utf8"))
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  const payload = Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")
  return SealedSecret.make(`${VERSION}.${keyId(key)}.${payload}`)
}

/** The id of the key a sealed value was sealed under (`keyId`), or undefined when it is not a sealed value. */
export const sealedKeyId = (sealed: string): string | undefined => {
  const parts = sealed.split(".")
  return parts.length === 3 && parts[0] === VERSION ? parts[1] : undefined
}

/** Decrypts what `seal` produced with the same key and context. */
export const open = (sealed: string, key: SecretBoxKey, context = ""): Either.Either<string, SecretBoxError> => {
  const parts = sealed.split(".")
  if (parts.length !== 3 || parts[0] !== VERSION || !/^[A-Za-z0-9_-]+$/.test(parts[2] ?? "")) {
    return Either.left(new SecretBoxError({ reason: "not a sealed secret" }))
  }
  if (parts[1] !== keyId(key)) return Either.left(new SecretBoxError({ reason: "sealed under another key" }))
  const raw = Buffer.from(parts[2] ?? "", "base64url")
  if (raw.length < IV_BYTES + TAG_BYTES) return Either.left(new SecretBoxError({ reason: "truncated" }))
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES))
  decipher.setAAD(Buffer.from(context, "utf8"))
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
  try {
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()])
    return Either.right(plain.toString("utf8"))
  } catch {
    // GCM's tag check is the only failure left here; its message says nothing more useful.
    return Either.left(new SecretBoxError({ reason: "altered, or sealed for another record" }))
  }
}
