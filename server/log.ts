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

/** The time of the last line, and its text: lines of one millisecond share it. */
let stampedAt = Number.NaN
let stamp = ""

/** One line's JSON: `time`, `level` and `msg` first, then the fields, as their own object's JSON (no copy of them). */
const line = (level: Level, msg: string, fields: Record<string, unknown>): string => {
  const now = Date.now()
  if (now !== stampedAt) {
    stampedAt = now
    stamp = new Date(now).toISOString()
  }
  // A field named like a leading key would repeat it: such lines take the merged object.
  if ("time" in fields || "level" in fields || "msg" in fields) return JSON.stringify({ time: stamp, level, msg, ...fields })
  const rest = JSON.stringify(fields)
  return `{"time":"${stamp}","level":"${level}","msg":${JSON.stringify(msg)}${rest.length > 2 ? `,${rest.slice(1)}` : "}"}`
}

export const log = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
  pending += `${line(level, msg, fields)}\n`
  if (pending.length > 65_536) return flushLog()
  if (!scheduled) {
    scheduled = true
    setImmediate(flushLog)
  }
}
