import http from "node:http"
import https from "node:https"
import { Effect } from "effect"
import { urlProblem, type WebhookSecret } from "../domain/webhook.js"
import { guardedLookup } from "./guarded-lookup.js"
import { parseRetryAfter } from "./schedule.js"
import { signedHeaders } from "./signature.js"
import { addressRefusal, classifyAddress, hostOf, type Resolve, systemResolve } from "./targets.js"

/**
 * One delivery attempt: a signed POST, judged by its status alone. Built on `node:http` rather than
 * `fetch` because the address connected to must be checked (see guarded-lookup.ts), redirects must
 * not be followed, and only the first KiB of the answer may be read.
 */

export const DEFAULT_TIMEOUT_MS = 15_000
export const EXCERPT_BYTES = 1024

export interface AttemptInput {
  readonly url: string
  /** `webhook-id`: the event id, the same on every attempt. */
  readonly messageId: string
  /** The exact bytes signed and sent. */
  readonly body: string
  /** The current secret first; during a rotation also the previous one. */
  readonly secrets: ReadonlyArray<WebhookSecret>
  /** The attempt's time (epoch ms): `webhook-timestamp`, and the base for a `Retry-After` date. */
  readonly nowMs: number
}

export interface AttemptOptions {
  /** Sent as `user-agent: encounterd/<version>`. */
  readonly version: string
  /** The whole attempt, connection included. */
  readonly timeoutMs?: number
  readonly allowPrivate: boolean
  readonly resolve?: Resolve
}

export interface AttemptResult {
  /** A 2xx answer within the timeout. */
  readonly ok: boolean
  readonly status?: number
  /** Why it failed, without the answer's body (never logged). */
  readonly error?: string
  /** On 429/503: the `Retry-After` as a delay in ms. */
  readonly retryAfterMs?: number
  /** 410 Gone: the receiver asks to be disabled. */
  readonly gone: boolean
  /** At most the first 1 KiB of the answer, as text. */
  readonly responseExcerpt: string
  readonly durationMs: number
}

const excerptOf = (chunks: ReadonlyArray<Buffer>): string =>
  new TextDecoder("utf-8").decode(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES))

const judge = (status: number): Pick<AttemptResult, "ok" | "error" | "gone"> => {
  if (status >= 200 && status < 300) return { ok: true, gone: false }
  if (status >= 300 && status < 400) return { ok: false, gone: false, error: `HTTP ${status}: redirects are not followed` }
  return { ok: false, gone: status === 410, error: `HTTP ${status}` }
}

const errorCode = (e: Error): string => ("code" in e && typeof e.code === "string" ? e.code : e.message)

/** Never fails: every outcome, a refused address included, is a result for the delivery log. */
export const attemptDelivery = (input: AttemptInput, options: AttemptOptions): Effect.Effect<AttemptResult> =>
  Effect.async<AttemptResult>((resume) => {
    const started = performance.now()
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    let settled = false
    let request: http.ClientRequest | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (result: Omit<AttemptResult, "durationMs" | "gone" | "responseExcerpt"> & Partial<AttemptResult>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      request?.destroy()
      resume(
        Effect.succeed({ gone: false, responseExcerpt: "", ...result, durationMs: Math.round(performance.now() - started) })
      )
    }

    const problem = urlProblem(input.url)
    if (problem !== undefined) {
      finish({ ok: false, error: `url ${problem}` })
      return
    }
    const url = new URL(input.url)
    const host = hostOf(url)
    // A literal IP is connected to without a lookup, so it is judged here.
    if (classifyAddress(host) !== undefined) {
      const refusal = addressRefusal(host, options.allowPrivate)
      if (refusal !== undefined) {
        finish({ ok: false, error: `refused: ${refusal}` })
        return
      }
    }

    let refused: string | undefined
    let status: number | undefined
    let retryAfterMs: number | undefined
    const chunks: Array<Buffer> = []
    let received = 0
    const answered = () =>
      finish({
        ...judge(status ?? 0),
        status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        responseExcerpt: excerptOf(chunks)
      })

    const client = url.protocol === "https:" ? https : http
    request = client.request(
      url,
      {
        method: "POST",
        // A fresh connection per attempt: the lookup (and its check) runs every time.
        agent: false,
        lookup: guardedLookup(options.resolve ?? systemResolve, options.allowPrivate, (reason) => {
          refused = reason
        }),
        headers: {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(input.body)),
          "user-agent": `encounterd/${options.version}`,
          ...signedHeaders({
            id: input.messageId,
            timestamp: Math.floor(input.nowMs / 1000),
            body: input.body,
            secrets: input.secrets
          })
        }
      },
      (response) => {
        status = response.statusCode ?? 0
        if (status === 429 || status === 503) {
          retryAfterMs = parseRetryAfter(response.headers["retry-after"], input.nowMs)
        }
        response.on("data", (chunk: Buffer) => {
          if (received < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - received))
          received += chunk.length
          // Enough read: the rest of the answer is never downloaded.
          if (received >= EXCERPT_BYTES) answered()
        })
        response.on("end", answered)
        // A body cut off after the status line: the status stands.
        response.on("error", answered)
      }
    )
    timer = setTimeout(() => {
      // Answered in time, but the body dragged on: judge by the status already received.
      if (status !== undefined) answered()
      else finish({ ok: false, error: `timed out after ${timeoutMs} ms` })
    }, timeoutMs)
    request.on("error", (e) => finish({ ok: false, error: refused !== undefined ? `refused: ${refused}` : `connection failed: ${errorCode(e)}` }))
    request.end(input.body)
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      request?.destroy()
    })
  })
