import { createHash } from "node:crypto"
import { Effect, Either, Option } from "effect"
import { commit } from "./commit.js"
import { type ClearinghouseConnectionRecord, PickupNotFound } from "../domain/clearinghouse-connection.js"
import { type ClearinghousePickupRecord, type PickupStatus } from "../domain/clearinghouse-transfers.js"
import type { WorkspaceId } from "../domain/ids.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, type Step, update } from "../ports/write.js"
import type { RemoteFile } from "../sftp/client.js"
import { findConnection } from "./sftp-connections.js"
import { derivedId } from "./sftp-uploads.js"
import { importX12File } from "./x12-import.js"
import { parsePaced, runWithPauses } from "./x12-import-read.js"

/** What identifies a file seen in the inbound folder: a file changed in place is seen anew. */
export const seenKey = (f: RemoteFile): string => `${f.name}|${f.size}|${f.mtime}`

/** Payers kept per connection for the quiet-payer alert. */
const MAX_PAYERS = 500

/**
 * The pickup of a file listed in the inbound folder: the one recorded, or a new `pending` one.
 * Two instances recording it at once make one (unique key (connection, seen key)).
 */
export const seePickup = (c: ClearinghouseConnectionRecord, f: RemoteFile) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const id = derivedId(c.id, seenKey(f))
    for (;;) {
      const known = yield* storage.get("clearinghouse_pickups", c.workspace_id, id)
      if (Option.isSome(known)) return known.value
      const now = isoTime((yield* Clock).now())
      const pickup: ClearinghousePickupRecord = {
        id,
        workspace_id: c.workspace_id,
        connection_id: c.id,
        file_name: f.name,
        size: f.size,
        mtime: f.mtime,
        seen_key: seenKey(f),
        status: "pending",
        sha256: null,
        file_id: null,
        kind: null,
        error: null,
        attempts: 0,
        archived_at: null,
        created_at: now,
        updated_at: now
      }
      const result = yield* commit({
        operation: "seeClearinghousePickup",
        steps: [insert("clearinghouse_pickups", pickup, { unique: "seen", refuse: () => "seen" as const })]
      })
      if (result._tag === "Written") return pickup
    }
  })

/** One more attempt of a pending pickup, counted before its download (compare-and-set on the count read). */
export const startPickupAttempt = (p: ClearinghousePickupRecord) =>
  Effect.gen(function* () {
    const now = isoTime((yield* Clock).now())
    const result = yield* commit({
      operation: "startClearinghousePickup",
      steps: [update("clearinghouse_pickups", p.id, { workspace_id: p.workspace_id, status: "pending", attempts: p.attempts }, { attempts: p.attempts + 1, updated_at: now }, "stale" as const)]
    })
    return result._tag === "Written" ? Option.some({ ...p, attempts: p.attempts + 1 }) : Option.none()
  })

/** A download that failed short of the import (a dropped connection): the pickup stays pending, with why. */
export const pickupInterrupted = (p: ClearinghousePickupRecord, error: string) =>
  Effect.gen(function* () {
    const now = isoTime((yield* Clock).now())
    yield* commit({
      operation: "recordClearinghousePickup",
      steps: [update("clearinghouse_pickups", p.id, { workspace_id: p.workspace_id, status: "pending" }, { error, updated_at: now })]
    })
  })

/** A file that cannot be imported (too large, malformed): kept on the server, not tried again until it changes or is retried. */
export const pickupFailed = (p: ClearinghousePickupRecord, error: string, sha256: string | null) =>
  Effect.gen(function* () {
    const now = isoTime((yield* Clock).now())
    yield* commit({
      operation: "recordClearinghousePickup",
      steps: [update("clearinghouse_pickups", p.id, { workspace_id: p.workspace_id, status: "pending" }, { status: "failed", error, sha256, updated_at: now })]
    })
  })

