/**
 * The load bench's claim pool (bench/claim-pool.ts) on the whole API in process: rejected claims
 * with open tasks, one correction each, and the refill that makes the corrected ones correctable again.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { checkTaskPage, type ClaimPool, correctionSequence, growPool, refillPool } from "../../bench/claim-pool.js"
import { startTestServer, type TestServer } from "../support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const post = async (path: string, body: string): Promise<number> => {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.keys.aWriter}`, "content-type": "application/json" },
    body
  })
  await res.arrayBuffer()
  return res.status
}

const openTasks = async (): Promise<ReadonlyArray<{ claim_id: string; type: string }>> => {
  const res = await fetch(`${server.url}/api/tasks?status=open&limit=100`, { headers: { authorization: `Bearer ${server.keys.a}` } })
  const page = (await res.json()) as { items: Array<{ claim_id: string; type: string }> }
  return page.items
}

test("a pool of rejected claims: a task each, one correction each, refilled after", async () => {
  const pool: ClaimPool = { encounters: [], claims: [] }
  const prefix = "pool-test-"
  await growPool(server.url, server.keys.a, server.keys.aWriter, pool, 3, prefix)
  await growPool(server.url, server.keys.a, server.keys.aWriter, pool, 5, prefix)
  expect(pool.encounters).toHaveLength(5)
  expect(new Set(pool.claims).size).toBe(5)
  expect((await openTasks()).map((t) => t.claim_id).sort()).toEqual([...pool.claims].sort())
  await checkTaskPage(server.url, server.keys.a, "/api/tasks?limit=100", 5)
  await expect(checkTaskPage(server.url, server.keys.a, "/api/tasks?limit=100", 6)).rejects.toThrow("listed 5 tasks")

  const sequence = correctionSequence(pool)
  const before = [...pool.claims]
  for (const r of sequence.slice(0, 3)) expect(await post(r.path, r.body ?? "")).toBe(201)
  // A claim takes one correction: the run must never come round to one again.
  expect(await post(sequence[0]?.path ?? "", sequence[0]?.body ?? "")).toBe(409)

  expect(await refillPool(server.url, server.keys.a, server.keys.aWriter, pool, prefix)).toBe(3)
  expect(pool.claims.slice(3)).toEqual(before.slice(3))
  for (let i = 0; i < 3; i++) expect(pool.claims[i]).not.toBe(before[i])
  expect((await openTasks()).map((t) => t.claim_id).sort()).toEqual([...pool.claims].sort())
  for (const r of correctionSequence(pool)) expect(await post(r.path, r.body ?? "")).toBe(201)
  expect(await refillPool(server.url, server.keys.a, server.keys.aWriter, pool, prefix)).toBe(5)
})
