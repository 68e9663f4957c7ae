import { Effect, Option } from "effect"
import type { ClearinghouseConnectionRecord, ConnectionAlert } from "../domain/clearinghouse-connection.js"
import { Clock, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { SftpSettings } from "../sftp/settings.js"

/** Uploads read for the 999 alert: the connection's newest. */
const UPLOADS_CHECKED = 100

/**
 * A connection's alerts, worked out when read:
 * - `no_999_for_batch`: a batch uploaded more than `ackAlertMs` ago (24 h) that no 999 picked up
 *   on the connection has named, and none of whose claims has moved on from `submitted_to_payer`
 *   or been taken into adjudication (a 999 or 277CA imported by hand did that, or a person);
 * - `no_835_from_payer`: a payer whose last 835 on the connection came in more than
 *   `payerAlertMs` ago (30 days).
 * Only the connection's 100 newest uploads are looked at.
 */
export const connectionAlerts = (c: ClearinghouseConnectionRecord) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const settings = yield* SftpSettings
    const nowMs = (yield* Clock).now()
    const alerts: Array<ConnectionAlert> = []
    const uploads = yield* storage.page("clearinghouse_uploads", c.workspace_id, { where: { connection_id: c.id, status: "uploaded" }, limit: UPLOADS_CHECKED })
    for (const u of uploads.slice(0, UPLOADS_CHECKED)) {
      if (u.acknowledged_at !== null || u.uploaded_at === null || Date.parse(u.uploaded_at) > nowMs - settings.ackAlertMs) continue
      if (u.batch_kind !== "837P") continue
      const batch = yield* storage.get("x12_batches", c.workspace_id, u.batch_id)
      if (Option.isNone(batch)) continue
      const claims = yield* storage.findClaims(c.workspace_id, "id", batch.value.claim_ids.slice(0, 1000))
      if (claims.some(({ claim }) => claim.status !== "submitted_to_payer" || claim.processing_started_at !== null)) continue
      alerts.push({
        code: "no_999_for_batch",
        subject: u.batch_id,
        since: isoTime(Date.parse(u.uploaded_at) + settings.ackAlertMs),
        message: `No 999 for batch ${u.batch_id} (interchange ${u.group_control_number ?? "?"}) uploaded at ${u.uploaded_at}`
      })
    }
    for (const [payer, seen] of Object.entries(c.payers)) {
      if (Date.parse(seen.at) > nowMs - settings.payerAlertMs) continue
      alerts.push({
        code: "no_835_from_payer",
        subject: payer,
        since: isoTime(Date.parse(seen.at) + settings.payerAlertMs),
        message: `No 835 from ${seen.name} since ${seen.at}`
      })
    }
    return alerts
  })
