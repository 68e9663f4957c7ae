import { Either } from "effect"
import { InvalidJson } from "./errors.js"

const decoder = new TextDecoder("utf-8", { fatal: true })

/** A request body as JSON: invalid UTF-8 or malformed JSON is `InvalidJson`. */
export const parseJsonBody = (body: Uint8Array): Either.Either<unknown, InvalidJson> => {
  try {
    return Either.right(JSON.parse(decoder.decode(body)))
  } catch (e) {
    return Either.left(new InvalidJson({ detail: e instanceof Error ? e.message : "unreadable body" }))
  }
}
