import { log } from "./log.js"
import { internalProblem, problemBody } from "./problem.js"

/**
 * Where a thrown value came from, for the log: its class and the first frame of its stack. The
 * message is left out: a runtime's message may quote the data it failed on (a JSON parser's does).
 */
export const describeThrown = (e: unknown): string => {
  if (!(e instanceof Error)) return typeof e
  const frame = e.stack?.split("\n").find((l) => l.trimStart().startsWith("at "))?.trim()
  return frame === undefined ? e.name : `${e.name} ${frame}`
}

/** The 500 answer of a request that failed outside the pipeline's own error handling. */
export const internalResponse = (requestId: string, head: boolean, extra?: Record<string, string>): Response =>
  new Response(head ? null : JSON.stringify(problemBody(internalProblem, requestId)), {
    status: 500,
    headers: { ...extra, "content-type": "application/problem+json", "x-request-id": requestId }
  })

/** Logs the one error line of a failed request: the request id and where it failed, no request data. */
export const logFault = (requestId: string, cause: string) => log("error", "request failed", { request_id: requestId, cause })
