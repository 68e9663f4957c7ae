import { Effect, Either, Option, ParseResult, Schema } from "effect"
import { FieldIssue, type StorageError } from "../domain/errors.js"
import { type WorkspaceId } from "../domain/ids.js"
import { WorkQueueSettings, type WorkQueueSettingsRecord } from "../domain/task.js"
import { InvalidTaskChange } from "../domain/task-errors.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, update } from "../ports/write.js"
import { commit } from "./commit.js"

const DAY_MS = 86_400_000
/** Claims read per page of the sweep of one workspace. */
const SWEEP_PAGE = 100
/** Follow-ups one sweep of a workspace makes at most; the next sweep takes the rest. */
const SWEEP_MAX = 1000

export const getWorkQueueSettings = (ws: WorkspaceId) =>
  Effect.map(
    Effect.flatMap(Storage, (s) => s.get("work_queue_settings", ws, ws)),
    (found): WorkQueueSettings => ({ follow_up_after_days: Option.isSome(found) ? found.value.follow_up_after_days : null })
  )

const decodeSettings = Schema.decodeUnknownEither(WorkQueueSettings, { errors: "all", onExcessProperty: "error" })

/** Sets the workspace's work queue settings (the follow-up delay in days, 1 to 365, or null for none). */
export const putWorkQueueSettings = (ws: WorkspaceId, input: unknown) =>
  Effect.gen(function* () {
    const decoded = decodeSettings(input)
    if (Either.isLeft(decoded)) {
      return yield* new InvalidTaskChange({
        errors: ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map(
          (i) => new FieldIssue({ path: i.path.join(".") || "body", message: i._tag === "Missing" ? "is required" : i.message })
        )
      })
    }
    const storage = yield* Storage
    const at = isoTime((yield* Clock).now())
    for (;;) {
      const found = yield* storage.get("work_queue_settings", ws, ws)
      const result = yield* commit<"raced">({
        operation: "putWorkQueueSettings",
        steps: [
          Option.isSome(found)
            ? update("work_queue_settings", ws, { workspace_id: ws }, { follow_up_after_days: decoded.right.follow_up_after_days, updated_at: at })
            : insert(
                "work_queue_settings",
                { id: ws, workspace_id: ws, follow_up_after_days: decoded.right.follow_up_after_days, updated_at: at, lease_owner: null, lease_expires_at: null },
                { unique: "workspace", refuse: () => "raced" as const }
              )
        ]
      })
      if (result._tag === "Written") return decoded.right
    }
  })

/**
 * Makes a follow-up task for each claim of the workspace that has waited for the payer (sent,
 * `submitted_to_payer`, with no move since) longer than the workspace's setting, unless it has an
 * open one. The sweep of a workspace holds a lease on its settings row (a compare-and-set, as the
 * webhook worker claims a delivery), so of several instances one sweeps it at a time; the task's
 * open key makes two follow-ups of one claim impossible even without it. Answers how many it made.
 */
export const sweepFollowUps = (owner: string, leaseMs = 60_000): Effect.Effect<number, StorageError, Storage | Clock | Ids> =>
  Effect.gen(function* () {
    const storage = yield* Storage
    let made = 0
    for (const w of yield* storage.listWorkspaces()) {
      const found = yield* storage.get("work_queue_settings", w.id, w.id)
      if (Option.isNone(found) || found.value.follow_up_after_days === null) continue
      if (!(yield* lease(found.value, owner, leaseMs))) continue
      made += yield* sweepWorkspace(w.id, found.value.follow_up_after_days)
    }
    return made
  })

/** Takes the workspace's sweep lease if it is free or expired (compare-and-set on the lease read). */
const lease = (s: WorkQueueSettingsRecord, owner: string, leaseMs: number) =>
  Effect.gen(function* () {
    const now = (yield* Clock).now()
    if (s.lease_owner !== null && s.lease_owner !== owner && s.lease_expires_at !== null && s.lease_expires_at > isoTime(now)) return false
    const result = yield* commit<"leased">({
      operation: "leaseFollowUpSweep",
      steps: [
        update(
          "work_queue_settings",
          s.id,
          { workspace_id: s.workspace_id, lease_owner: s.lease_owner, lease_expires_at: s.lease_expires_at },
          { lease_owner: owner, lease_expires_at: isoTime(now + leaseMs) },
          "leased" as const
        )
      ]
    })
    return result._tag === "Written"
  })

const sweepWorkspace = (ws: WorkspaceId, days: number) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const now = (yield* Clock).now()
    const cutoff = isoTime(now - days * DAY_MS)
    let made = 0
    let position: { readonly dir: "next"; readonly key: ReadonlyArray<string | number> } | undefined
    for (let seen = 0; seen < SWEEP_MAX; seen += SWEEP_PAGE) {
      const rows = yield* storage.listClaimWork(ws, { status: "submitted_to_payer", by: "status_changed_at", descending: false, position, limit: SWEEP_PAGE })
      const waiting = rows.slice(0, SWEEP_PAGE).filter((r) => r.claim.status_changed_at < cutoff)
      for (const { encounter, claim } of waiting) {
        if ((yield* storage.findOpenTasksOfClaim(ws, claim.id)).some((t) => t.type === "claim_follow_up")) continue
        const at = isoTime(now)
        yield* commit({
          operation: "raiseFollowUp",
          steps: [],
          causes: [
            {
              workspace_id: ws,
              claim_id: claim.id,
              encounter_id: encounter.id,
              external_id: encounter.external_id,
              type: "claim_follow_up",
              category: "no_response",
              kind: "no_response",
              at,
              codes: [],
              text: `no answer from the payer ${days} day(s) after it was sent (${claim.status_changed_at})`
            }
          ]
        })
        made++
      }
      const last = rows[Math.min(rows.length, SWEEP_PAGE) - 1]
      if (waiting.length < Math.min(rows.length, SWEEP_PAGE) || rows.length <= SWEEP_PAGE || last === undefined) break
      position = { dir: "next", key: [last.claim.status_changed_at, last.encounter.id] }
    }
    return made
  })

/** How often the server sweeps for follow-ups by default. */
export const FOLLOW_UP_SWEEP_MS = 60_000

/**
 * The server's follow-up sweeper: sweeps every `everyMs` until interrupted, under one owner name
 * per process (its leases). A sweep that fails (the database unreachable) is reported to
 * `onError` and tried again at the next turn; what it made before failing stays made.
 */
export const runFollowUpSweeper = (owner: string, everyMs = FOLLOW_UP_SWEEP_MS, onError: (e: StorageError) => void = () => {}) =>
  Effect.forever(
    Effect.zipRight(
      Effect.catchTag(sweepFollowUps(owner, Math.max(everyMs, 60_000)), "StorageError", (e) => Effect.sync(() => onError(e))),
      Effect.sleep(everyMs)
    )
  )
