/**
 * HTTP over a raw TCP socket (node:net), for requests `fetch` cannot send: no Host, HTTP/1.0,
 * absolute-form targets, malformed request lines.
 */
import { connect } from "node:net"

export interface RawReply {
  /** Null when the server closed the connection without an answer. */
  readonly status: number | null
  readonly headers: ReadonlyMap<string, string>
  readonly body: string
  readonly raw: string
}

const INTERIM = /^HTTP\/1\.[01] 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n/

const parse = (all: string): RawReply | undefined => {
  // Interim answers (100 Continue to `Expect: 100-continue`) come before the answer.
  let raw = all
  for (let m = INTERIM.exec(raw); m !== null; m = INTERIM.exec(raw)) raw = raw.slice(m[0].length)
  const end = raw.indexOf("\r\n\r\n")
  if (end < 0) return undefined
  const [statusLine, ...lines] = raw.slice(0, end).split("\r\n")
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]
  if (status === undefined) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`)
  const headers = new Map<string, string>()
  for (const line of lines) {
    const colon = line.indexOf(":")
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  const rest = raw.slice(end + 4)
  const length = headers.get("content-length")
  if (length !== undefined && rest.length < Number(length)) return undefined
  // Latin-1 text: one character per byte. What follows the body belongs to the next answer.
  const body = length === undefined ? rest : rest.slice(0, Number(length))
  return { status: Number(status), headers, body, raw }
}

/**
 * Sends `request` as given and reads one answer (complete by Content-Length, or up to the close).
 * No answer and no close within `timeoutMs` is a hang: the promise rejects.
 */
export const rawRequest = (port: number, request: string | Uint8Array, timeoutMs = 5000): Promise<RawReply> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let raw = ""
    let settled = false
    const settle = (f: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      f()
    }
    const timer = setTimeout(
      () => settle(() => reject(new Error(`hang: no answer within ${timeoutMs} ms to ${JSON.stringify(String(request).slice(0, 200))}`))),
      timeoutMs
    )
    socket.on("error", (e) => settle(() => (raw === "" ? resolve({ status: null, headers: new Map(), body: "", raw }) : reject(e))))
    socket.on("data", (chunk) => {
      raw += chunk.toString("latin1")
      try {
        const reply = parse(raw)
        if (reply !== undefined) settle(() => resolve(reply))
      } catch (e) {
        settle(() => reject(e))
      }
    })
    socket.on("close", () =>
      settle(() => {
        if (raw === "") return resolve({ status: null, headers: new Map(), body: "", raw })
        try {
          const reply = parse(raw)
          if (reply !== undefined) return resolve(reply)
          reject(new Error(`connection closed inside an answer: ${JSON.stringify(raw.slice(0, 300))}`))
        } catch (e) {
          reject(e)
        }
      })
    )
    socket.write(request)
  })
