import { createHash, timingSafeEqual } from "node:crypto"

const digest = (s: string): Buffer => createHash("sha256").update(s).digest()

/**
 * Whether a presented secret (a CSRF token, the metrics key) is the expected one, in time that
 * tells neither where they differ nor the expected one's length: the SHA-256 digests of both, of
 * one length whatever theirs, are compared in constant time.
 */
export const sameSecret = (presented: string, expected: string): boolean => timingSafeEqual(digest(presented), digest(expected))
