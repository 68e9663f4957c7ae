import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { allEvents, api, CREATED, ensureBinary, type RunningBinary, runCli, startBinary } from "../support/binary.js"
import { validPayload } from "../support/payloads.js"
import { createScratchDb, describePg } from "../support/postgres.js"

const STATUS_UPDATED = "ExternalApi.Encounter.StatusUpdated"
const FAST = ["--rate-limit", "0", "--pool-size", "4"]

describePg("PostgreSQL: the binary serving one database", (adminUrl) => {
  let scratch: { readonly url: string; readonly drop: () => Promise<void> }
  let server: RunningBinary | undefined
  let key: string

  beforeAll(async () => {
    ensureBinary()
    scratch = await createScratchDb(adminUrl)
  })
  afterAll(async () => {
    if (server !== undefined && server.proc.exitCode === null) await server.stop("SIGKILL")
    await scratch?.drop()
  })

  describe("compiled binary: serve on PostgreSQL", () => {
    test("first run on an empty database prints one key that works", async () => {
      server = await startBinary({ db: scratch.url, args: FAST })
      expect(server.firstRun).toMatchObject({ first_run: true, workspace: "default" })
      expect(server.firstRun!.scopes).toContain("claims:write")
      key = server.key!
      expect(key).toMatch(/^eik_[0-9A-Za-z]{32,}$/)
      expect(server.stdoutLines.filter((l) => l.includes('"first_run"')).length).toBe(1)
      const listening = JSON.parse(server.stdoutLines.find((l) => l.includes('"listening"'))!)
      // The log names the database without credentials.
      expect(listening.db).toStartWith("postgres://127.0.0.1:5432/enc_test_")
      const ws = await api(server.url, key, "/api/workspace")
      expect(ws.status).toBe(200)
      expect(ws.body).toMatchObject({ id: server.firstRun!.workspace_id, slug: "default" })
      expect((await api(server.url, "eik_" + "x".repeat(40), "/api/workspace")).status).toBe(401)
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    })

    test("create 202, replay 200 duplicate, 422 with errors; normalized and compat reads", async () => {
      const { url } = server!
      const created = await api(url, key, "/api/encounters", { body: validPayload("pg-1") })
      expect(created.status).toBe(202)
      const id: string = created.body.encounter_id
      expect(created.body).toEqual({ encounter_id: id, encounterId: id })
      const replay = await api(url, key, "/api/encounters", { body: validPayload("pg-1") })
      expect(replay.status).toBe(200)
      expect(replay.body).toEqual({ encounter_id: id, encounterId: id, duplicate: true })
      const invalid = await api(url, key, "/api/encounters", { body: { external_id: "bad" } })
      expect(invalid.status).toBe(422)
      expect(invalid.body.code).toBe("validation_failed")
      expect(invalid.body.errors.length).toBeGreaterThan(0)
      expect(invalid.body.errors.map((e: { path: string }) => e.path)).toContain("patient")

      for (const path of [`/encounters/${id}`, `/api/encounters/${id}`]) {
        const read = await api(url, key, path)
        expect(read.status).toBe(200)
        expect(read.body).toMatchObject({ id, external_id: "pg-1", source: "api", initial_claim_status: "draft" })
        expect(read.body.latest_claim.status).toBe("draft")
      }
      const compat = await api(url, key, `/api/encounters/compat-version/${id}`)
      expect(compat.status).toBe(200)
      expect(compat.body).toMatchObject({ encounter_id: id, external_id: "pg-1" })
      expect(compat.body.url).toStartWith(url)
      expect(compat.body.claims.length).toBe(1)
      const byExternal = await api(url, key, "/encounters?external_id=pg-1")
      expect(byExternal.body.items.map((e: { id: string }) => e.id)).toEqual([id])
    })

    test("list pages: 12 more encounters, limit 5, each seen once following next_page_token", async () => {
      const { url } = server!
      const ids = new Set<string>()
      for (let i = 0; i < 12; i++) {
        const r = await api(url, key, "/api/encounters", { body: validPayload(`pg-page-${i}`) })
        expect(r.status).toBe(202)
        ids.add(r.body.encounter_id)
      }
      const seen: Array<string> = []
      const sizes: Array<number> = []
      let token: string | null = null
      for (let page = 0; page < 10; page++) {
        const q = new URLSearchParams({ limit: "5" })
        if (token !== null) q.set("page_token", token)
        const r = await api(url, key, `/api/encounters?${q}`)
        expect(r.status).toBe(200)
        sizes.push(r.body.items.length)
        seen.push(...r.body.items.map((e: { id: string }) => e.id))
        token = r.body.next_page_token
        if (token === null) break
      }
      expect(token).toBeNull()
      expect(sizes).toEqual([5, 5, 3]) // 13 encounters: pg-1 and the 12 new ones
      expect(new Set(seen).size).toBe(seen.length)
      for (const id of ids) expect(seen).toContain(id)
    })

    test("events: list and single; draft → submitted_to_payer 200 with its event; an illegal move 409", async () => {
      const { url } = server!
      const enc = (await api(url, key, "/encounters?external_id=pg-1")).body.items[0]
      const claimId: string = enc.latest_claim.id
      const created = await allEvents(url, key, CREATED)
      expect(created.length).toBe(13)
      expect(created.filter((e) => e.payload.encounter_id === enc.id).length).toBe(1)
      const first = created.find((e) => e.payload.encounter_id === enc.id)!
      expect(first.payload).toMatchObject({ external_id: "pg-1", claim_id: claimId, status: "draft" })
      const one = await api(url, key, `/api/encounters/compat-version/events/${first.id}`)
      expect(one.status).toBe(200)
      expect(one.body).toMatchObject({ id: first.id, event_type: CREATED })

      const moved = await api(url, key, `/api/claims/${claimId}/status`, { body: { status: "submitted_to_payer", note: "sent" } })
      expect(moved.status).toBe(200)
      expect(moved.body).toMatchObject({ id: claimId, status: "submitted_to_payer" })
      const updates = await allEvents(url, key, STATUS_UPDATED)
      expect(updates.length).toBe(1)
      expect(updates[0]!.payload).toMatchObject({
        encounter_id: enc.id,
        claim_id: claimId,
        previous_status: "draft",
        status: "submitted_to_payer",
        note: "sent"
      })
      // The same status again: a 200 no-op without an event.
      expect((await api(url, key, `/api/claims/${claimId}/status`, { body: { status: "submitted_to_payer" } })).status).toBe(200)
      const illegal = await api(url, key, `/api/claims/${claimId}/status`, { body: { status: "coded" } })
      expect(illegal.status).toBe(409)
      expect(illegal.body).toMatchObject({ code: "invalid_transition", current_status: "submitted_to_payer" })
      expect(illegal.body.allowed_transitions).toContain("paid")
      expect((await allEvents(url, key, STATUS_UPDATED)).length).toBe(1)
      const read = await api(url, key, `/api/encounters/${enc.id}`)
      expect(read.body.latest_claim.status).toBe("submitted_to_payer")
      // The whole feed: 13 Created then one StatusUpdated, in recorded order.
      const all = await allEvents(url, key)
      expect(all.length).toBe(14)
      expect(all[13]!.event_type).toBe(STATUS_UPDATED)
    })

    test("another workspace's key sees none of this workspace's ids (404)", async () => {
      const { url } = server!
      const ws = await runCli(["workspaces", "create", "--slug", "other", "--name", "Other clinic"], { db: scratch.url })
      expect(ws.code).toBe(0)
      expect(ws.json).toMatchObject({ slug: "other", name: "Other clinic" })
      const other = await runCli(["keys", "create", "--workspace", "other", "--scope", "claims:write"], { db: scratch.url })
      expect(other.code).toBe(0)
      const otherKey: string = other.json.key
      expect(otherKey).toMatch(/^eik_/)
      expect((await api(url, otherKey, "/api/workspace")).body.slug).toBe("other")

      const enc = (await api(url, key, "/encounters?external_id=pg-1")).body.items[0]
      const event = (await allEvents(url, key))[0]!
      for (const path of [
        `/encounters/${enc.id}`,
        `/api/encounters/${enc.id}`,
        `/api/encounters/compat-version/${enc.id}`,
        `/api/encounters/compat-version/events/${event.id}`
      ]) {
        const r = await api(url, otherKey, path)
        expect(r.status).toBe(404)
        expect(r.body.code).toBe("not_found")
      }
      const move = await api(url, otherKey, `/api/claims/${enc.latest_claim.id}/status`, { body: { status: "paid" } })
      expect(move.status).toBe(404)
      expect((await api(url, otherKey, "/encounters")).body.items).toEqual([])
      expect(await allEvents(url, otherKey)).toEqual([])
      // The same external_id in the other workspace is another encounter.
      const mine = await api(url, otherKey, "/api/encounters", { body: validPayload("pg-1") })
      expect(mine.status).toBe(202)
      expect(mine.body.encounter_id).not.toBe(enc.id)
    })

    test("backup on PostgreSQL is a usage error (exit 2) that names the engine's tools", async () => {
      const r = await runCli(["backup", "--out", "/tmp/encounterd-pg-backup-never-written.sqlite"], { db: scratch.url })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("pg_dump")
      expect(r.stdout.trim()).toBe("")
    })

    test("SIGTERM exits 0; a restart on the same database prints no key and serves the data", async () => {
      expect(await server!.stop()).toBe(0)
      expect(server!.stdoutLines.some((l) => l.includes('"stopped"'))).toBe(true)
      server = await startBinary({ db: scratch.url, args: FAST })
      expect(server.firstRun).toBeUndefined()
      expect(server.stdoutLines.some((l) => l.includes("first_run"))).toBe(false)
      expect((await allEvents(server.url, key)).length).toBe(14)
      expect(await server.stop()).toBe(0)
    })
  })
})
