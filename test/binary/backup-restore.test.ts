import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { allEvents, api, CREATED, ensureBinary, removeTemps, runCli, startBinary, tempDir } from "../support/binary.js"
import { validPayload } from "../support/payloads.js"
import { hookArgs, startHookReceiver, waitFor } from "./webhook-receiver.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

const HOOK_ARGS = hookArgs("5s")
const mode = (path: string): number => statSync(path).mode & 0o777

/** A database with one webhook endpoint (to `receiverUrl`) that has received one event, signed; the server stopped. */
const databaseWithEndpoint = async (db: string, receiver: ReturnType<typeof startHookReceiver>) => {
  const server = await startBinary({ db, args: HOOK_ARGS })
  try {
    const key = server.key!
    const endpoint = await api(server.url, key, "/api/webhooks/endpoints", { body: { url: receiver.url, event_types: [CREATED] } })
    expect(endpoint.status).toBe(201)
    receiver.state.secret = endpoint.body.secret
    expect((await api(server.url, key, "/api/encounters", { body: validPayload("enc-before-backup") })).status).toBe(202)
    const [event] = await allEvents(server.url, key, CREATED)
    expect(await waitFor(() => receiver.delivered.has(event!.id), 15_000)).toBe(true)
    return { key }
  } finally {
    expect(await server.stop()).toBe(0)
  }
}

