import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { allEvents, api, CREATED, ensureBinary, removeTemps, runCli, startBinary, tempDb } from "../support/binary.js"
import { validPayload } from "../support/payloads.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

const FAST = ["--rate-limit", "0"]

describe("compiled binary: serve", () => {
  test("first run prints one working key; a second start on the same database prints none", async () => {
    const db = tempDb("srv-first")
    const first = await startBinary({ db, args: FAST })
    let key: string
    try {
      expect(first.firstRun).toMatchObject({ first_run: true, workspace: "default" })
      expect(first.firstRun!.scopes).toContain("encounters")
      key = first.key!
      expect(key).toMatch(/^eik_[0-9A-Za-z]{32,}$/)
      // The first-run line comes before the log lines, and only once.
      expect(JSON.parse(first.stdoutLines[0]!).first_run).toBe(true)
      expect(first.stdoutLines.filter((l) => l.includes('"first_run"')).length).toBe(1)
      const listening = JSON.parse(first.stdoutLines.find((l) => l.includes('"listening"'))!)
      expect(listening.url).toBe(first.url)
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const ws = await api(first.url, key, "/api/workspace")
      expect(ws.status).toBe(200)
      expect(ws.body).toMatchObject({ id: first.firstRun!.workspace_id, slug: "default" })
      expect((await api(first.url, "eik_" + "x".repeat(40), "/api/workspace")).status).toBe(401)
      const health = await fetch(`${first.url}/healthz`)
      expect(health.status).toBe(200)
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200)
    } finally {
      expect(await first.stop()).toBe(0)
    }
    const second = await startBinary({ db, args: FAST })
    try {
      expect(second.firstRun).toBeUndefined()
      expect(second.key).toBeUndefined()
      expect(second.stdoutLines.some((l) => l.includes("first_run"))).toBe(false)
      expect(second.stderr()).not.toContain("eik_")
      expect((await api(second.url, key, "/api/workspace")).status).toBe(200)
      const list = await runCli(["workspaces", "list"], { db })
      expect(list.json.length).toBe(1)
    } finally {
      expect(await second.stop()).toBe(0)
    }
  })

  test("settings come from ENCOUNTERD_* env: a public URL lands in compat reads", async () => {
    const db = tempDb("srv-env")
    const server = await startBinary({ db, env: { ENCOUNTERD_PUBLIC_URL: "https://claims.example.test", ENCOUNTERD_RATE_LIMIT: "0" } })
    try {
      const created = await api(server.url, server.key!, "/api/encounters", { body: validPayload("env-1") })
      expect(created.status).toBe(202)
      const compat = await api(server.url, server.key!, `/api/encounters/compat-version/${created.body.encounter_id}`)
      expect(compat.status).toBe(200)
      expect(compat.body.url).toStartWith("https://claims.example.test/")
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })

  test("create, replay, read and events over HTTP; backup of the live database serves the same data", async () => {
    const db = tempDb("srv-crud")
    const server = await startBinary({ db, args: FAST })
    const key = server.key!
    let id: string
    let events: Awaited<ReturnType<typeof allEvents>>
    const backupFile = `${db}.backup`
    try {
      const created = await api(server.url, key, "/api/encounters", { body: validPayload("crud-1") })
      expect(created.status).toBe(202)
      id = created.body.encounter_id
      expect(created.body).toEqual({ encounter_id: id, encounterId: id })
      const replay = await api(server.url, key, "/api/encounters", { body: validPayload("crud-1") })
      expect(replay.status).toBe(200)
      expect(replay.body).toEqual({ encounter_id: id, encounterId: id, duplicate: true })
      const invalid = await api(server.url, key, "/api/encounters", { body: { external_id: "bad" } })
      expect(invalid.status).toBe(422)
      expect(invalid.body.code).toBe("validation_failed")

      for (const path of [`/encounters/${id}`, `/api/encounters/${id}`]) {
        const read = await api(server.url, key, path)
        expect(read.status).toBe(200)
        expect(read.body).toMatchObject({ id, external_id: "crud-1", source: "api", initial_claim_status: "draft" })
      }
      const compat = await api(server.url, key, `/api/encounters/compat-version/${id}`)
      expect(compat.status).toBe(200)
      expect(compat.body.url).toStartWith(server.url)
      const list = await api(server.url, key, "/encounters?external_id=crud-1")
      expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([id])

      events = await allEvents(server.url, key)
      expect(events.length).toBe(1)
      expect(events[0]).toMatchObject({ event_type: CREATED, payload: { encounter_id: id, external_id: "crud-1", status: "draft" } })
      const one = await api(server.url, key, `/api/encounters/compat-version/events/${events[0]!.id}`)
      expect(one.status).toBe(200)
      expect(one.body.id).toBe(events[0]!.id)

      const backup = await runCli(["backup", "--out", backupFile], { db })
      expect(backup.code).toBe(0)
      expect(backup.json.backup).toBe(backupFile)
      // The original keeps serving after the backup.
      expect((await api(server.url, key, "/api/encounters", { body: validPayload("crud-2") })).status).toBe(202)
    } finally {
      expect(await server.stop()).toBe(0)
    }

    const copy = await startBinary({ db: backupFile, args: FAST })
    try {
      expect(copy.firstRun).toBeUndefined()
      const read = await api(copy.url, key, `/encounters/${id}`)
      expect(read.status).toBe(200)
      expect(read.body.id).toBe(id)
      expect(read.body.external_id).toBe("crud-1")
      expect(await allEvents(copy.url, key)).toEqual(events)
      // Written after the backup: not in it.
      expect((await api(copy.url, key, "/encounters?external_id=crud-2")).body.items).toEqual([])
    } finally {
      expect(await copy.stop()).toBe(0)
    }
  })

  test("SIGTERM with creates in flight: every answered create is durable, exit 0 within 10 s", async () => {
    const db = tempDb("srv-term")
    const server = await startBinary({ db, args: FAST })
    const key = server.key!
    type Outcome = { external_id: string; status?: number; id?: string; error?: string }
    // Eight senders create without pause until the server stops answering them. SIGTERM goes once
    // the first create is acknowledged, so creates are in flight on every sender when it lands
    // (a fixed delay before the signal can come before the first connection is even accepted).
    const outcomes: Array<Outcome> = []
    let firstAnswer: () => void = () => undefined
    const answeredOnce = new Promise<void>((resolve) => (firstAnswer = resolve))
    const sender = async (s: number) => {
      for (let i = 0; ; i++) {
        const external_id = `term-${s}-${i}`
        try {
          const r = await api(server.url, key, "/api/encounters", { body: validPayload(external_id) })
          outcomes.push({ external_id, status: r.status, id: r.body?.encounter_id })
          firstAnswer()
        } catch (e) {
          outcomes.push({ external_id, error: String(e) })
          return
        }
      }
    }
    const senders = Array.from({ length: 8 }, (_, s) => sender(s))
    await answeredOnce
    const started = performance.now()
    server.proc.kill("SIGTERM")
    await Promise.all(senders)
    const code = await server.proc.exited
    const elapsed = performance.now() - started
    expect(code).toBe(0)
    expect(elapsed).toBeLessThan(10_000)
    // The pipe may still hold the last lines when the exit is seen.
    for (let waited = 0; waited < 2_000 && !server.stdoutLines.some((l) => l.includes('"stopped"')); waited += 20) await Bun.sleep(20)
    expect(server.stdoutLines.some((l) => l.includes('"stopped"'))).toBe(true)

    const answered = outcomes.filter((o) => o.status !== undefined)
    expect(answered.length).toBeGreaterThan(0)
    // Every sender ended on a refused or closed connection, never on an answer.
    expect(outcomes.filter((o) => o.error !== undefined).length).toBe(8)
    // Anything answered was answered properly: an accepted create, never a 5xx.
    for (const o of answered) expect(o.status).toBe(202)
    const acknowledged = answered.filter((o) => o.status === 202)

    const again = await startBinary({ db, args: FAST })
    try {
      expect(again.firstRun).toBeUndefined()
      const created = await allEvents(again.url, key, CREATED)
      for (const o of acknowledged) {
        const read = await api(again.url, key, `/encounters/${o.id}`)
        expect(read.status).toBe(200)
        expect(read.body.external_id).toBe(o.external_id)
        expect(created.filter((e) => e.payload.encounter_id === o.id).length).toBe(1)
      }
      // Nothing half-written: every Created event has its encounter.
      for (const e of created) expect((await api(again.url, key, `/encounters/${e.payload.encounter_id}`)).status).toBe(200)
    } finally {
      expect(await again.stop()).toBe(0)
    }
  }, 30_000)
})
