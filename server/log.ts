/**
 * Structured logs: one JSON object a line on stdout. Callers pass only operational fields (method,
 * route, status, ids, durations); request bodies and patient data are never given to the log.
 *
 * Lines of one turn of the event loop are written together, in one write, at the end of the turn;
 * `flushLog` writes what is pending at once (before the process exits).
 */
export type Level = "info" | "warn" | "error"

let sink: (line: string) => void = (line) => process.stdout.write(line)
let pending = ""
let scheduled = false

/** Writes the lines still pending. */
export const flushLog = () => {
  scheduled = false
  if (pending === "") return
  const out = pending
  pending = ""
  sink(out)
}

/** Redirects log lines (tests keep them quiet or capture them). */
export const setLogSink = (next: (line: string) => void) => {
  flushLog()
  sink = next
}

export const log = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
  pending += `${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`
  if (pending.length > 65_536) return flushLog()
  if (!scheduled) {
    scheduled = true
    setImmediate(flushLog)
  }
}
