import { Effect } from "effect"
import { InvalidJson } from "../lib/domain/errors.js"
import { parseJsonBody } from "../lib/domain/json.js"
import { MAX_DEPTH, nestsDeeperThan } from "../lib/domain/validate.js"
import { InvalidBody, PayloadTooLarge, UnsupportedMediaType } from "./problem.js"

/** `application/json`, with parameters (charset) or a `+json` suffix type. */
export const isJsonContentType = (value: string | null): boolean => {
  if (value === null) return false
  const type = value.split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

export const requireJson = (request: Request) =>
  isJsonContentType(request.headers.get("content-type"))
    ? Effect.void
    : Effect.fail(new UnsupportedMediaType({ received: request.headers.get("content-type") ?? "", expected: "application/json" }))

/** The media types an uploaded X12 interchange may come as. */
export const X12_CONTENT_TYPES = ["application/edi-x12", "text/plain"] as const

/** X12 files are larger than JSON requests: a month of remittances from a big payer runs to megabytes. */
export const X12_BODY_LIMIT = 10 * 1024 * 1024

/** `application/edi-x12` or `text/plain`, with parameters (charset) or not; answers the bare type. */
export const requireX12 = (request: Request): Effect.Effect<string, UnsupportedMediaType> => {
  const received = request.headers.get("content-type") ?? ""
  const type = received.split(";")[0]!.trim().toLowerCase()
  return X12_CONTENT_TYPES.some((t) => t === type)
    ? Effect.succeed(type)
    : Effect.fail(new UnsupportedMediaType({ received, expected: X12_CONTENT_TYPES.join(" or ") }))
}

/**
 * Reads the body, refusing more than `limit` bytes: a declared Content-Length over the limit is
 * refused before reading, one within it is read whole, and a chunked body is read in pieces and
 * cut off as soon as it passes the limit.
 */
export const readBody = (request: Request, limit: number): Effect.Effect<Uint8Array, PayloadTooLarge | InvalidJson> =>
  Effect.gen(() => readBodyGen(request, limit))

function* readBodyGen(request: Request, limit: number) {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN)
  if (declared > limit) return yield* new PayloadTooLarge({ limit })
  if (request.body === null) return new Uint8Array(0)
  // A declared length within the limit is all the server will read: take the body in one piece.
  if (Number.isInteger(declared) && declared >= 0) {
    const whole = yield* Effect.tryPromise({
      try: () => request.bytes(),
      catch: () => new InvalidJson({ detail: "the body could not be read to its end" })
    })
    if (whole.byteLength > limit) return yield* new PayloadTooLarge({ limit })
    return whole
  }
  const reader = request.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const next = yield* Effect.tryPromise({
      try: () => reader.read(),
      catch: () => new InvalidJson({ detail: "the body could not be read to its end" })
    })
    if (next.done) break
    size += next.value.byteLength
    if (size > limit) {
      yield* Effect.promise(() => reader.cancel().catch(() => undefined))
      return yield* new PayloadTooLarge({ limit })
    }
    chunks.push(next.value)
  }
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(size)
  let offset = 0
  for (const c of chunks) {
    out.set(c, offset)
    offset += c.byteLength
  }
  return out
}

/**
 * A JSON request body: its media type checked, read within `limit`, parsed, and refused before
 * any decoding when it nests deeper than `MAX_DEPTH` (error messages quote values, and quoting
 * walks them recursively). Every route that takes a JSON body reads it here.
 */
export const readJsonBody = (request: Request, limit: number) =>
  Effect.gen(function* () {
    yield* requireJson(request)
    const raw = yield* parseJsonBody(yield* readBody(request, limit))
    if (nestsDeeperThan(raw, MAX_DEPTH)) {
      return yield* new InvalidBody({ errors: [{ path: "$", message: `nests deeper than ${MAX_DEPTH} levels` }] })
    }
    return raw
  })
