import assert from "node:assert/strict"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { connect, createServer, type Server } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, test } from "bun:test"
import { Effect, Layer, Option } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { ClaimId, type WorkspaceId } from "../../lib/domain/ids.js"
import { liveServices } from "../../lib/layers.js"
import { Storage } from "../../lib/ports/storage.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { connectionActivity } from "../../lib/rules/sftp-activity.js"
import { createConnection, getConnection, updateConnection } from "../../lib/rules/sftp-connections.js"
import { retryPickup } from "../../lib/rules/sftp-pickups.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { listX12Files } from "../../lib/rules/x12-reads.js"
import { DEFAULT_SFTP_SETTINGS, SftpSettings } from "../../lib/sftp/settings.js"
import { runDueSessions } from "../../lib/sftp/worker.js"
import { ephemeralWebhookSettings } from "../../lib/webhooks/settings.js"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { startSftpServer, type SftpTestServer } from "../support/sftp-server.js"
import { runWith } from "../support/run.js"
import { make277, make835, make999 } from "../support/x12-files.js"

let server: SftpTestServer
beforeAll(async () => {
  server = await startSftpServer()
})
afterAll(async () => {
  await server.stop()
})

const fastSettings = { ...DEFAULT_SFTP_SETTINGS, connectTimeoutMs: 5000, readTimeoutMs: 2000, totalTimeoutMs: 20_000, backoffMs: 1000 }
const layer = (settings = fastSettings) => Layer.mergeAll(MemoryStorage.layer, liveServices, ephemeralWebhookSettings(), Layer.succeed(SftpSettings, settings))

const setup = (pcns: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const ws = (yield* createWorkspace(`clinic-${pcns.join("").toLowerCase()}`, "Clinic")).id
    yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
    const claims: Record<string, string> = {}
    for (const pcn of pcns) {
      const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
      claims[pcn] = (yield* getEncounter(ws, created.encounter_id)).claim.id
    }
    return { ws, claims }
  })

const connectionInput = (extra: Record<string, unknown> = {}) => ({
  name: "Example clearinghouse",
  host: server.host,
  port: server.port,
  username: server.keyUser,
  private_key: server.privateKey,
  host_key_fingerprint: server.fingerprint,
  outbound_dir: server.remote.outbound,
  inbound_dir: server.remote.inbound,
  archive_dir: server.remote.archive,
  poll_every: "1s",
  ...extra
})

const claimOf = (ws: WorkspaceId, claimId: string) =>
  Effect.map(
    Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(claimId))),
    (found) => Option.getOrThrow(found).claim
  )
const statusOf = (ws: WorkspaceId, claimId: string) => Effect.map(claimOf(ws, claimId), (c) => c.status)

/** Every poll due now is made at the next run. */
const pollNow = (ws: WorkspaceId, id: string) => updateConnection(ws, id, { poll_every: "2s" }).pipe(Effect.zipRight(updateConnection(ws, id, { poll_every: "1s" })))

const clean = () => {
  for (const dir of Object.values(server.local)) for (const f of readdirSync(dir)) Bun.spawnSync(["rm", "-f", join(dir, f)])
}

