import { randomBytes } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { allEvents, api, ensureBinary, type RunningBinary, removeTemps, runCli, startBinary, tempDb, tempDir } from "../support/binary.js"
import { validPayload } from "../support/payloads.js"
import { createScratchDb, describePg } from "../support/postgres.js"
import { hookArgs, startHookReceiver, waitFor } from "./webhook-receiver.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

const HOOK_ARGS = hookArgs("1s")

describe("compiled binary: webhooks CLI", () => {
  test("create (private targets only with the flag), list, disable, enable, deliveries, retry", async () => {
    const db = tempDb("hooks-cli")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
    for (const sub of ["create", "list", "enable", "disable", "deliveries", "retry"]) {
      const help = await runCli(["webhooks", sub, "--help"])
      expect([help.code, help.stdout.includes(`Usage: encounterd webhooks ${sub}`)]).toEqual([0, true])
    }
    const refused = await runCli(["webhooks", "create", "--workspace", "clinic", "--url", "http://127.0.0.1:9/hook"], { db })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/loopback/)
    const made = await runCli(
      ["webhooks", "create", "--workspace", "clinic", "--url", "http://127.0.0.1:9/hook", "--event-type", "ExternalApi.Encounter.Created", "--description", "EHR", "--webhook-allow-private"],
      { db }
    )
    expect(made.code).toBe(0)
    expect(made.json).toMatchObject({ url: "http://127.0.0.1:9/hook", event_types: ["ExternalApi.Encounter.Created"], description: "EHR", status: "enabled" })
    expect(made.json.secret).toMatch(/^whsec_/)
    const listed = await runCli(["webhooks", "list", "--workspace", "clinic"], { db })
    expect(listed.json.map((e: { id: string }) => e.id)).toEqual([made.json.id])
    expect(listed.stdout).not.toContain("secret")
    const off = await runCli(["webhooks", "disable", made.json.id], { db })
    expect([off.code, off.json.status, typeof off.json.disabled_reason]).toEqual([0, "disabled", "string"])
    const on = await runCli(["webhooks", "enable", made.json.id], { db })
    expect([on.json.status, on.json.disabled_reason]).toEqual(["enabled", null])
    expect((await runCli(["webhooks", "deliveries", made.json.id], { db })).json).toEqual([])
    const missing = await runCli(["webhooks", "retry", "01a00000-0000-7000-8000-000000000000"], { db })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/No webhook delivery/)
    expect((await runCli(["webhooks", "deliveries", made.json.id, "--status", "lost"], { db })).code).toBe(2)

    // A server on the same file: a create queues a delivery the CLI sees, and retries.
    const server = await startBinary({ db, args: ["--rate-limit", "0"] })
    try {
      const key = (await runCli(["keys", "create", "--workspace", "clinic"], { db })).json.key
      expect((await api(server.url, key, "/api/encounters", { body: validPayload("cli-hook") })).status).toBe(202)
      const log = await runCli(["webhooks", "deliveries", made.json.id], { db })
      expect(log.json.length).toBe(1)
      const retried = await runCli(["webhooks", "retry", log.json[0].id], { db })
      expect([retried.code, retried.json.status]).toEqual([0, "pending"])
    } finally {
      expect(await server.stop()).toBe(0)
    }
  }, 30_000)
})

describe("compiled binary: the endpoint limit", () => {
  test("--webhook-max-endpoints: in serve's and create's help, refused out of range, held by the server (409) and by the CLI", async () => {
    const db = tempDb("hooks-limit")
    for (const command of [["serve"], ["webhooks", "create"]]) {
      const help = await runCli([...command, "--help"])
      expect(help.stdout).toMatch(/--webhook-max-endpoints VALUE +Webhook endpoints one workspace may register, 1 to 10000 \(default 50\) \(env ENCOUNTERD_WEBHOOK_MAX_ENDPOINTS\)/)
    }
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
    const create = (extra: ReadonlyArray<string>, env?: Record<string, string>) =>
      runCli(["webhooks", "create", "--workspace", "clinic", "--url", "http://127.0.0.1:9/hook", "--webhook-allow-private", ...extra], {
        db,
        ...(env !== undefined ? { env } : {})
      })
    for (const bad of ["0", "many", "10001"]) {
      const r = await create(["--webhook-max-endpoints", bad])
      expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("--webhook-max-endpoints must be")])
    }
    expect((await create(["--webhook-max-endpoints", "1"])).code).toBe(0)
    const refused = await create(["--webhook-max-endpoints", "1"])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("already has the most webhook endpoints the server allows (1)")
    expect(refused.stderr).toContain("--webhook-max-endpoints")
    // The variable sets it as the flag does.
    expect((await create([], { ENCOUNTERD_WEBHOOK_MAX_ENDPOINTS: "1" })).code).toBe(1)
    expect((await create([])).code).toBe(0)

    const server = await startBinary({ db, args: ["--rate-limit", "0", "--webhook-allow-private", "--webhook-max-endpoints", "3"] })
    try {
      const key = (await runCli(["keys", "create", "--workspace", "clinic", "--scope", "webhooks:write"], { db })).json.key
      const made = await api(server.url, key, "/api/webhooks/endpoints", { body: { url: "http://127.0.0.1:9/third" } })
      expect(made.status).toBe(201)
      const over = await api(server.url, key, "/api/webhooks/endpoints", { body: { url: "http://127.0.0.1:9/fourth" } })
      expect(over.status).toBe(409)
      expect(over.body).toMatchObject({ code: "webhook_endpoint_limit", limit: 3, setting: "--webhook-max-endpoints" })
      expect(over.body.detail).toContain("(3)")
    } finally {
      expect(await server.stop()).toBe(0)
    }
  }, 60_000)
})

