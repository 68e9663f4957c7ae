import { Effect } from "effect"
import { type CoreAnswer, type CoreRequest, readAnswer, requestFields } from "./core-envelope.js"

/**
 * One real-time exchange with a CORE endpoint: the 276 in a multipart envelope, the answer's
 * envelope read back. Never fails: every way it can go wrong is an outcome, and whether to try
 * again is the caller's. Nothing here logs, and no outcome quotes the request (it holds the password).
 */
export type CoreExchange =
  | { readonly _tag: "Answered"; readonly answer: CoreAnswer }
  /** Worth trying again later: a timeout, a connection failure, a 5xx, a 429. */
  | { readonly _tag: "Transient"; readonly reason: string }
  /** Not worth trying again: a 4xx (credentials, a malformed request). */
  | { readonly _tag: "Refused"; readonly reason: string }

export const DEFAULT_CORE_TIMEOUT_MS = 20_000

/** The answer's body: a multipart envelope, or (tolerated) form fields. */
const fieldsOf = async (response: Response): Promise<(name: string) => string | undefined> => {
  const form = await response.formData()
  return (name) => {
    const v = form.get(name)
    return v === null ? undefined : typeof v === "string" ? v : undefined
  }
}

export const exchangeCore = (url: string, request: CoreRequest, timeoutMs: number): Effect.Effect<CoreExchange> =>
  Effect.promise(async (): Promise<CoreExchange> => {
    const form = new FormData()
    for (const [name, value] of requestFields(request)) form.append(name, value)
    try {
      const response = await fetch(url, { method: "POST", body: form, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) })
      if (response.status >= 500 || response.status === 429) {
        await response.body?.cancel()
        return { _tag: "Transient", reason: `the endpoint answered HTTP ${response.status}` }
      }
      if (response.status >= 300 && !(response.status === 400 && (response.headers.get("content-type") ?? "").includes("multipart"))) {
        await response.body?.cancel()
        return { _tag: "Refused", reason: `the endpoint answered HTTP ${response.status}` }
      }
      try {
        return { _tag: "Answered", answer: readAnswer(await fieldsOf(response)) }
      } catch {
        return { _tag: "Answered", answer: { kind: "error", code: "UnreadableEnvelope", message: "the answer is not a multipart envelope" } }
      }
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")
      return { _tag: "Transient", reason: timedOut ? `no answer within ${timeoutMs / 1000} s` : "the endpoint could not be reached" }
    }
  })
