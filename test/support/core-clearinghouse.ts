import { make999 } from "./x12-files.js"
import { make277Status } from "./x12-status.js"

/**
 * A test clearinghouse speaking the CAQH CORE HTTP MIME multipart envelope on loopback. It checks
 * the request's envelope and credentials, reads the 276's trace number and PCN, and answers as
 * `script` says for that PCN: a 277 with an STC category, a 999 rejection, an error envelope, or
 * nothing (a timeout).
 */
export type Scripted = { readonly category: string; readonly status?: string; readonly paid?: string } | "999" | "error" | "timeout" | "not-found-level"

export interface CoreClearinghouse {
  readonly url: string
  /** Requests received, by trace number. */
  readonly requests: Map<string, number>
  /** Every request's envelope fields (the last of each trace). */
  readonly fields: Map<string, Record<string, string>>
  readonly stop: () => void
}

const multipart = (fields: Record<string, string>): Response => {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  return new Response(form)
}

export const startCoreClearinghouse = (script: (pcn: string) => Scripted, credentials = { username: "user1", password: "s3cret pass" }): CoreClearinghouse => {
  const requests = new Map<string, number>()
  const fields = new Map<string, Record<string, string>>()
  let icn = 500
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const form = await request.formData()
      const get = (name: string) => {
        const v = form.get(name)
        return typeof v === "string" ? v : ""
      }
      const all: Record<string, string> = {}
      for (const name of ["PayloadType", "ProcessingMode", "PayloadID", "TimeStamp", "UserName", "Password", "SenderID", "ReceiverID", "CORERuleVersion"]) all[name] = get(name)
      const base = { ProcessingMode: "RealTime", PayloadID: get("PayloadID"), TimeStamp: new Date().toISOString().slice(0, 19) + "Z", SenderID: get("ReceiverID"), ReceiverID: get("SenderID"), CORERuleVersion: "2.2.0" }
      if (get("UserName") !== credentials.username || get("Password") !== credentials.password) {
        return multipart({ ...base, PayloadType: "X12_Response_ConformanceError", ErrorCode: "UnAuthorized", ErrorMessage: "bad credentials" })
      }
      const payload = get("Payload")
      const trace = /TRN\*1\*([^~*]+)~/.exec(payload)?.[1] ?? ""
      const pcn = /REF\*EJ\*([^~*]+)~/.exec(payload)?.[1] ?? ""
      requests.set(trace, (requests.get(trace) ?? 0) + 1)
      fields.set(trace, { ...all, Payload: payload })
      const answer = script(pcn)
      if (answer === "timeout") {
        await Bun.sleep(1500)
        return multipart({ ...base, PayloadType: "X12_277_Response_005010X212", ErrorCode: "Success", Payload: "" })
      }
      if (answer === "error") return multipart({ ...base, PayloadType: "X12_Response_ConformanceError", ErrorCode: "Receiver Down", ErrorMessage: "the payer is not answering" })
      if (answer === "999") return multipart({ ...base, PayloadType: "X12_999_Response_005010X231A1", ErrorCode: "Success", Payload: make999(++icn, 1, [["0001", "R"]]) })
      const body =
        answer === "not-found-level"
          ? make277Status(++icn, [], "E0")
          : make277Status(++icn, [{ trace, pcn, category: answer.category, ...(answer.status === undefined ? {} : { status: answer.status }), ...(answer.paid === undefined ? {} : { paid: answer.paid }) }])
      return multipart({ ...base, PayloadType: "X12_277_Response_005010X212", ErrorCode: "Success", ErrorMessage: "", Payload: body })
    }
  })
  return { url: `http://127.0.0.1:${server.port}/core`, requests, fields, stop: () => server.stop(true) }
}
