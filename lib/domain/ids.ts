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

/** Two lower-case hex digits for each byte value. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))
const byteHex = (b: number | undefined): string => HEX[(b ?? 0) & 0xff]!

/**
 * A UUIDv7 from a millisecond time, a 12-bit sequence (monotonic within one millisecond) and
 * 62 random bits (`random[offset]` to `random[offset + 7]`). Ids made by one generator sort in
 * creation order, also within a millisecond.
 */
export const uuidv7 = (ms: number, seq: number, random: Uint8Array, offset = 0): string => {
  const r = random
  const o = offset
  const time = Math.floor(ms).toString(16).padStart(12, "0")
  const s = 0x7000 | (seq & 0x0fff)
  return (
    `${time.slice(0, 8)}-${time.slice(8)}-${byteHex(s >> 8)}${byteHex(s)}-${byteHex(0x80 | ((r[o] ?? 0) & 0x3f))}${byteHex(r[o + 1])}-` +
    `${byteHex(r[o + 2])}${byteHex(r[o + 3])}${byteHex(r[o + 4])}${byteHex(r[o + 5])}${byteHex(r[o + 6])}${byteHex(r[o + 7])}`
  )
}
