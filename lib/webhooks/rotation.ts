import { Either, Schema } from "effect"
import { type SealedSecret, type WebhookEndpoint, WebhookSecret } from "../domain/webhook.js"
import { open, seal, SecretBoxError, type SecretBoxKey } from "./secret-box.js"
import { newSecret } from "./signature.js"

/** After a rotation the old secret keeps signing this long, so receivers can switch without a gap. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000

type Secrets = Pick<WebhookEndpoint, "id" | "secret" | "previous_secret" | "previous_secret_expires_at">

/** The sealed secrets that sign a message sent at `nowMs`: the current one, and the previous one within the overlap. */
export const signingSecrets = (endpoint: Secrets, nowMs: number): ReadonlyArray<SealedSecret> => {
  const previousActive =
    endpoint.previous_secret !== null &&
    endpoint.previous_secret_expires_at !== null &&
    Date.parse(endpoint.previous_secret_expires_at) > nowMs
  return previousActive && endpoint.previous_secret !== null
    ? [endpoint.secret, endpoint.previous_secret]
    : [endpoint.secret]
}

const decodeSecret = Schema.decodeUnknownEither(WebhookSecret)

/** Opens sealed secrets for signing; the endpoint id is the sealing context. */
export const openSecrets = (
  endpointId: string,
  sealed: ReadonlyArray<SealedSecret>,
  key: SecretBoxKey
): Either.Either<ReadonlyArray<WebhookSecret>, SecretBoxError> =>
  Either.all(
    sealed.map((s) =>
      Either.flatMap(open(s, key, endpointId), (plain) =>
        Either.mapLeft(decodeSecret(plain), () => new SecretBoxError({ reason: "not a signing secret" }))
      )
    )
  )

/** A new endpoint's secret: the plaintext to show once, and the sealed form to store. */
export const issueSecret = (endpointId: string, key: SecretBoxKey): { readonly secret: WebhookSecret; readonly sealed: SealedSecret } => {
  const secret = newSecret()
  return { secret, sealed: seal(secret, key, endpointId) }
}

/**
 * A rotation: a new current secret, the old current one kept as previous for 24 hours. A secret
 * that was already previous is dropped (rotating twice within a day ends the older overlap).
 */
export const rotateSecrets = (
  endpoint: Secrets,
  key: SecretBoxKey,
  nowMs: number
): {
  readonly secret: WebhookSecret
  readonly fields: Pick<WebhookEndpoint, "secret" | "previous_secret" | "previous_secret_expires_at">
} => {
  const issued = issueSecret(endpoint.id, key)
  return {
    secret: issued.secret,
    fields: {
      secret: issued.sealed,
      previous_secret: endpoint.secret,
      previous_secret_expires_at: new Date(nowMs + ROTATION_OVERLAP_MS).toISOString()
    }
  }
}
