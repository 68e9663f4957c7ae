import { describe, expect, test } from "bun:test"
import { Effect, Either } from "effect"
import { allowedTransitions, type ClaimStatus, ClaimStatuses, ClaimTransitions } from "../../lib/domain/claim-status.js"
import { memoryLayer } from "../../lib/layers.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { validPayload } from "../support/payloads.js"
import { runWith } from "../support/run.js"

/** The shortest path of allowed moves from draft to each status, to bring a claim there first. */
const pathTo = (target: ClaimStatus): ReadonlyArray<ClaimStatus> => {
  const queue: Array<ReadonlyArray<ClaimStatus>> = [["draft"]]
  const seen = new Set<ClaimStatus>(["draft"])
  while (queue.length > 0) {
    const path = queue.shift()!
    const last = path[path.length - 1]!
    if (last === target) return path
    for (const next of allowedTransitions(last)) {
      if (!seen.has(next)) {
        seen.add(next)
        queue.push([...path, next])
      }
    }
  }
  throw new Error(`${target} is unreachable from draft`)
}

describe("the transition table, pair by pair", () => {
  test("every status is reachable from draft", () => {
    for (const s of ClaimStatuses) expect(pathTo(s)[0]).toBe("draft")
  })

  test("for every (from, to): the move succeeds exactly when the table allows it, with exactly one event", () =>
    runWith(
      memoryLayer,
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("t", "T")).id
        let n = 0
        for (const from of ClaimStatuses) {
          for (const to of ClaimStatuses) {
            const created = yield* createEncounter(ws, validPayload(`enc-${n++}`))
            const claimId = (yield* getEncounter(ws, created.encounter_id)).claim.id
            for (const step of pathTo(from).slice(1)) yield* changeClaimStatus(ws, claimId, step)
            const result = yield* Effect.either(changeClaimStatus(ws, claimId, to))
            const allowed = ClaimTransitions[from].includes(to)
            const after = yield* allEvents(ws)
            const mine = after.filter((e) => e.payload.claim_id === claimId)
            const steps = pathTo(from).length - 1
            if (from === to) {
              expect(Either.isRight(result) && result.right.changed).toBe(false)
              expect(mine.length).toBe(steps)
            } else if (allowed) {
              expect(Either.isRight(result) && result.right.claim.status).toBe(to)
              expect(mine.length).toBe(steps + 1)
              expect(mine[mine.length - 1]!.payload).toMatchObject({ previous_status: from, status: to })
            } else {
              expect(Either.isLeft(result) && result.left._tag).toBe("InvalidTransition")
              expect(mine.length).toBe(steps)
            }
          }
        }
      })
    ))
})

const allEvents = (ws: Parameters<typeof listEvents>[0]) =>
  Effect.gen(function* () {
    const out: Array<{ payload: Record<string, unknown> }> = []
    let token: string | undefined
    do {
      const page = yield* listEvents(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"], limit: 100, page_token: token })
      out.push(...page.items)
      token = page.next_page_token ?? undefined
    } while (token !== undefined)
    return out
  })
