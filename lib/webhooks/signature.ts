import { createHmac, randomBytes } from "node:crypto"
import { WebhookSecret } from "../domain/webhook.js"

/**
 * Standard Webhooks signing (standardwebhooks.com, "Signature scheme", symmetric `v1`).
 * The receiver recomputes the HMAC over exactly the bytes it received, so `body` must be the
 * string that is sent, not a re-serialization.
 */

const PREFIX = "whsec_"

/** A new signing secret: `whsec_` + standard padded base64 of 32 random bytes. */
export const newSecret = (): WebhookSecret => WebhookSecret.make(PREFIX + randomBytes(32).toString("base64"))

/** The key bytes: the base64 after the prefix, decoded (the spec signs with the bytes, not the text). */
export const secretBytes = (secret: WebhookSecret): Buffer => Buffer.from(secret.slice(PREFIX.length), "base64")

export interface SignInput {
  /** `webhook-id`: the event id, the same on every attempt. */
  readonly id: string
  /** `webhook-timestamp`: Unix seconds of this attempt. */
  readonly timestamp: number
  readonly body: string
  /** The current secret first; during a rotation also the previous one. */
  readonly secrets: ReadonlyArray<WebhookSecret>
}

/** One `v1,<base64>` entry for one secret. */
export const signOne = (id: string, timestamp: number, body: string, secret: WebhookSecret): string =>
  "v1," +
  createHmac("sha256", secretBytes(secret)).update(`${id}.${Math.floor(timestamp)}.${body}`, "utf8").digest("base64")

/**
 * The `webhook-signature` header value: one entry per secret, separated by spaces, so receivers
 * holding either the new or the old secret verify during a rotation.
 */
export const sign = ({ id, timestamp, body, secrets }: SignInput): string =>
  secrets.map((secret) => signOne(id, timestamp, body, secret)).join(" ")

/** The headers of one message, signature included. */
export const signedHeaders = (input: SignInput): Record<string, string> => ({
  "webhook-id": input.id,
  "webhook-timestamp": String(Math.floor(input.timestamp)),
  "webhook-signature": sign(input)
})
