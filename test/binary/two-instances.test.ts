import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { allEvents, api, CREATED, ensureBinary, type RunningBinary, runCli, startBinary } from "../support/binary.js"
import { validPayload } from "../support/payloads.js"
import { createScratchDb, describePg } from "../support/postgres.js"

const STATUS_UPDATED = "ExternalApi.Encounter.StatusUpdated"
const ARGS = ["--rate-limit", "0", "--pool-size", "5"]
const LOOPS = 16
const LOAD_MS = 3_000
const POOL = 300
const EVENTS = "/api/encounters/compat-version/events"

/** What the clients were told. */
interface Ledger {
  /** external_id → every encounter id a 202/200 answered for it. */
  readonly answers: Map<string, Array<string>>
  /** external_id → how many 202s it got. */
  readonly created: Map<string, number>
  /** encounter id → claim id, learned by reading the encounter. */
  readonly claims: Map<string, string>
  /** Claims some client moved draft → submitted_to_payer (answered 200). */
  readonly moved: Set<string>
  /** Anything neither 202/200 on a create nor 200 on a move (a 5xx, a 409, a refused connection). */
  readonly anomalies: Array<string>
  creates: number
  moves: number
}

/** What the poller collected, in the order it saw it. */
interface PollLog {
  readonly ids: Array<string>
  /** Ids repeated inside one next_page_token chain (a keyset scan must never repeat). */
  readonly chainRepeats: Array<string>
  readonly errors: Array<string>
  /** The created_after of each resume, in order. */
  readonly afters: Array<string>
  restarts: number
  dropped: number
  requests: number
}

const randomInt = (n: number) => Math.floor(Math.random() * n)

/** Sends creates (and now and then one status move raced on both instances) until `stop.done`. */
const clientLoop = async (servers: ReadonlyArray<RunningBinary>, mine: RunningBinary, key: string, began: number, ledger: Ledger, stop: { done: boolean }) => {
  while (!stop.done) {
    const known = [...ledger.claims.keys()]
    if (known.length > 0 && Math.random() < 0.12) {
      const encounterId = known[randomInt(known.length)]!
      const claimId = ledger.claims.get(encounterId)!
      // The same move sent to both instances at once: the compare-and-set lets one win, the other is a no-op.
      const answers = await Promise.all(
        servers.map((s) => api(s.url, key, `/api/claims/${claimId}/status`, { body: { status: "submitted_to_payer" } }).catch((e) => ({ status: -1, body: String(e) })))
      )
      for (const r of answers) {
        ledger.moves++
        if (r.status === 200 && r.body.status === "submitted_to_payer") ledger.moved.add(claimId)
        else ledger.anomalies.push(`move ${claimId}: ${r.status} ${JSON.stringify(r.body)}`)
      }
      continue
    }
    // Mostly ids from a window sliding over the pool with time (fresh ids hit by many loops at once), some replays.
    const front = Math.min(POOL - 1, Math.floor(((performance.now() - began) / LOAD_MS) * POOL))
    const n = Math.random() < 0.25 ? randomInt(front + 1) : Math.max(0, front - randomInt(4))
    const externalId = `shared-${n}`
    let r: { status: number; body: any }
    try {
      r = await api(mine.url, key, "/api/encounters", { body: validPayload(externalId) })
    } catch (e) {
      ledger.anomalies.push(`create ${externalId}: ${String(e)}`)
      continue
    }
    ledger.creates++
    if ((r.status !== 202 && r.status !== 200) || (r.status === 200 && r.body.duplicate !== true)) {
      ledger.anomalies.push(`create ${externalId}: ${r.status} ${JSON.stringify(r.body)}`)
      continue
    }
    const id: string = r.body.encounter_id
    ledger.answers.set(externalId, [...(ledger.answers.get(externalId) ?? []), id])
    if (r.status === 202) ledger.created.set(externalId, (ledger.created.get(externalId) ?? 0) + 1)
    if (!ledger.claims.has(id) && Math.random() < 0.3) {
      const read = await api(mine.url, key, `/api/encounters/${id}`)
      if (read.status === 200) ledger.claims.set(id, read.body.latest_claim.id)
      else ledger.anomalies.push(`read ${id}: ${read.status}`)
    }
  }
}

/**
 * Polls the feed as the README tells a client to: follow next_page_token; at the end, ask again
 * later with created_after = the created_at of the last event seen (inclusive) and skip the ids it
 * has. Alternates instances. Returns once a pass begun after `ctl.stop` reaches the end.
 */
