import { createHash } from "node:crypto"
import { Effect } from "effect"
import { commit } from "./commit.js"
import type { ClearinghouseConnectionRecord } from "../domain/clearinghouse-connection.js"
import type { ClearinghouseUploadRecord } from "../domain/clearinghouse-transfers.js"
import type { X12BatchRecord } from "../domain/x12-exchange.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, update } from "../ports/write.js"
import { backoff, SftpSettings } from "../sftp/settings.js"

/**
 * A record id made from what identifies it (a connection and a batch, a connection and a file
 * seen): the same thing always has the same id, so it is read by id before it is made, and its
 * unique key refuses a second one made at the same time elsewhere.
 */
export const derivedId = (...parts: ReadonlyArray<string>): string => {
  const h = createHash("sha256").update(parts.join("\u0000")).digest("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

/** The name a batch's file takes in the outbound folder: its kind, control number and id (unique per batch). */
export const uploadFileName = (kind: string, control: number, batchId: string): string =>
  `${kind.toLowerCase()}-${String(control).padStart(9, "0")}-${batchId}.x12`

/** Batches read per page when looking for new ones, and pages at most per look. */
const PAGE = 50
const MAX_PAGES = 20
/** Batches may commit out of their `created_at` order this much (a batch built just before another commits after it). */
const COMMIT_SKEW_MS = 60_000

const uploadOf = (c: ClearinghouseConnectionRecord, b: X12BatchRecord, now: string): ClearinghouseUploadRecord => ({
  id: derivedId(c.id, b.id),
  workspace_id: c.workspace_id,
  connection_id: c.id,
  batch_kind: "837P",
  batch_id: b.id,
  group_control_number: b.group_control_number,
  file_name: uploadFileName("837P", b.interchange_control_number, b.id),
  size: b.file.byteLength,
  sha256: createHash("sha256").update(b.file).digest("hex"),
  status: "pending",
  attempts: 0,
  last_error: null,
  next_attempt_at: now,
  uploaded_at: null,
  acknowledged_at: null,
  created_at: now
})

/**
 * Queues an upload of every 837P batch created since the connection's `uploads_since` that has
 * none yet, newest first, stopping once past the batches already queued (allowing for batches
 * committed out of order). Another instance queueing the same batch at once is refused by the
 * unique key (connection, batch). Answers how many it queued.
 */
export const queueNewBatches = (c: ClearinghouseConnectionRecord) =>
  Effect.gen(function* () {
    if (!c.settings.upload_batches || c.uploads_since === null) return 0
    const storage = yield* Storage
    const now = isoTime((yield* Clock).now())
    let queued = 0
    let stopBefore: number | undefined
    let position: { readonly dir: "next"; readonly key: ReadonlyArray<string | number> } | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const rows = yield* storage.page("x12_batches", c.workspace_id, { position, limit: PAGE })
      for (const b of rows.slice(0, PAGE)) {
        const created = Date.parse(b.created_at)
        if (b.created_at < c.uploads_since || (stopBefore !== undefined && created < stopBefore)) return queued
        const known = yield* storage.get("clearinghouse_uploads", c.workspace_id, derivedId(c.id, b.id))
        if (known._tag === "Some") {
          stopBefore ??= created - COMMIT_SKEW_MS
          continue
        }
        const result = yield* commit({
          operation: "queueClearinghouseUpload",
          steps: [insert("clearinghouse_uploads", uploadOf(c, b, now), { unique: "batch", refuse: () => "queued" as const })]
        })
        if (result._tag === "Written") queued++
      }
      const last = rows[PAGE - 1]
      if (rows.length <= PAGE || last === undefined) return queued
      position = { dir: "next", key: [last.created_at, last.id] }
    }
    return queued
  })

/** The connection's pending uploads due now, oldest first (at most 100 read). */
export const dueUploads = (c: ClearinghouseConnectionRecord) =>
  Effect.gen(function* () {
    const now = isoTime((yield* Clock).now())
    const rows = yield* (yield* Storage).page("clearinghouse_uploads", c.workspace_id, { where: { connection_id: c.id, status: "pending" }, limit: 100 })
    return rows
      .slice(0, 100)
      .filter((u) => u.next_attempt_at !== null && u.next_attempt_at <= now)
      .reverse()
  })

/** The upload is on the server under its name: recorded with its time and attempt. */
export const uploadSucceeded = (u: ClearinghouseUploadRecord) =>
  Effect.gen(function* () {
    const now = isoTime((yield* Clock).now())
    yield* commit({
      operation: "recordClearinghouseUpload",
      steps: [
        update(
          "clearinghouse_uploads",
          u.id,
          { workspace_id: u.workspace_id, status: "pending" },
          { status: "uploaded", uploaded_at: now, attempts: u.attempts + 1, last_error: null, next_attempt_at: null }
        )
      ]
    })
  })

/** The upload failed: its error, and its next attempt after a backoff that doubles with each one. */
export const uploadFailed = (u: ClearinghouseUploadRecord, error: string) =>
  Effect.gen(function* () {
    const settings = yield* SftpSettings
    const nowMs = (yield* Clock).now()
    const attempts = u.attempts + 1
    yield* commit({
      operation: "recordClearinghouseUpload",
      steps: [
        update(
          "clearinghouse_uploads",
          u.id,
          { workspace_id: u.workspace_id, status: "pending" },
          { attempts, last_error: error, next_attempt_at: isoTime(nowMs + backoff(settings, attempts)) }
        )
      ]
    })
  })
