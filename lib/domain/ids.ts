import { Schema } from "effect"

/** Ids are UUIDv7 strings (time-ordered); brands keep one kind from being passed as another. */
export const WorkspaceId = Schema.String.pipe(Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type
export const EncounterId = Schema.String.pipe(Schema.brand("EncounterId"))
export type EncounterId = typeof EncounterId.Type
export const ClaimId = Schema.String.pipe(Schema.brand("ClaimId"))
export type ClaimId = typeof ClaimId.Type
export const EventId = Schema.String.pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type
export const ApiKeyId = Schema.String.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type
export const RawRequestId = Schema.String.pipe(Schema.brand("RawRequestId"))
export type RawRequestId = typeof RawRequestId.Type

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** True for a lower-case canonical UUID string: malformed ids are answered as not found without a lookup. */
export const isUuid = (s: string): boolean => UUID.test(s)

const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0")

/**
 * A UUIDv7 from a millisecond time, a 12-bit sequence (monotonic within one millisecond) and
 * 62 random bits. Ids made by one generator sort in creation order, also within a millisecond.
 */
export const uuidv7 = (ms: number, seq: number, random: Uint8Array): string => {
  const r = random
  const time = hex(Math.floor(ms), 12)
  const a = hex(0x7000 | (seq & 0x0fff), 4)
  const b = hex(0x8000 | (((r[0] ?? 0) & 0x3f) << 8) | (r[1] ?? 0), 4)
  let tail = ""
  for (let i = 2; i < 8; i++) tail += hex(r[i] ?? 0, 2)
  return `${time.slice(0, 8)}-${time.slice(8)}-${a}-${b}-${tail}`
}
