/**
 * The CAQH CORE Connectivity Rule (vC2.2.0) HTTP MIME multipart envelope, as fields: what a
 * real-time 276 request carries, and what an answer may carry (a 277, a 999, or an error).
 */

export const CORE_RULE_VERSION = "2.2.0"
export const PAYLOAD_276 = "X12_276_Request_005010X212"
export const PAYLOAD_277 = "X12_277_Response_005010X212"
export const PAYLOAD_999 = "X12_999_Response_005010X231A1"

export interface CoreRequest {
  readonly payloadId: string
  /** ISO 8601, UTC, whole seconds (`2026-11-26T10:00:00Z`). */
  readonly timestamp: string
  readonly senderId: string
  readonly receiverId: string
  readonly username: string
  readonly password: string
  readonly payload: string
}

/** The request's fields, in the rule's order. */
export const requestFields = (r: CoreRequest): ReadonlyArray<readonly [string, string]> => [
  ["PayloadType", PAYLOAD_276],
  ["ProcessingMode", "RealTime"],
  ["PayloadID", r.payloadId],
  ["TimeStamp", r.timestamp],
  ["UserName", r.username],
  ["Password", r.password],
  ["SenderID", r.senderId],
  ["ReceiverID", r.receiverId],
  ["CORERuleVersion", CORE_RULE_VERSION],
  ["Payload", r.payload]
]

/** What came back, read from its fields. */
export type CoreAnswer =
  | { readonly kind: "277"; readonly payload: string }
  | { readonly kind: "999"; readonly payload: string }
  | { readonly kind: "error"; readonly code: string; readonly message: string }

/** Reads an answer's fields: an error (ErrorCode other than `Success`), a 277, a 999, or something unreadable (an error). */
export const readAnswer = (field: (name: string) => string | undefined): CoreAnswer => {
  const code = field("ErrorCode")
  if (code !== undefined && code !== "" && code !== "Success") {
    return { kind: "error", code, message: field("ErrorMessage") ?? "" }
  }
  const type = field("PayloadType")
  const payload = field("Payload") ?? ""
  if (type === PAYLOAD_277) return { kind: "277", payload }
  if (type !== undefined && type.startsWith("X12_999_")) return { kind: "999", payload }
  return { kind: "error", code: "UnexpectedPayloadType", message: `the answer's PayloadType is ${type === undefined ? "missing" : type}` }
}

/** TimeStamp as the rule writes it. */
export const coreTimestamp = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`