describe("SFTP drop and pickup against OpenSSH", () => {
  test("a batch is dropped under its own name (written as a temporary name, then renamed), byte for byte, and recorded", () =>
    runWith(
      layer(),
      Effect.gen(function* () {
        clean()
        const { ws, claims } = yield* setup(["PCN0001"])
        const connection = yield* createConnection(ws, connectionInput())
        const batch = yield* createX12Batch(ws, [claims.PCN0001!])
        const [run] = yield* runDueSessions("instance-a")
        assert.equal(run?.outcome, "succeeded")
        assert.equal(run?.uploaded, 1)
        const name = `837p-000000001-${batch.id}.x12`
        assert.deepEqual(readdirSync(server.local.outbound), [name])
        const stored = Option.getOrThrow(yield* (yield* Storage).get("x12_batches", ws, batch.id))
        assert.deepEqual(new Uint8Array(readFileSync(join(server.local.outbound, name))), stored.file)
        const activity = yield* connectionActivity(ws, connection.id)
        const upload = activity.items.find((a) => a.type === "upload")
        assert.ok(upload !== undefined && upload.type === "upload")
        assert.equal(upload.status, "uploaded")
        assert.equal(upload.file_name, name)
        assert.equal(upload.size, stored.file.byteLength)
        assert.equal(upload.sha256, new Bun.CryptoHasher("sha256").update(stored.file).digest("hex"))
        assert.equal(upload.attempts, 1)
        const after = yield* getConnection(ws, connection.id)
        assert.notEqual(after.last_success_at, null)
        assert.equal(after.pending_uploads, 0)
        // Nothing more to do: the next run uploads nothing again.
        yield* pollNow(ws, connection.id)
        const [again] = yield* runDueSessions("instance-a")
        assert.equal(again?.uploaded, 0)
        assert.equal(readdirSync(server.local.outbound).length, 1)
      })
    ))

  test("999, 277CA and 835 picked up drive statuses, are archived once recorded, and are not imported again", () =>
    runWith(
      layer(),
      Effect.gen(function* () {
        clean()
        const { ws, claims } = yield* setup(["PCN0001", "PCN0002"])
        const connection = yield* createConnection(ws, connectionInput())
        const batch = yield* createX12Batch(ws, [claims.PCN0001!, claims.PCN0002!])
        yield* runDueSessions("instance-a")
        server.dropInbound("a-999.x12", make999(501, batch.group_control_number, [["0001", "A"]]))
        server.dropInbound("b-277.x12", make277(502, [{ pcn: "PCN0001", category: "A2" }, { pcn: "PCN0002", category: "A7", text: "INVALID NPI" }]))
        yield* pollNow(ws, connection.id)
        const [run] = yield* runDueSessions("instance-a")
        assert.equal(run?.outcome, "succeeded")
        assert.equal(run?.picked_up, 2)
        // A2: accepted into adjudication (still with the payer); A7: rejected.
        assert.notEqual((yield* claimOf(ws, claims.PCN0001!)).processing_started_at, null)
        assert.equal(yield* statusOf(ws, claims.PCN0002!), "rejected")
        assert.deepEqual(readdirSync(server.local.inbound), [])
        assert.deepEqual(readdirSync(server.local.archive).sort(), ["a-999.x12", "b-277.x12"])

        server.dropInbound("c-835.x12", make835(503, "CHK1", "20261201", [{ pcn: "PCN0001", charge: 12500, paid: 10000, patient: 2500 }]))
        // The same 277CA under another name: the import's duplicate rule, nothing applied again.
        server.dropInbound("d-277-again.x12", make277(502, [{ pcn: "PCN0001", category: "A2" }, { pcn: "PCN0002", category: "A7", text: "INVALID NPI" }]))
        yield* pollNow(ws, connection.id)
        const [second] = yield* runDueSessions("instance-a")
        assert.equal(second?.picked_up, 2)
        assert.equal(yield* statusOf(ws, claims.PCN0001!), "paid")
        const files = yield* listX12Files(ws, {})
        assert.deepEqual(files.items.map((f) => f.kind).sort(), ["277CA", "835", "999"])
        const activity = yield* connectionActivity(ws, connection.id)
        const pickups = activity.items.filter((a) => a.type === "pickup")
        assert.deepEqual(pickups.map((p) => (p.type === "pickup" ? `${p.file_name}:${p.status}` : "")).sort(), [
          "a-999.x12:imported",
          "b-277.x12:imported",
          "c-835.x12:imported",
          "d-277-again.x12:duplicate"
        ])
        assert.ok(pickups.every((p) => p.type === "pickup" && p.archived_at !== null))
        // The 999 named the batch; the 835's payer is on record.
        const uploads = yield* (yield* Storage).page("clearinghouse_uploads", ws, { where: { connection_id: connection.id }, limit: 10 })
        assert.notEqual(uploads[0]?.acknowledged_at, null)
        const record = Option.getOrThrow(yield* (yield* Storage).get("clearinghouse_connections", ws, connection.id))
        assert.deepEqual(Object.values(record.payers).map((p) => p.name), ["EXAMPLE HEALTH PLAN"])
      })
    ))

  test("a file that will not import is kept and recorded, not retried until retried by hand", () =>
    runWith(
      layer(),
      Effect.gen(function* () {
        clean()
        const { ws } = yield* setup(["PCN0009"])
        const connection = yield* createConnection(ws, connectionInput())
        server.dropInbound("broken.x12", "ISA*this is not X12~")
        const [run] = yield* runDueSessions("instance-a")
        assert.equal(run?.pickup_failures, 1)
        assert.deepEqual(readdirSync(server.local.inbound), ["broken.x12"])
        const [pickup] = (yield* connectionActivity(ws, connection.id)).items
        assert.ok(pickup?.type === "pickup" && pickup.status === "failed" && pickup.error !== null)
        yield* pollNow(ws, connection.id)
        const [again] = yield* runDueSessions("instance-a")
        assert.equal(again?.pickup_failures, 0)
        assert.equal((yield* listX12Files(ws, {})).items.length, 1)
        yield* retryPickup(ws, connection.id, pickup.id)
        yield* pollNow(ws, connection.id)
        const [retried] = yield* runDueSessions("instance-a")
        assert.equal(retried?.pickup_failures, 1)
        assert.equal((yield* listX12Files(ws, {})).items.length, 2)
      })
    ))

  test("a host key other than the pinned one is refused, and the error is recorded on the connection", () =>
    runWith(
      layer(),
      Effect.gen(function* () {
        clean()
        const { ws, claims } = yield* setup(["PCN0003"])
        const other = `SHA256:${"A".repeat(43)}`
        const connection = yield* createConnection(ws, connectionInput({ host_key_fingerprint: other }))
        yield* createX12Batch(ws, [claims.PCN0003!])
        server.dropInbound("x-999.x12", make999(601, 1, [["0001", "A"]]))
        const [run] = yield* runDueSessions("instance-a")
        assert.equal(run?.outcome, "failed")
        assert.equal(run?.error?.code, "fingerprint_mismatch")
        const shown = yield* getConnection(ws, connection.id)
        assert.equal(shown.last_error_code, "fingerprint_mismatch")
        assert.match(shown.last_error ?? "", new RegExp(server.fingerprint.replace(/[+/]/g, "\\$&")))
        assert.notEqual(shown.retry_at, null)
        assert.equal(shown.pending_uploads, 1)
        assert.deepEqual(readdirSync(server.local.outbound), [])
        assert.deepEqual(readdirSync(server.local.inbound), ["x-999.x12"])
        // Backing off: nothing is tried before retry_at.
        assert.deepEqual(yield* runDueSessions("instance-a"), [])
      })
    ))

  test("a wrong password is refused; the right one works", () =>
    runWith(
      layer(),
      Effect.gen(function* () {
        clean()
        const pw = server.password
        if (pw === undefined) return
        const { ws } = yield* setup(["PCN0004"])
        const { private_key: _, ...base } = connectionInput({ username: pw.user })
        const connection = yield* createConnection(ws, { ...base, password: "not-the-password" })
        const [run] = yield* runDueSessions("instance-a")
        assert.equal(run?.error?.code, "auth_failed")
        assert.ok(!JSON.stringify(yield* getConnection(ws, connection.id)).includes("not-the-password"))
        yield* updateConnection(ws, connection.id, { password: pw.password })
        const [ok] = yield* runDueSessions("instance-a")
        assert.equal(ok?.outcome, "succeeded")
        assert.equal((yield* getConnection(ws, connection.id)).last_error, null)
      })
    ))

  test("a file imported before a restart cut its recording short is recorded, not applied again", () =>
    runWith(
      layer(),
      Effect.gen(function* () {
        clean()
        const { ws, claims } = yield* setup(["PCN0001"])
        const connection = yield* createConnection(ws, connectionInput())
        const batch = yield* createX12Batch(ws, [claims.PCN0001!])
        yield* runDueSessions("instance-a")
        const text = make277(701, [{ pcn: "PCN0001", category: "A2" }])
        server.dropInbound("e-277.x12", text)
        // The first instance imported the file and stopped before recording the pickup.
        const { importX12File } = yield* Effect.promise(() => import("../../lib/rules/x12-import.js"))
        const { seePickup, startPickupAttempt } = yield* Effect.promise(() => import("../../lib/rules/sftp-pickups.js"))
        const record = Option.getOrThrow(yield* (yield* Storage).get("clearinghouse_connections", ws, connection.id))
        const stat = readdirSync(server.local.inbound).map((name) => {
          const s = Bun.file(join(server.local.inbound, name))
          return { name, size: s.size, mtime: Math.floor(s.lastModified / 1000) }
        })[0]!
        yield* startPickupAttempt(yield* seePickup(record, stat))
        yield* importX12File({ workspace_id: ws, body: new TextEncoder().encode(text), content_type: "application/edi-x12" })
        yield* pollNow(ws, connection.id)
        const [run] = yield* runDueSessions("instance-b")
        assert.equal(run?.picked_up, 1)
        const [pickup] = (yield* connectionActivity(ws, connection.id)).items.filter((a) => a.type === "pickup")
        assert.ok(pickup?.type === "pickup" && pickup.status === "imported" && pickup.attempts === 2)
        assert.equal((yield* listX12Files(ws, {})).items.length, 1)
        assert.notEqual((yield* claimOf(ws, claims.PCN0001!)).processing_started_at, null)
        assert.ok(existsSync(join(server.local.archive, "e-277.x12")))
        void batch
      })
    ))

  test("a connection the server drops mid-download leaves nothing imported; the retry imports the file once", async () => {
    // A relay in front of sshd that, once armed, kills the sshd sessions after 512 KiB has come through.
    let armed = true
    let relayed = 0
    const proxy: Server = createServer((client) => {
      const upstream = connect({ host: server.host, port: server.port })
      upstream.on("data", (chunk: Buffer) => {
        relayed += chunk.length
        if (armed && relayed > 512 * 1024) {
          armed = false
          server.killSessions()
        }
        client.write(chunk)
      })
      client.on("data", (chunk: Buffer) => upstream.write(chunk))
      const end = () => {
        client.destroy()
        upstream.destroy()
      }
      upstream.on("close", end)
      client.on("close", end)
      upstream.on("error", end)
      client.on("error", end)
    })
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
    const address = proxy.address()
    const proxyPort = typeof address === "object" && address !== null ? address.port : 0
    try {
      await runWith(
        layer(),
        Effect.gen(function* () {
          clean()
          const { ws } = yield* setup(["PCN0010"])
          const connection = yield* createConnection(ws, connectionInput({ port: proxyPort }))
          const text = make277(901, Array.from({ length: 25_000 }, (_, i) => ({ pcn: i === 0 ? "PCN0010" : `NOCLAIM${i}`, category: "A2" })))
          server.dropInbound("big-277.x12", text)
          const [cut] = yield* runDueSessions("instance-a")
          assert.equal(cut?.outcome, "failed")
          assert.equal(cut?.error?.code, "connection_lost")
          assert.equal(armed, false)
          assert.equal((yield* listX12Files(ws, {})).items.length, 0)
          const [pending] = (yield* connectionActivity(ws, connection.id)).items
          assert.ok(pending?.type === "pickup" && pending.status === "pending" && pending.error !== null)
          assert.deepEqual(readdirSync(server.local.inbound), ["big-277.x12"])
          // The retry after the backoff (made due now): a clean download and one import.
          yield* pollNow(ws, connection.id)
          relayed = 0
          const [retry] = yield* runDueSessions("instance-a")
          assert.equal(retry?.outcome, "succeeded")
          assert.equal(retry?.picked_up, 1)
          const files = (yield* listX12Files(ws, {})).items
          assert.equal(files.length, 1)
          assert.equal(files[0]?.sha256, new Bun.CryptoHasher("sha256").update(text).digest("hex"))
          const [done] = (yield* connectionActivity(ws, connection.id)).items
          assert.ok(done?.type === "pickup" && done.status === "imported" && done.attempts === 2)
          assert.deepEqual(readdirSync(server.local.archive), ["big-277.x12"])
          assert.equal((yield* getConnection(ws, connection.id)).last_error, null)
        })
      )
    } finally {
      proxy.close()
    }
  }, 60_000)

  test("a failed upload is recorded and retried after its backoff; the batch shows it meanwhile", () =>
    runWith(
      layer(),
      Effect.gen(function* () {
        clean()
        const { ws, claims } = yield* setup(["PCN0011"])
        const connection = yield* createConnection(ws, connectionInput({ outbound_dir: `${server.remote.outbound}/missing` }))
        const batch = yield* createX12Batch(ws, [claims.PCN0011!])
        const [failed] = yield* runDueSessions("instance-a")
        assert.deepEqual([failed?.outcome, failed?.upload_failures], ["succeeded", 1])
        const [upload] = (yield* connectionActivity(ws, connection.id)).items
        assert.ok(upload?.type === "upload" && upload.status === "pending" && upload.attempts === 1 && upload.last_error !== null && upload.next_attempt_at !== null)
        assert.equal((yield* getConnection(ws, connection.id)).pending_uploads, 1)
        // Not before its backoff.
        yield* updateConnection(ws, connection.id, { outbound_dir: server.remote.outbound, poll_every: "1h" })
        const [early] = yield* runDueSessions("instance-a")
        assert.equal(early?.uploaded, 0)
        yield* Effect.sleep(1100)
        const [later] = yield* runDueSessions("instance-a")
        assert.equal(later?.uploaded, 1)
        assert.deepEqual(readdirSync(server.local.outbound), [`837p-000000001-${batch.id}.x12`])
        const [done] = (yield* connectionActivity(ws, connection.id)).items
        assert.ok(done?.type === "upload" && done.status === "uploaded" && done.attempts === 2)
      })
    ))

  test("a file larger than the inbound limit is not downloaded; it is recorded as failed and kept", () =>
    runWith(
      layer({ ...fastSettings, maxFileBytes: 100 }),
      Effect.gen(function* () {
        clean()
        const { ws } = yield* setup(["PCN0012"])
        const connection = yield* createConnection(ws, connectionInput())
        server.dropInbound("large.x12", make277(990, [{ pcn: "PCN0012", category: "A2" }]))
        const [run] = yield* runDueSessions("instance-a")
        assert.equal(run?.pickup_failures, 1)
        const [pickup] = (yield* connectionActivity(ws, connection.id)).items
        assert.ok(pickup?.type === "pickup" && pickup.status === "failed" && /^file_too_large/.test(pickup.error ?? ""))
        assert.equal((yield* listX12Files(ws, {})).items.length, 0)
        assert.deepEqual(readdirSync(server.local.inbound), ["large.x12"])
      })
    ))

  test("alerts: a batch with no 999 past the set time until one comes; a payer quiet past the set time", () =>
    runWith(
      layer({ ...fastSettings, ackAlertMs: 0, payerAlertMs: 0 }),
      Effect.gen(function* () {
        clean()
        const { ws, claims } = yield* setup(["PCN0013"])
        const connection = yield* createConnection(ws, connectionInput())
        const batch = yield* createX12Batch(ws, [claims.PCN0013!])
        yield* runDueSessions("instance-a")
        const waiting = (yield* getConnection(ws, connection.id)).alerts ?? []
        assert.deepEqual(waiting.map((a) => [a.code, a.subject]), [["no_999_for_batch", batch.id]])
        server.dropInbound("ack.x12", make999(991, batch.group_control_number, [["0001", "A"]]))
        server.dropInbound("remit.x12", make835(992, "CHK9", "20261201", [{ pcn: "NOCLAIM", charge: 100, paid: 100 }]))
        yield* pollNow(ws, connection.id)
        yield* runDueSessions("instance-a")
        const after = (yield* getConnection(ws, connection.id)).alerts ?? []
        // The 999 answered the batch; the payer of the 835 is now "quiet" at once (the set time is 0 here).
        assert.deepEqual(after.map((a) => [a.code, a.subject]), [["no_835_from_payer", "EXHP1"]])
      })
    ))
})
