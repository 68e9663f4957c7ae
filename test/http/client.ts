import { expect } from "bun:test"
import type { TestServer } from "../support/server.js"

/** One HTTP answer: status, headers, the raw text and the parsed JSON body (undefined when not JSON). */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
}

export interface CallOptions {
  /** The API key; `null` sends no Authorization header. Defaults to workspace a's key. */
  readonly key?: string | null
  /** A JSON body (serialized, with Content-Type application/json). */
  readonly body?: unknown
  /** A raw body, sent as given (no Content-Type is added). */
  readonly raw?: BodyInit
  readonly headers?: Record<string, string>
}

/** `api(server)(method, path, {key, body, headers})`: a real fetch against the test server. */
export const api =
  (server: TestServer) =>
  async (method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = {}
    const key = options.key === undefined ? server.keys.a : options.key
    if (key !== null) headers.authorization = `Bearer ${key}`
    let body: BodyInit | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers["content-type"] = "application/json"
    }
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...headers, ...options.headers },
      ...(body !== undefined ? { body } : {})
    })
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, text, body: parsed }
  }

/** Asserts an RFC 9457 problem answer with the given status and code. */
export const expectProblem = (res: Answer, status: number, code: string) => {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code })
  expect(res.headers.get("content-type") ?? "").toStartWith("application/problem+json")
  const b = res.body
  expect([typeof b.type, typeof b.title, b.status, typeof b.detail, b.code]).toEqual(["string", "string", status, "string", code])
  expect(res.body.request_id).toBe(res.headers.get("x-request-id"))
}

/** The paths named in a validation problem's errors. */
export const errorPaths = (res: Answer): Array<string> =>
  Array.isArray(res.body?.errors) ? res.body.errors.map((e: { path: string }) => e.path) : []

/** A canonical UUID that no record has. */
export const unknownUuid = () => crypto.randomUUID()

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A unique external id per call, so that tests sharing a server never collide. */
let counter = 0
export const uniqueId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`

/**
 * `toMatchObject` on a copy: Bun 1.4's toMatchObject replaces matched values of the received
 * object with the asymmetric matchers, which would make later checks on the same object vacuous.
 */
export const expectShape = (received: unknown, expected: object) => expect(JSON.parse(JSON.stringify(received) ?? "null")).toMatchObject(expected)