const poller = async (servers: ReadonlyArray<RunningBinary>, key: string, ctl: { stop: boolean }, log: PollLog) => {
  const seen = new Set<string>()
  let after: string | undefined
  let lastCreatedAt: string | undefined
  let token: string | null = null
  let chain = new Set<string>()
  let finalPass = false
  const deadline = performance.now() + 40_000
  while (performance.now() < deadline) {
    if (token === null) finalPass = ctl.stop // a pass that starts after the load stopped sees every commit
    const q = new URLSearchParams({ limit: "50" })
    if (after !== undefined) q.set("created_after", after)
    if (token !== null) q.set("page_token", token)
    const r = await api(servers[log.requests++ % servers.length]!.url, key, `${EVENTS}?${q}`)
    if (r.status !== 200) {
      log.errors.push(`${r.status} ${JSON.stringify(r.body)}`)
      if (log.errors.length > 20) return
      await Bun.sleep(20)
      continue
    }
    for (const e of r.body.items as Array<{ id: string; created_at: string }>) {
      if (chain.has(e.id)) log.chainRepeats.push(e.id)
      chain.add(e.id)
      if (after !== undefined && seen.has(e.id)) {
        log.dropped++ // the inclusive bound's overlap: skipped as the README says
        continue
      }
      log.ids.push(e.id) // outside a restart a repeat stays in, for the duplicate check
      seen.add(e.id)
      lastCreatedAt = e.created_at
    }
    token = r.body.next_page_token
    if (token === null) {
      if (finalPass) return
      after = lastCreatedAt
      if (after !== undefined) log.afters.push(after)
      chain = new Set()
      log.restarts++
      await Bun.sleep(10 + randomInt(20))
    }
  }
  log.errors.push("poller did not reach the end within 40 s")
}

/** Every encounter of the workspace (normalized list, limit 100, following next_page_token). */
const allEncounters = async (base: string, key: string): Promise<Array<{ id: string; external_id: string; latest_claim: { id: string; status: string } }>> => {
  const out = []
  let token: string | null = null
  for (let page = 0; page < 100; page++) {
    const q = new URLSearchParams({ limit: "100" })
    if (token !== null) q.set("page_token", token)
    const r = await api(base, key, `/api/encounters?${q}`)
    if (r.status !== 200) throw new Error(`encounters page answered ${r.status}`)
    out.push(...r.body.items)
    token = r.body.next_page_token
    if (token === null) return out
  }
  throw new Error("encounters did not end")
}

