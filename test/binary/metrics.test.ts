import { afterAll, expect, test } from "bun:test"
import { validPayload } from "../support/payloads.js"
import { parsePrometheus, sampleValue } from "../support/prometheus.js"
import { api, removeTemps, startBinary, tempDb } from "../support/binary.js"

afterAll(removeTemps)

test("the binary's /metrics counts the database's commits, group-commit sizes and WAL fsyncs", async () => {
  const server = await startBinary({ db: tempDb("metrics") })
  try {
    const writes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api(server.url, server.key!, "/api/encounters", { body: validPayload(`metrics-${i}`) }))
    )
    expect(writes.map((w) => w.status)).toEqual([202, 202, 202, 202, 202, 202])
    const families = parsePrometheus(await (await fetch(`${server.url}/metrics`)).text())
    const commits = sampleValue(families, "encounterd_db_commit_duration_seconds_count") ?? 0
    // The first-run workspace and key, then the creates: at least two commits, at most one per write.
    expect(commits).toBeGreaterThanOrEqual(2)
    expect(sampleValue(families, "encounterd_db_group_commit_size_sum")).toBeGreaterThanOrEqual(6)
    // FULL on a WAL file: each acknowledged batch waited for a WAL fsync.
    expect(sampleValue(families, "encounterd_db_fsync_duration_seconds_count") ?? 0).toBeGreaterThanOrEqual(1)
  } finally {
    expect(await server.stop()).toBe(0)
  }
}, 60_000)
