import assert from "node:assert/strict"
import { Effect, Either, Option } from "effect"
import type { ClearinghouseConnectionRecord } from "../../lib/domain/clearinghouse-connection.js"
import type { Clock, Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { createConnection, deleteConnection, getConnection, listConnections, updateConnection } from "../../lib/rules/sftp-connections.js"
import { seePickup } from "../../lib/rules/sftp-pickups.js"
import { queueNewBatches } from "../../lib/rules/sftp-uploads.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { runSession } from "../../lib/sftp/session.js"
import { open } from "../../lib/webhooks/secret-box.js"
import { ephemeralWebhookSettings, WebhookSettings } from "../../lib/webhooks/settings.js"
import { clearinghouseSettingsInput, exportablePayload } from "./clearinghouse.contract.js"

type Services = Storage | Clock | Ids

export const connectionInput = {
  name: "Example clearinghouse",
  // Nothing listens on port 1: a session fails at once, with connect_failed.
  host: "127.0.0.1",
  port: 1,
  username: "clinic",
  password: "correct horse battery staple",
  host_key_fingerprint: `SHA256:${"A".repeat(43)}`,
  outbound_dir: "/outbound",
  inbound_dir: "/inbound"
}

/** Clearinghouse connections over one adapter: the record, its sealed secret, its lists, and the keys that keep two instances apart. */
export const clearinghouseConnectionsContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  test: (name: string, body: () => Promise<void>) => void
) => {
  const withKey = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, ephemeralWebhookSettings())
  const record = (ws: ClearinghouseConnectionRecord["workspace_id"], id: string) =>
    Effect.map(Effect.flatMap(Storage, (s) => s.get("clearinghouse_connections", ws, id)), Option.getOrThrow)

  test("clearinghouse connections: created with defaults and the secret sealed, listed, changed, deleted; problems named by field", () =>
    run(
      withKey(
        Effect.gen(function* () {
          const ws = (yield* createWorkspace("clinic-c", "C")).id
          const other = (yield* createWorkspace("clinic-d", "D")).id
          const created = yield* createConnection(ws, connectionInput)
          assert.deepEqual(
            { port: created.port, poll_every: created.poll_every, upload_batches: created.upload_batches, enabled: created.enabled, archive_dir: created.archive_dir, auth_method: created.auth_method },
            { port: 1, poll_every: "5m", upload_batches: true, enabled: true, archive_dir: null, auth_method: "password" }
          )
          assert.ok(!JSON.stringify(created).includes(connectionInput.password))
          const stored = yield* record(ws, created.id)
          assert.ok(!stored.secret.includes(connectionInput.password))
          const key = Option.getOrThrow((yield* WebhookSettings).key)
          assert.deepEqual(open(stored.secret, key, created.id), Either.right(connectionInput.password))
          // Sealed for this connection alone.
          assert.ok(Either.isLeft(open(stored.secret, key, "another")))

          const bad = yield* Effect.either(createConnection(ws, { ...connectionInput, poll_every: "0s", host_key_fingerprint: "SHA256:short", colour: "red" }))
          assert.ok(Either.isLeft(bad) && bad.left._tag === "InvalidConnectionInput")
          assert.deepEqual(bad.left.errors.map((e) => e.path).sort(), ["colour", "host_key_fingerprint", "poll_every"])
          const both = yield* Effect.either(createConnection(ws, { ...connectionInput, private_key: "-----BEGIN OPENSSH PRIVATE KEY-----\nx" }))
          assert.ok(Either.isLeft(both) && both.left._tag === "InvalidConnectionInput")
          assert.deepEqual(both.left.errors.map((e) => e.path), ["password"])
          const none = yield* Effect.either(createConnection(ws, { ...connectionInput, password: undefined }))
          assert.ok(Either.isLeft(none))
          for (const poll of ["1s", "24h", "90m"]) assert.equal((yield* createConnection(ws, { ...connectionInput, poll_every: poll })).poll_every, poll)
          for (const poll of ["25h", "500ms", "5", "1d"]) assert.ok(Either.isLeft(yield* Effect.either(createConnection(ws, { ...connectionInput, poll_every: poll }))), poll)

          const page = yield* listConnections(ws, { limit: 2 })
          assert.equal(page.items.length, 2)
          assert.notEqual(page.next_page_token, null)
          assert.equal((yield* listConnections(other)).items.length, 0)
          assert.ok(Either.isLeft(yield* Effect.either(getConnection(other, created.id))))

          const changed = yield* updateConnection(ws, created.id, { archive_dir: "/archive", enabled: false, password: "new password" })
          assert.deepEqual([changed.archive_dir, changed.enabled, changed.next_poll_at], ["/archive", false, null])
          assert.deepEqual(open((yield* record(ws, created.id)).secret, key, created.id), Either.right("new password"))
          const refused = yield* Effect.either(updateConnection(ws, created.id, { port: 70000, name: "" }))
          assert.ok(Either.isLeft(refused) && refused.left._tag === "InvalidConnectionInput")
          assert.ok(Either.isLeft(yield* Effect.either(deleteConnection(other, created.id))))
          yield* deleteConnection(ws, created.id)
          assert.ok(Either.isLeft(yield* Effect.either(getConnection(ws, created.id))))
        })
      )
    ))

  test("clearinghouse connections: a batch is queued once however often or concurrently looked for; a file seen once; one session holds the lease", () =>
    run(
      withKey(
        Effect.gen(function* () {
          const ws = (yield* createWorkspace("clinic-e", "E")).id
          yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
          const connection = yield* createConnection(ws, connectionInput)
          const claims: Array<string> = []
          for (const pcn of ["PCNC1", "PCNC2"]) {
            const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
            claims.push((yield* getEncounter(ws, created.encounter_id)).claim.id)
          }
          yield* createX12Batch(ws, [claims[0]!])
          const stored = yield* record(ws, connection.id)
          // Every batch is the connection's to upload (the clock stands still: all were made at one time).
          const later = { ...stored, uploads_since: "1970-01-01T00:00:00.000Z" }
          yield* createX12Batch(ws, [claims[1]!])
          const counts = yield* Effect.all([queueNewBatches(later), queueNewBatches(later), queueNewBatches(later)], { concurrency: "unbounded" })
          assert.equal(counts.reduce((a, b) => a + b, 0), 2)
          assert.equal(yield* queueNewBatches(later), 0)
          const uploads = yield* (yield* Storage).page("clearinghouse_uploads", ws, { where: { connection_id: connection.id }, limit: 10 })
          assert.equal(uploads.length, 2)
          assert.ok(uploads.every((u) => u.status === "pending" && /^837p-00000000\d-/.test(u.file_name)))

          const file = { name: "a.x12", size: 10, mtime: 1_700_000_000 }
          // Its id is derived from what identifies it: two keys are taken at once, and neither may fail a racer.
          const seen = yield* Effect.all(Array.from({ length: 6 }, () => seePickup(stored, file)), { concurrency: "unbounded" })
          assert.equal(new Set(seen.map((p) => p.id)).size, 1)
          assert.equal((yield* (yield* Storage).page("clearinghouse_pickups", ws, { where: { connection_id: connection.id }, limit: 10 })).length, 1)
          // The same name, changed: another pickup.
          assert.notEqual((yield* seePickup(stored, { ...file, size: 11 })).id, seen[0]!.id)

          // Two instances claim the same connection read: one session runs (and fails to connect), the other finds it taken.
          const runs = yield* Effect.all([runSession(stored, "instance-a"), runSession(stored, "instance-b")], { concurrency: "unbounded" })
          assert.deepEqual(runs.map((r) => r.outcome).sort(), ["claimed-elsewhere", "failed"])
          const after = yield* record(ws, connection.id)
          assert.deepEqual([after.lease_owner, after.last_error_code, after.failures], [null, "connect_failed", 1])
          assert.notEqual(after.retry_at, null)
        })
      )
    ))
}
