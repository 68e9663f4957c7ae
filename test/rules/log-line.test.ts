import { describe, expect, test } from "bun:test"
import { flushLog, log } from "../../server/log.js"
import { capturedLogs } from "../support/server.js"

/** The lines captured so far (the test support captures every log line) that carry `marker`. */
const lines = (marker: string): Array<string> => {
  flushLog()
  return capturedLogs.map((l) => l.replace(/\n$/, "")).filter((l) => l.includes(marker))
}

describe("log lines", () => {
  test("time, level and msg come first, then the fields in their order, one JSON object a line", () => {
    const before = Date.now()
    log("info", "request", { method: "GET", route: "/api/encounters/{id}", status: 200, workspace_id: null, quoted: 'a"b\n', marker: "line-order" })
    log("warn", 'odd "msg"\n line-order')
    const [first, second] = lines("line-order")
    const parsed = JSON.parse(first ?? "") as Record<string, unknown>
    expect(Object.keys(parsed)).toEqual(["time", "level", "msg", "method", "route", "status", "workspace_id", "quoted", "marker"])
    expect(parsed).toMatchObject({ level: "info", msg: "request", method: "GET", route: "/api/encounters/{id}", status: 200, workspace_id: null, quoted: 'a"b\n' })
    const at = Date.parse(String(parsed.time))
    expect(at).toBeGreaterThanOrEqual(before - 1)
    expect(at).toBeLessThanOrEqual(Date.now())
    expect(String(parsed.time)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(JSON.parse(second ?? "")).toEqual({ time: expect.any(String), level: "warn", msg: 'odd "msg"\n line-order' })
  })

  test("a field named like a leading key replaces it, as a merged object would, and is not written twice", () => {
    log("error", "fault", { msg: "the field's line-merged", level: "custom", extra: 1 })
    const [only] = lines("line-merged")
    expect(only?.match(/"msg"/g)?.length).toBe(1)
    expect(JSON.parse(only ?? "")).toEqual({ time: expect.any(String), level: "custom", msg: "the field's line-merged", extra: 1 })
  })

  test("lines of different milliseconds carry their own time", async () => {
    log("info", "one line-time")
    await Bun.sleep(5)
    log("info", "two line-time")
    const [one, two] = lines("line-time").map((l) => Date.parse(String((JSON.parse(l) as { time: string }).time)))
    expect((two ?? 0) - (one ?? 0)).toBeGreaterThanOrEqual(4)
  })
})
