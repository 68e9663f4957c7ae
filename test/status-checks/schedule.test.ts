import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import type { WorkspaceId } from "../../lib/domain/ids.js"
import { postgresStorageLayer } from "../../lib/postgres.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { listStatusChecks } from "../../lib/rules/status-checks.js"
import { export276 } from "../../lib/rules/status-checks-export.js"
import { statusCheckRound } from "../../lib/rules/status-checks-worker.js"
import { startCoreClearinghouse } from "../support/core-clearinghouse.js"
import { createScratchDb, describePg } from "../support/postgres.js"
import { DAY, runner, T0, workspaceWithClaims } from "./setup.js"

const HOUR = 3_600_000

describe("the follow-up schedule, on a controlled clock", () => {
  test("first check after 7 days, every 7 days while the claim waits, at most max_checks; none once it moves", async () => {
    const { run, clock, dispose } = runner(MemoryStorage.layer)
    const { ws, claims } = await run(workspaceWithClaims("sched-a", ["S1", "S2"], { enabled: true, max_checks: 3 }))
    const checksOf = (claim: string) => run(Effect.map(listStatusChecks(ws, claim, {}), (p) => p.items))
    const round = () => run(statusCheckRound("instance-1", true))
    const send = () => run(Effect.either(export276(ws)))

    clock.set(T0 + 7 * DAY - HOUR)
    await round()
    expect(await checksOf(claims[0]!)).toHaveLength(0)
    clock.set(T0 + 7 * DAY)
    await round()
    const first = await checksOf(claims[0]!)
    expect(first.map((c) => [c.status, c.transport])).toEqual([["queued", "file"]])
    // Still queued: no second one piles up.
    clock.advance(8 * DAY)
    await round()
    expect(await checksOf(claims[0]!)).toHaveLength(1)
    await send()
    expect((await checksOf(claims[0]!))[0]!.status).toBe("sent")

    // The second claim moves (the payer denied it): no more follow-ups for it.
    await run(changeClaimStatus(ws, claims[1]!, "denied"))

    // 7 days after the latest check (made at day 7, exported at day 15): due again at day 14.
    await round()
    expect(await checksOf(claims[0]!)).toHaveLength(2)
    await send()
    clock.advance(6 * DAY)
    await round()
    expect(await checksOf(claims[0]!)).toHaveLength(2)
    clock.advance(DAY)
    await round()
    expect(await checksOf(claims[0]!)).toHaveLength(3)
    await send()
    // max_checks (3) reached: nothing more, however long it waits.
    clock.advance(60 * DAY)
    await round()
    expect(await checksOf(claims[0]!)).toHaveLength(3)
    expect(await checksOf(claims[1]!)).toHaveLength(1)

    await dispose()
  })

  test("first_after_days 0: a claim just submitted is checked at the next round", async () => {
    const { run, dispose } = runner(MemoryStorage.layer)
    const { ws, claims } = await run(workspaceWithClaims("sched-b", ["Z1"], { enabled: true, first_after_days: 0 }))
    await run(statusCheckRound("instance-1", true))
    expect((await run(listStatusChecks(ws as WorkspaceId, claims[0]!, {}))).items).toHaveLength(1)
    await dispose()
  })
})

describePg("the follow-up schedule with two instances on PostgreSQL", (adminUrl) => {
  const clearinghouse = startCoreClearinghouse(() => ({ category: "P1" }))
  afterAll(() => clearinghouse.stop())

  test("each due inquiry is made once and sent once", async () => {
    const db = await createScratchDb(adminUrl)
    const one = runner(postgresStorageLayer(db.url, { maxConnections: 4 }))
    const two = runner(postgresStorageLayer(db.url, { maxConnections: 4 }))
    try {
      const core = { url: clearinghouse.url, sender_id: "ENCOUNTERD", receiver_id: "PAYERGW", username: "user1", password: "s3cret pass" }
      const pcns = Array.from({ length: 12 }, (_, i) => `PG${i + 1}`)
      const { ws, claims } = await one.run(workspaceWithClaims("sched-pg", pcns, { enabled: true, transport: "core", core }))
      for (const c of [one.clock, two.clock]) c.set(T0 + 7 * DAY)
      await Promise.all([
        one.run(statusCheckRound("instance-1", true, { timeoutMs: 5000 })),
        two.run(statusCheckRound("instance-2", true, { timeoutMs: 5000 })),
        one.run(statusCheckRound("instance-1b", true, { timeoutMs: 5000 }))
      ])
      // Another round (the other instance's sends may have been under way) sends what is left.
      await two.run(statusCheckRound("instance-2", false, { timeoutMs: 5000 }))
      for (const claim of claims) {
        const checks = (await two.run(listStatusChecks(ws, claim, {}))).items
        expect(checks).toHaveLength(1)
        expect(checks[0]!.status).toBe("answered")
        expect(clearinghouse.requests.get(checks[0]!.trace_number)).toBe(1)
      }
    } finally {
      await one.dispose()
      await two.dispose()
      await db.drop()
    }
  }, 60_000)
})
