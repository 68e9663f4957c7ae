import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { allEvents, api, CREATED, ensureBinary, removeTemps, startBinary, tempDb } from "../support/binary.js"
import { validPayload } from "../support/payloads.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

const ROUNDS = 3
const LOOPS = 8

/** Every answered create: external_id → the id the service acknowledged (202 or 200). */
interface Ledger {
  readonly acked: Map<string, string>
  readonly sent: Array<string>
  /** Answers that are neither 202 nor 200, and acknowledgements that contradict an earlier one. */
  readonly anomalies: Array<string>
  answered: number
}

const clientLoop = async (url: string, key: string, round: number, loop: number, ledger: Ledger, stop: { done: boolean }) => {
  for (let n = 0; !stop.done; n++) {
    // About one in five sends repeats an external_id already sent (maybe still in flight elsewhere).
    const repeat = ledger.sent.length > 0 && Math.random() < 0.2
    const external_id = repeat ? ledger.sent[Math.floor(Math.random() * ledger.sent.length)]! : `crash-${round}-${loop}-${n}`
    if (!repeat) ledger.sent.push(external_id)
    let r: { status: number; body: any }
    try {
      r = await api(url, key, "/api/encounters", { body: validPayload(external_id) })
    } catch {
      continue // killed mid-request or refused: not acknowledged
    }
    ledger.answered++
    if (r.status !== 202 && r.status !== 200) {
      ledger.anomalies.push(`${external_id}: answered ${r.status} ${JSON.stringify(r.body)}`)
      continue
    }
    const id: string = r.body.encounter_id
    if (r.status === 200 && r.body.duplicate !== true) ledger.anomalies.push(`${external_id}: 200 without duplicate: true`)
    const earlier = ledger.acked.get(external_id)
    if (earlier !== undefined && earlier !== id) ledger.anomalies.push(`${external_id}: acknowledged as ${earlier} and as ${id}`)
    if (earlier !== undefined && r.status === 202) ledger.anomalies.push(`${external_id}: created twice (202 after an earlier acknowledgement)`)
    ledger.acked.set(external_id, id)
  }
}

/** Runs `items` through `worker` with at most `width` at once. */
const pool = async <T>(items: ReadonlyArray<T>, width: number, worker: (item: T) => Promise<void>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await worker(items[next++]!)
    })
  )
}

describe("compiled binary: crash safety", () => {
  test(
    "SIGKILL under concurrent creates, three times: every acknowledged create survives exactly once",
    async () => {
      const began = performance.now()
      const db = tempDb("crash")
      const ledger: Ledger = { acked: new Map(), sent: [], anomalies: [], answered: 0 }
      let key: string | undefined
      for (let round = 0; round < ROUNDS; round++) {
        const server = await startBinary({ db, args: ["--rate-limit", "0"] })
        if (round === 0) key = server.key
        else expect(server.firstRun).toBeUndefined()
        expect(key).toBeDefined()
        const stop = { done: false }
        const loops = Array.from({ length: LOOPS }, (_, loop) => clientLoop(server.url, key!, round, loop, ledger, stop))
        await Bun.sleep(300 + Math.floor(Math.random() * 300))
        server.proc.kill("SIGKILL")
        await server.proc.exited
        stop.done = true
        await Promise.all(loops)
        expect(server.proc.signalCode).toBe("SIGKILL")
      }

      expect(ledger.anomalies).toEqual([])
      expect(ledger.answered).toBeGreaterThan(0)
      expect(ledger.acked.size).toBeGreaterThan(0)

      const server = await startBinary({ db, args: ["--rate-limit", "0"] })
      try {
        expect(server.firstRun).toBeUndefined()
        const created = await allEvents(server.url, key!, CREATED)

        // All encounters, by paging the normalized list.
        const encounters = new Map<string, string>()
        let token: string | null = null
        do {
          const q: string = token === null ? "" : `&page_token=${encodeURIComponent(token)}`
          const page = await api(server.url, key!, `/encounters?limit=100${q}`)
          expect(page.status).toBe(200)
          for (const e of page.body.items as Array<{ id: string; external_id: string }>) encounters.set(e.id, e.external_id)
          token = page.body.next_page_token
        } while (token !== null)

        // One Created event per encounter, no event without its encounter, no external_id twice.
        const perEncounter = new Map<string, number>()
        for (const e of created) perEncounter.set(e.payload.encounter_id, (perEncounter.get(e.payload.encounter_id) ?? 0) + 1)
        expect([...perEncounter.values()].filter((n) => n !== 1)).toEqual([])
        expect(created.filter((e) => !encounters.has(e.payload.encounter_id))).toEqual([])
        expect(created.length).toBe(encounters.size)
        expect(new Set(encounters.values()).size).toBe(encounters.size)
        for (const e of created) expect(encounters.get(e.payload.encounter_id)).toBe(e.payload.external_id)

        // Every acknowledged create: readable, exactly one Created event, and a replay finds it.
        const acked = [...ledger.acked.entries()]
        const failures: Array<string> = []
        await pool(acked, 8, async ([external_id, id]) => {
          const read = await api(server.url, key!, `/encounters/${id}`)
          if (read.status !== 200 || read.body.external_id !== external_id) failures.push(`${external_id}/${id}: read ${read.status}`)
          if (perEncounter.get(id) !== 1) failures.push(`${external_id}/${id}: ${perEncounter.get(id) ?? 0} Created events`)
          const replay = await api(server.url, key!, "/api/encounters", { body: validPayload(external_id) })
          if (replay.status !== 200 || replay.body.duplicate !== true || replay.body.encounter_id !== id) {
            failures.push(`${external_id}/${id}: replay ${replay.status} ${JSON.stringify(replay.body)}`)
          }
        })
        expect(failures).toEqual([])
        // Replays wrote no events.
        expect((await allEvents(server.url, key!, CREATED)).length).toBe(created.length)
        expect(encounters.size).toBeGreaterThanOrEqual(new Set(ledger.acked.values()).size)
      } finally {
        expect(await server.stop()).toBe(0)
      }
      expect(performance.now() - began).toBeLessThan(60_000)
    },
    60_000
  )
})