describe("compiled binary: webhooks survive a crash", () => {
  test("SIGKILL after answering creates, before delivering: after the restart every event is delivered", async () => {
    const db = tempDb("hooks-crash")
    const receiver = startHookReceiver()
    receiver.state.hold = true
    try {
      const first = await startBinary({ db, args: HOOK_ARGS })
      const key = first.key!
      const endpoint = await api(first.url, key, "/api/webhooks/endpoints", { body: { url: receiver.url } })
      expect(endpoint.status).toBe(201)
      receiver.state.secret = endpoint.body.secret
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => api(first.url, key, "/api/encounters", { body: validPayload(`crash-hook-${i}`) })))
      expect(answers.map((a) => a.status).filter((s) => s !== 202)).toEqual([])
      first.proc.kill("SIGKILL")
      await first.proc.exited
      expect(receiver.delivered.size).toBe(0)

      receiver.state.hold = false
      const second = await startBinary({ db, args: HOOK_ARGS })
      try {
        const events = await allEvents(second.url, key)
        expect(events.length).toBe(30)
        const all = await waitFor(() => events.every((e) => receiver.delivered.has(e.id)), 30_000)
        expect({ all, missing: events.filter((e) => !receiver.delivered.has(e.id)).length }).toEqual({ all: true, missing: 0 })
        expect(receiver.unverified).toEqual([])
      } finally {
        expect(await second.stop()).toBe(0)
      }
    } finally {
      receiver.stop()
    }
  }, 60_000)
})

describePg("PostgreSQL: webhooks from two instances", (adminUrl) => {
  let scratch: { readonly url: string; readonly drop: () => Promise<void> } | undefined
  const servers: Array<RunningBinary> = []
  afterAll(async () => {
    for (const s of servers) if (s.proc.exitCode === null) await s.stop("SIGKILL")
    await scratch?.drop()
  })

  test("concurrent creates on both: the receiver gets every event, each once", async () => {
    scratch = await createScratchDb(adminUrl)
    const keyFile = join(tempDir("hooks-pg"), "webhook.key")
    writeFileSync(keyFile, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 })
    const args = [...HOOK_ARGS, "--pool-size", "5", "--webhook-secret-key-file", keyFile]
    const receiver = startHookReceiver()
    try {
      servers.push(await startBinary({ db: scratch.url, args }))
      servers.push(await startBinary({ db: scratch.url, args }))
      const key = servers[0]!.key!
      const endpoint = await api(servers[1]!.url, key, "/api/webhooks/endpoints", { body: { url: receiver.url } })
      expect(endpoint.status).toBe(201)
      receiver.state.secret = endpoint.body.secret
      const anomalies: Array<string> = []
      await Promise.all(
        Array.from({ length: 8 }, async (_, loop) => {
          for (let n = 0; n < 25; n++) {
            const r = await api(servers[(loop + n) % 2]!.url, key, "/api/encounters", { body: validPayload(`pg-hook-${loop}-${n}`) })
            if (r.status !== 202) anomalies.push(`${r.status} ${JSON.stringify(r.body)}`)
          }
        })
      )
      expect(anomalies).toEqual([])
      const events = await allEvents(servers[0]!.url, key)
      expect(events.length).toBe(200)
      const all = await waitFor(() => events.every((e) => receiver.delivered.has(e.id)), 30_000)
      expect(all).toBe(true)
      // Every attempt succeeded, so none was repeated: each event arrived exactly once.
      expect([...receiver.delivered.values()].filter((n) => n !== 1)).toEqual([])
      expect(receiver.delivered.size).toBe(events.length)
      expect(receiver.attempts()).toBe(events.length)
      expect(receiver.unverified).toEqual([])
      for (const s of servers) expect(await s.stop()).toBe(0)
    } finally {
      receiver.stop()
    }
  }, 60_000)
})
