import { Effect, Option } from "effect"
import { allowedTransitions } from "../domain/claim-status.js"
import { meaningOfCauseCode } from "../domain/code-meanings.js"
import { totalChargeCents } from "../domain/encounter-summary.js"
import { ClaimId, type WorkspaceId } from "../domain/ids.js"
import type { Task } from "../domain/task.js"
import { Storage } from "../ports/storage.js"
import { getTask, listTasks, type TaskQuery } from "./tasks.js"

/** Open tasks counted at most (a queue longer than this is counted as "more than"). */
const COUNTED = 2000

/**
 * The work queue's counts of open tasks by type and category, read page by page along the status
 * index up to `COUNTED` tasks (`complete` false past that).
 */
export const countOpenTasks = (ws: WorkspaceId) =>
  Effect.gen(function* () {
    const counts = new Map<string, { type: string; category: string; count: number }>()
    let token: string | undefined
    let seen = 0
    for (;;) {
      const page = yield* listTasks(ws, { status: "open", limit: 100, page_token: token })
      for (const t of page.items) {
        const key = `${t.type}|${t.category}`
        const c = counts.get(key) ?? { type: t.type, category: t.category, count: 0 }
        c.count++
        counts.set(key, c)
      }
      seen += page.items.length
      if (page.next_page_token === null) return { counts: [...counts.values()], complete: true }
      if (seen >= COUNTED) return { counts: [...counts.values()], complete: false }
      token = page.next_page_token
    }
  })

/** A task with what the queue shows beside it: its claim's status, billed amount and external id. */
const withClaim = (ws: WorkspaceId, t: Task) =>
  Effect.gen(function* () {
    const found = yield* (yield* Storage).findClaim(ws, ClaimId.make(t.claim_id))
    if (Option.isNone(found)) return { ...t, claim_status: null, billed_cents: null, allowed_transitions: [] }
    const { encounter, claim } = found.value
    return { ...t, claim_status: claim.status, billed_cents: totalChargeCents(encounter.payload.service_lines), allowed_transitions: allowedTransitions(claim.status) }
  })

/** A page of the queue, each task with its claim's status and amount. */
export const taskBoardPage = (ws: WorkspaceId, query: TaskQuery) =>
  Effect.gen(function* () {
    const page = yield* listTasks(ws, query)
    const items = yield* Effect.forEach(page.items, (t) => withClaim(ws, t))
    return { ...page, items }
  })

/** One task as its page shows it: its claim, and each code of its causes with its meaning. */
export const taskBoardDetail = (ws: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    const task = yield* withClaim(ws, yield* getTask(ws, id))
    const codes = [...new Set(task.causes.flatMap((c) => c.codes))]
    return { ...task, meanings: codes.map((code) => ({ code, text: meaningOfCauseCode(code)?.text ?? null })) }
  })