describePg("PostgreSQL: two binaries on one database", (adminUrl) => {
  let scratch: { readonly url: string; readonly drop: () => Promise<void> } | undefined
  const servers: Array<RunningBinary> = []

  beforeAll(() => {
    ensureBinary()
  })
  afterAll(async () => {
    for (const s of servers) if (s.proc.exitCode === null) await s.stop("SIGKILL")
    await scratch?.drop()
  })

  describe("compiled binary: two instances on one PostgreSQL database", () => {
    test(
      "racing creates and moves on both: one encounter per external_id, one event per change, a poller misses and repeats nothing",
      async () => {
        const began = performance.now()
        scratch = await createScratchDb(adminUrl)
        // Both start at once on the empty database: exactly one creates the workspace and prints a key.
        servers.push(...(await Promise.all([startBinary({ db: scratch.url, args: ARGS }), startBinary({ db: scratch.url, args: ARGS })])))
        const firsts = servers.filter((s) => s.firstRun !== undefined)
        expect(firsts.length).toBe(1)
        const key = firsts[0]!.key!
        const other = servers.find((s) => s.firstRun === undefined)!
        expect(other.stdoutLines.some((l) => l.includes("first_run"))).toBe(false)
        expect(other.stderr()).not.toContain("eik_")
        for (const s of servers) expect((await api(s.url, key, "/api/workspace")).body.slug).toBe("default")
        const workspaces = await runCli(["workspaces", "list"], { db: scratch.url })
        expect(workspaces.json.length).toBe(1)

        const ledger: Ledger = { answers: new Map(), created: new Map(), claims: new Map(), moved: new Set(), anomalies: [], creates: 0, moves: 0 }
        const log: PollLog = { ids: [], chainRepeats: [], errors: [], afters: [], restarts: 0, dropped: 0, requests: 0 }
        const stop = { done: false }
        const ctl = { stop: false }
        const polling = poller(servers, key, ctl, log)
        const loadStart = performance.now()
        const loops = Array.from({ length: LOOPS }, (_, i) => clientLoop(servers, servers[i % 2]!, key, loadStart, ledger, stop))
        await Bun.sleep(LOAD_MS)
        stop.done = true
        await Promise.all(loops) // every in-flight request answered
        ctl.stop = true
        await polling
        // Read everything back (normalized list from one instance, the feed from the other), then stop both.
        const encounters = await allEncounters(servers[0]!.url, key)
        const full = (await allEvents(servers[1]!.url, key)) as Array<Awaited<ReturnType<typeof allEvents>>[number] & { created_at: string }>
        for (const s of servers) expect(await s.stop()).toBe(0)
        const elapsed = performance.now() - began
        console.log(
          JSON.stringify({
            ...{ creates: ledger.creates, moves: ledger.moves, moved: ledger.moved.size, encounters: encounters.length, events: full.length },
            ...{ polls: log.requests, resumes: log.restarts, skipped_overlap: log.dropped, polled: log.ids.length, elapsed_ms: Math.round(elapsed) }
          })
        )
        expect(elapsed).toBeLessThan(60_000)

        expect(ledger.anomalies).toEqual([]) // no 5xx, no 409 on a move, no refused connection
        expect(log.errors).toEqual([])
        expect(ledger.creates).toBeGreaterThan(POOL / 2)
        expect(ledger.moved.size).toBeGreaterThan(0)

        // Every acknowledged external_id maps to one encounter: all answers agree, exactly one 202.
        const splits = [...ledger.answers].filter(([, ids]) => new Set(ids).size !== 1).map(([ext, ids]) => `${ext}: ${[...new Set(ids)].join(",")}`)
        expect(splits).toEqual([])
        const twice = [...ledger.answers.keys()].filter((ext) => ledger.created.get(ext) !== 1).map((ext) => `${ext}: ${ledger.created.get(ext) ?? 0} x 202`)
        expect(twice).toEqual([])
        const acked = new Map([...ledger.answers].map(([ext, ids]) => [ext, ids[0]!]))

        // The database agrees: one encounter per external_id, the acknowledged one.
        expect(new Set(encounters.map((e) => e.external_id)).size).toBe(encounters.length)
        expect(encounters.length).toBe(acked.size)
        for (const e of encounters) expect(acked.get(e.external_id)).toBe(e.id)

        // Events: one Created per encounter; one StatusUpdated per claim moved, none for the others.
        const createdEvents = full.filter((e) => e.event_type === CREATED)
        expect(createdEvents.length).toBe(encounters.length)
        expect(new Set(createdEvents.map((e) => e.payload.encounter_id))).toEqual(new Set(encounters.map((e) => e.id)))
        const updates = full.filter((e) => e.event_type === STATUS_UPDATED)
        const perClaim = new Map<string, number>()
        for (const u of updates) perClaim.set(u.payload.claim_id, (perClaim.get(u.payload.claim_id) ?? 0) + 1)
        expect([...perClaim].filter(([, n]) => n > 1)).toEqual([])
        expect(new Set(perClaim.keys())).toEqual(ledger.moved)
        for (const u of updates) expect(u.payload).toMatchObject({ previous_status: "draft", status: "submitted_to_payer" })
        const moved = encounters.filter((e) => ledger.moved.has(e.latest_claim.id))
        expect(moved.length).toBe(ledger.moved.size)
        for (const e of moved) expect(e.latest_claim.status).toBe("submitted_to_payer")

        // The poller: never an id twice, nothing missed, nothing extra.
        expect(log.chainRepeats).toEqual([])
        expect(log.ids.filter((id, i) => log.ids.indexOf(id) !== i)).toEqual([])
        const polled = new Set(log.ids)
        // A miss is described with the latest created_at recorded before it (the feed is in recorded order).
        let latest = ""
        const missed: Array<string> = []
        for (const e of full) {
          if (!polled.has(e.id)) {
            const resume = log.afters.find((a) => a > e.created_at)
            const why = resume === undefined ? "no resume bound explains it" : `a resume used created_after=${resume}`
            missed.push(`${e.event_type} ${e.id} created_at ${e.created_at}, recorded after one created at ${latest}; ${why}`)
          }
          if (e.created_at > latest) latest = e.created_at
        }
        expect(missed).toEqual([])
        const fullIds = new Set(full.map((e) => e.id))
        expect(log.ids.filter((id) => !fullIds.has(id))).toEqual([])
        expect(log.ids.length).toBe(full.length)
      },
      60_000
    )
  })
})
