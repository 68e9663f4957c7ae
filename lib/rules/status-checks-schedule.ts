import { Effect } from "effect"
import type { EncounterWithClaim } from "../domain/encounter.js"
import type { WorkspaceId } from "../domain/ids.js"
import { AWAITING_PAYER, type StatusCheckRecord, type StoredStatusCheckSettings } from "../domain/status-check.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert } from "../ports/write.js"
import { commit } from "./commit.js"
import { newCheck } from "./status-checks.js"
import { pause } from "./x12-import-read.js"

const DAY_MS = 86_400_000
/** Claims read per page of a status's work list (oldest in the status first). */
const PAGE = 200

/** The follow-up rounds of a claim in its current status: `claim|status_changed_at|n`. */
export const roundPrefix = (claim: EncounterWithClaim["claim"]) => `${claim.id}|${claim.status_changed_at}|`

/**
 * When a claim's next follow-up is due (epoch ms), or undefined when none is: the first
 * `first_after_days` after it entered its status, then `every_days` after its latest check, at
 * most `max_checks` follow-ups in that status; none while a check of it waits to be sent.
 */
export const nextFollowUp = (
  claim: EncounterWithClaim["claim"],
  checks: ReadonlyArray<StatusCheckRecord>,
  settings: Pick<StoredStatusCheckSettings, "first_after_days" | "every_days" | "max_checks">
): { readonly due: number; readonly round: number } | undefined => {
  const since = claim.status_changed_at
  const current = checks.filter((c) => c.created_at >= since)
  if (current.some((c) => c.status === "queued")) return undefined
  const rounds = current.filter((c) => c.origin === "schedule" && c.round_key.startsWith(roundPrefix(claim))).length
  if (rounds >= settings.max_checks) return undefined
  const latest = current.reduce<string | undefined>((max, c) => (max === undefined || c.created_at > max ? c.created_at : max), undefined)
  const due = latest === undefined ? Date.parse(since) + settings.first_after_days * DAY_MS : Date.parse(latest) + settings.every_days * DAY_MS
  return { due, round: rounds + 1 }
}

/**
 * Makes the workspace's due follow-ups (see `nextFollowUp`) for the claims awaiting the payer,
 * oldest in their status first. A round is unique per claim, status and number, so instances
 * deciding the same follow-up at once insert it once. Answers how many this call made.
 */
export const scheduleFollowUps = (ws: WorkspaceId, settings: StoredStatusCheckSettings) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const ids = yield* Ids
    const now = (yield* Clock).now()
    const enteredBefore = isoTime(now - settings.first_after_days * DAY_MS)
    let made = 0
    for (const status of AWAITING_PAYER) {
      let position: { readonly dir: "next"; readonly key: ReadonlyArray<string | number> } | undefined
      for (;;) {
        const rows = yield* storage.listClaimWork(ws, { status, by: "status_changed_at", descending: false, position, limit: PAGE })
        const page = rows.slice(0, PAGE)
        for (const { claim } of page) {
          if (claim.status_changed_at > enteredBefore) return made
          const checks = yield* storage.page("status_checks", ws, { where: { claim_id: claim.id }, limit: settings.max_checks + 10 })
          const next = nextFollowUp(claim, checks, settings)
          if (next === undefined || next.due > now) continue
          const id = ids.next()
          const check = newCheck(ws, id, claim.id, settings.transport, isoTime(now), "schedule", `${roundPrefix(claim)}${next.round}`)
          const result = yield* commit({
            operation: "scheduleStatusCheck",
            steps: [insert("status_checks", check, { unique: "round", refuse: () => "taken" as const })]
          })
          if (result._tag === "Written") made++
        }
        const last = page[page.length - 1]
        if (rows.length <= PAGE || last === undefined) return made
        position = { dir: "next", key: [last.claim.status_changed_at, last.encounter.id] }
        yield* pause
      }
    }
    return made
  })
