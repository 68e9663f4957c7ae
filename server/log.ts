/**
 * Structured logs: one JSON object a line on stdout. Callers pass only operational fields (method,
 * route, status, ids, durations); request bodies and patient data are never given to the log.
 */
export type Level = "info" | "warn" | "error"

let sink: (line: string) => void = (line) => process.stdout.write(line)

/** Redirects log lines (tests keep them quiet or capture them). */
export const setLogSink = (next: (line: string) => void) => {
  sink = next
}

export const log = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
  sink(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`)
}
