import { createHash } from "node:crypto"
import { Context, Layer } from "effect"
import { makeBoundedMap } from "../bounded-map.js"

/**
 * Create bodies already found valid, by the SHA-256 of their bytes, with their external id. A
 * replay is usually the same bytes again: it is then known to be valid (validation depends on
 * nothing but the body) and its external id is known, so it skips parsing and validating, which
 * cost more than the rest of a replay. A body seen for the first time, or forgotten, takes the
 * full path; so does any body that is not byte-for-byte one that passed, whatever its external id.
 */
export interface ValidBodiesShape {
  /** The digest of a body, computed once per request. */
  readonly digest: (body: Uint8Array) => string
  /** The external id of a body with this digest that passed validation, if remembered. */
  readonly externalId: (digest: string) => string | undefined
  readonly remember: (digest: string, externalId: string) => void
}

/** Bodies remembered: the most recent; a digest and an id are about 150 bytes. */
const CAPACITY = 4_096

export const makeValidBodies = (capacity = CAPACITY): ValidBodiesShape => {
  const known = makeBoundedMap<string, string>(capacity)
  return {
    digest: (body) => createHash("sha256").update(body).digest("base64url"),
    externalId: known.get,
    remember: known.set
  }
}

/**
 * The memory of valid bodies as a service: intake uses it when a layer provides it (the live
 * services do, one per layer build) and takes the full path without it.
 */
export class ValidBodies extends Context.Tag("encounters/ValidBodies")<ValidBodies, ValidBodiesShape>() {
  static readonly live = Layer.sync(ValidBodies, () => makeValidBodies())
}
