import { Effect, Option } from "effect"
import type { WorkspaceId } from "../domain/ids.js"
import { STATUS_CHECK_DEFAULTS, type StatusCheckRecord, toStatusCheck } from "../domain/status-check.js"
import { ClaimNotSubmitted } from "../domain/status-check-settings.js"
import { ControlNumbersExhausted } from "../domain/x12-exchange-errors.js"
import { NEVER_SUBMITTED } from "../domain/status-check.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, type Step, update } from "../ports/write.js"
import { InvalidExportRequest } from "../x12/errors.js"
import { build276 } from "../x12/export-276/build.js"
import { requireClearinghouse } from "./clearinghouse-settings.js"
import { commit } from "./commit.js"
import { inquiryOf } from "./status-check-inquiry.js"
import { claimOf, newCheck } from "./status-checks.js"

/** Most inquiries in one 276 file. */
export const MAX_INQUIRIES_PER_FILE = 500
const MAX_CONTROL = 999_999_999

/** What a caller does with the built file before the checks are marked sent (the CLI writes it there). */
export type Before276Commit<E, R> = (text: string) => Effect.Effect<void, E, R>

/**
 * The `file` transport's send: the workspace's queued `file` checks (with `claimIds`, only those
 * claims', and a new check for each named claim that has none queued) as one 276 interchange. In
 * one write the control number counter moves on (shared with the 837P batches, compare-and-set)
 * and every check goes from `queued` to `sent`; `beforeCommit` runs on the file just before.
 * Nothing queued: `InvalidExportRequest` on `claims`.
 */
export const export276 = <E = never, R = never>(ws: WorkspaceId, claimIds?: ReadonlyArray<string>, beforeCommit?: Before276Commit<E, R>) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    const ids = yield* Ids
    if (claimIds !== undefined && (claimIds.length === 0 || claimIds.length > MAX_INQUIRIES_PER_FILE)) {
      return yield* new InvalidExportRequest({ field: "claims", reason: `must name 1 to ${MAX_INQUIRIES_PER_FILE} claims` })
    }
    for (;;) {
      const settings = yield* requireClearinghouse(ws)
      const followUp = yield* storage.get("status_check_settings", ws, ws)
      const windowDays = Option.match(followUp, { onNone: () => STATUS_CHECK_DEFAULTS.window_days, onSome: (r) => r.settings.window_days })
      const queued = (yield* storage.page("status_checks", ws, { where: { status: "queued" }, limit: MAX_INQUIRIES_PER_FILE })).filter(
        (c) => c.transport === "file" && (claimIds === undefined || claimIds.includes(c.claim_id))
      )
      const now = clock.now()
      const at = isoTime(now)
      const fresh: Array<StatusCheckRecord> = []
      for (const id of claimIds ?? []) {
        if (queued.some((c) => c.claim_id === id)) continue
        const { claim } = yield* claimOf(ws, id)
        if (NEVER_SUBMITTED.includes(claim.status)) return yield* new ClaimNotSubmitted({ claim_id: claim.id, status: claim.status })
        const checkId = ids.next()
        fresh.push(newCheck(ws, checkId, claim.id, "file", at, "request", checkId))
      }
      const checks = [...queued, ...fresh].sort((a, b) => (a.created_at < b.created_at ? -1 : 1))
      if (checks.length === 0) return yield* new InvalidExportRequest({ field: "claims", reason: "no status check is queued for the file transport" })
      const control = settings.last_control_number + 1
      if (control > MAX_CONTROL) return yield* new ControlNumbersExhausted()
      const inquiries = []
      for (const c of checks) inquiries.push(inquiryOf(c, yield* claimOf(ws, c.claim_id), windowDays))
      const built = yield* build276({
        settings: settings.settings,
        interchange_control_number: control,
        group_control_number: control,
        created_at: new Date(now),
        inquiries
      })
      if (beforeCommit !== undefined) yield* beforeCommit(built.text)
      const steps: Array<Step<"stale">> = [
        update("clearinghouse_settings", settings.id, { workspace_id: ws, last_control_number: settings.last_control_number }, { last_control_number: control }, "stale"),
        ...fresh.map((c) => insert<"status_checks", "stale">("status_checks", { ...c, status: "sent", sent_at: at })),
        ...queued.map((c) => update<"status_checks", "stale">("status_checks", c.id, { workspace_id: ws, status: "queued" }, { status: "sent", sent_at: at }, "stale"))
      ]
      const result = yield* commit<"stale">({ operation: "export276", steps })
      if (result._tag === "Written") {
        return { text: built.text, interchange_control_number: control, checks: checks.map((c) => toStatusCheck({ ...c, status: "sent", sent_at: at })) }
      }
    }
  })