describe("backup and restore keep webhooks working", () => {
  test("backup copies the key beside the copy; restore on another host puts both back; a delivery verifies with the same secret", async () => {
    const receiver = startHookReceiver()
    try {
      const db = join(tempDir("restore-a"), "data", "encounterd.sqlite")
      const { key } = await databaseWithEndpoint(db, receiver)
      const originalKey = readFileSync(join(db, "..", "webhook-secret.key"), "utf8")

      // As documented (docs/operations.md, section 4).
      const backups = tempDir("restore-backups")
      const copy = join(backups, "encounterd-20261123T031500Z.sqlite")
      const backup = await runCli(["backup", "--out", copy], { db })
      expect(backup.code).toBe(0)
      expect(backup.json).toEqual({ backup: copy, db, integrity: "ok", webhook_secret_key: `${copy}.webhook-secret.key` })
      expect([mode(copy), mode(`${copy}.webhook-secret.key`)]).toEqual([0o600, 0o600])
      expect(readFileSync(`${copy}.webhook-secret.key`, "utf8")).toBe(originalKey)

      // Another host: an empty state directory.
      const state = join(tempDir("restore-b"), "var-lib-encounterd")
      mkdirSync(state, { mode: 0o700 })
      const restoredDb = join(state, "encounterd.sqlite")
      const restored = await runCli(["restore", "--from", copy], { db: restoredDb })
      expect(restored.code).toBe(0)
      expect(restored.json).toEqual({ restored: restoredDb, from: copy, integrity: "ok", webhook_secret_key: join(state, "webhook-secret.key") })
      expect(readdirSync(state).sort()).toEqual(["encounterd.sqlite", "webhook-secret.key"])
      expect([mode(restoredDb), mode(join(state, "webhook-secret.key"))]).toEqual([0o600, 0o600])

      const server = await startBinary({ db: restoredDb, args: HOOK_ARGS })
      try {
        expect(server.key).toBeUndefined()
        expect(server.stdoutLines.join("\n")).not.toContain('"warn"')
        expect((await api(server.url, key, "/api/encounters", { body: validPayload("enc-after-restore") })).status).toBe(202)
        const events = await allEvents(server.url, key, CREATED)
        expect(events.length).toBe(2)
        const after = events.find((e) => e.payload.external_id === "enc-after-restore")!
        expect(await waitFor(() => receiver.delivered.has(after.id), 15_000)).toBe(true)
        // Signed with the secret the receiver was given before the backup, checked by standardwebhooks.
        expect(receiver.unverified).toEqual([])
        expect(receiver.received.find((r) => r.id === after.id)?.body).toContain("enc-after-restore")
      } finally {
        expect(await server.stop()).toBe(0)
      }
      // No new key was made.
      expect(readFileSync(join(state, "webhook-secret.key"), "utf8")).toBe(originalKey)
    } finally {
      receiver.stop()
    }
  }, 60_000)

  test("serve refuses a database holding endpoints whose key file is missing, naming it, and makes no key", async () => {
    const receiver = startHookReceiver()
    try {
      const db = join(tempDir("restore-nokey-a"), "encounterd.sqlite")
      await databaseWithEndpoint(db, receiver)
      const copy = join(tempDir("restore-nokey-copy"), "copy.sqlite")
      expect((await runCli(["backup", "--out", copy], { db })).code).toBe(0)

      // The database alone put in place, as restores were done before the key was backed up.
      const state = tempDir("restore-nokey-b")
      const restoredDb = join(state, "encounterd.sqlite")
      copyFileSync(copy, restoredDb)
      const keyFile = join(state, "webhook-secret.key")
      const serve = await runCli(["serve", "--port", "0", ...HOOK_ARGS], { db: restoredDb })
      expect(serve.code).toBe(1)
      expect(serve.stderr).toContain(`encounterd: Webhook secret key ${keyFile}: is missing, and the database holds webhook signing secrets`)
      expect(serve.stderr).toContain("<copy>.webhook-secret.key")
      expect(serve.stdout).not.toContain("listening")
      expect(existsSync(keyFile)).toBe(false)

      // The CLI's webhook commands make no key either.
      const create = await runCli(["webhooks", "create", "--workspace", "default", "--url", receiver.url, "--webhook-allow-private"], { db: restoredDb })
      expect([create.code, create.stdout]).toEqual([1, ""])
      expect(create.stderr).toContain(keyFile)
      expect(existsSync(keyFile)).toBe(false)

      // Putting the key back is all it takes.
      copyFileSync(`${copy}.webhook-secret.key`, keyFile)
      const server = await startBinary({ db: restoredDb, args: HOOK_ARGS })
      expect(await server.stop()).toBe(0)
    } finally {
      receiver.stop()
    }
  }, 60_000)

  test("restore never replaces: an existing database, another key, a file that is not a copy; nothing is left behind", async () => {
    const source = join(tempDir("restore-refuse-a"), "encounterd.sqlite")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db: source })).code).toBe(0)
    writeFileSync(join(source, "..", "webhook-secret.key"), `${Buffer.alloc(32, 7).toString("base64")}\n`, { mode: 0o600 })
    const copy = join(tempDir("restore-refuse-copy"), "copy.sqlite")
    expect((await runCli(["backup", "--out", copy], { db: source })).code).toBe(0)

    const taken = tempDir("restore-refuse-taken")
    const db = join(taken, "encounterd.sqlite")
    writeFileSync(db, "the current database")
    const existing = await runCli(["restore", "--from", copy], { db })
    expect([existing.code, existing.stderr]).toEqual([1, expect.stringContaining("restore never replaces a database")])
    expect(readFileSync(db, "utf8")).toBe("the current database")

    const otherKey = tempDir("restore-refuse-key")
    writeFileSync(join(otherKey, "webhook-secret.key"), `${Buffer.alloc(32, 9).toString("base64")}\n`, { mode: 0o600 })
    const keyed = await runCli(["restore", "--from", copy], { db: join(otherKey, "encounterd.sqlite") })
    expect([keyed.code, keyed.stderr]).toEqual([1, expect.stringContaining("holds another key than the copy's")])
    expect(readdirSync(otherKey)).toEqual(["webhook-secret.key"])

    const notACopy = join(tempDir("restore-refuse-junk"), "junk.sqlite")
    writeFileSync(notACopy, "x".repeat(8192))
    const target = tempDir("restore-refuse-target")
    const junk = await runCli(["restore", "--from", notACopy], { db: join(target, "encounterd.sqlite") })
    expect([junk.code, junk.stderr]).toEqual([1, expect.stringContaining("nothing was restored")])
    expect(readdirSync(target)).toEqual([])

    expect((await runCli(["restore"], { db: join(target, "encounterd.sqlite") })).code).toBe(2)
  })
})