/** What an imported file names that the connection keeps: the batches a 999 acknowledges, an 835's payer. */
const followUps = (c: ClearinghouseConnectionRecord, bytes: Uint8Array, at: string) =>
  Effect.gen(function* () {
    const read = yield* runWithPauses(parsePaced(new TextDecoder().decode(bytes)))
    if (Either.isLeft(read)) return []
    const parsed = read.right.parsed
    const storage = yield* Storage
    const steps: Array<Step<never>> = []
    if (parsed.kind === "999") {
      for (const g of parsed.groups) {
        if (!/^\d{1,9}$/.test(g.group_control_number)) continue
        const batch = yield* storage.findX12BatchByGroup(c.workspace_id, Number(g.group_control_number))
        if (Option.isNone(batch)) continue
        const upload = derivedId(c.id, batch.value.id)
        steps.push(update("clearinghouse_uploads", upload, { workspace_id: c.workspace_id, acknowledged_at: null }, { acknowledged_at: at }))
      }
    } else if (parsed.kind === "835") {
      const current = yield* storage.get("clearinghouse_connections", c.workspace_id, c.id)
      if (Option.isSome(current)) {
        const payers: Record<string, { readonly name: string; readonly at: string }> = { ...current.value.payers }
        for (const payment of parsed.payments) {
          const key = payment.payer.id ?? payment.payer.name
          if (key !== "") payers[key] = { name: payment.payer.name || key, at }
        }
        const kept = Object.fromEntries(Object.entries(payers).sort(([, a], [, b]) => (a.at < b.at ? 1 : -1)).slice(0, MAX_PAYERS))
        steps.push(update("clearinghouse_connections", c.id, { workspace_id: c.workspace_id }, { payers: kept }))
      }
    }
    return steps
  })

/**
 * Imports a downloaded file exactly as `POST /api/x12/inbound` does (the same rule, the same
 * duplicate rules), then records the pickup: `imported`, `duplicate` (the same interchange or bytes
 * came before, nothing applied), or `failed` with the reader's error (the file is stored as
 * `invalid` like the route stores it). A storage failure leaves the pickup pending for the next poll;
 * the import's own duplicate rule then keeps a second run from applying anything twice.
 */
export const importPickup = (c: ClearinghouseConnectionRecord, p: ClearinghousePickupRecord, bytes: Uint8Array) =>
  Effect.gen(function* () {
    const sha256 = createHash("sha256").update(bytes).digest("hex")
    const imported = yield* Effect.either(importX12File({ workspace_id: c.workspace_id, body: bytes, content_type: "application/edi-x12", key_id: null }))
    if (Either.isLeft(imported)) {
      const e = imported.left
      if (e._tag === "StorageError") return yield* e
      yield* pickupFailed(p, e.message, sha256)
      return "failed" satisfies PickupStatus
    }
    const result = imported.right
    const now = isoTime((yield* Clock).now())
    // An earlier attempt of this very pickup imported it and stopped before recording so: it is this pickup's import.
    const status: PickupStatus = result.duplicate && p.attempts <= 1 ? "duplicate" : "imported"
    yield* commit({
      operation: "recordClearinghousePickup",
      steps: [
        update(
          "clearinghouse_pickups",
          p.id,
          { workspace_id: p.workspace_id, status: "pending" },
          { status, file_id: result.id, kind: result.kind, sha256, error: null, updated_at: now }
        ),
        ...(status === "imported" ? yield* followUps(c, bytes, now) : [])
      ]
    })
    return status
  })

/** The file was moved to the archive folder. */
export const pickupArchived = (p: ClearinghousePickupRecord) =>
  Effect.gen(function* () {
    const now = isoTime((yield* Clock).now())
    yield* commit({
      operation: "recordClearinghousePickup",
      steps: [update("clearinghouse_pickups", p.id, { workspace_id: p.workspace_id, archived_at: null }, { archived_at: now, updated_at: now })]
    })
  })

/** A failed pickup is tried again at the next poll (while the file is still there, unchanged). */
export const retryPickup = (ws: WorkspaceId, connectionId: string, pickupId: string) =>
  Effect.gen(function* () {
    const connection = yield* findConnection(ws, connectionId)
    const storage = yield* Storage
    const found = yield* storage.get("clearinghouse_pickups", ws, pickupId)
    if (Option.isNone(found) || found.value.connection_id !== connection.id) return yield* new PickupNotFound({ id: pickupId })
    const p = found.value
    if (p.status !== "failed") return p
    const now = isoTime((yield* Clock).now())
    const set = { status: "pending" as const, attempts: 0, updated_at: now }
    yield* commit({ operation: "retryClearinghousePickup", steps: [update("clearinghouse_pickups", p.id, { workspace_id: ws, status: "failed" }, set)] })
    return { ...p, ...set }
  })
