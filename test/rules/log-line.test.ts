import { afterEach, describe, expect, test } from "bun:test"
import { flushLog, log, setLogSink } from "../../server/log.js"

const written: Array<string> = []
const lines = (): Array<string> => {
  flushLog()
  return written.join("").split("\n").filter((l) => l !== "")
}

describe("log lines", () => {
  afterEach(() => {
    written.length = 0
    setLogSink((text) => process.stdout.write(text))
  })

  test("time, level and msg come first, then the fields in their order, one JSON object a line", () => {
    setLogSink((text) => written.push(text))
    const before = Date.now()
    log("info", "request", { method: "GET", route: "/api/encounters/{id}", status: 200, workspace_id: null, quoted: 'a"b\n' })
    log("warn", 'odd "msg"\n')
    const [first, second] = lines()
    const parsed = JSON.parse(first ?? "") as Record<string, unknown>
    expect(Object.keys(parsed)).toEqual(["time", "level", "msg", "method", "route", "status", "workspace_id", "quoted"])
    expect(parsed).toMatchObject({ level: "info", msg: "request", method: "GET", route: "/api/encounters/{id}", status: 200, workspace_id: null, quoted: 'a"b\n' })
    const at = Date.parse(String(parsed.time))
    expect(at).toBeGreaterThanOrEqual(before - 1)
    expect(at).toBeLessThanOrEqual(Date.now())
    expect(String(parsed.time)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(JSON.parse(second ?? "")).toEqual({ time: expect.any(String), level: "warn", msg: 'odd "msg"\n' })
  })

  test("a field named like a leading key replaces it, as a merged object would, and is not written twice", () => {
    setLogSink((text) => written.push(text))
    log("error", "fault", { msg: "the field's", level: "custom", extra: 1 })
    const [only] = lines()
    expect(only?.match(/"msg"/g)?.length).toBe(1)
    expect(JSON.parse(only ?? "")).toEqual({ time: expect.any(String), level: "custom", msg: "the field's", extra: 1 })
  })

  test("lines of different milliseconds carry their own time", async () => {
    setLogSink((text) => written.push(text))
    log("info", "one")
    await Bun.sleep(5)
    log("info", "two")
    const [one, two] = lines().map((l) => Date.parse(String((JSON.parse(l) as { time: string }).time)))
    expect((two ?? 0) - (one ?? 0)).toBeGreaterThanOrEqual(4)
  })
})
