import assert from "node:assert/strict"
import { Effect, Either } from "effect"
import { ClaimId, EventId, type WorkspaceId } from "../../lib/domain/ids.js"
import type { Task } from "../../lib/domain/task.js"
import { Clock, type Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { changeClaimStatus, statusUpdated } from "../../lib/rules/change-claim-status.js"
import { statusMove } from "../../lib/rules/claim-writes.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { commit } from "../../lib/rules/commit.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { putWorkQueueSettings, sweepFollowUps } from "../../lib/rules/task-follow-ups.js"
import { getTask, listRenderedTasks, listTasks, updateTask } from "../../lib/rules/tasks.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { envelope, make277, make835 } from "../support/x12-files.js"
import { clearinghouseSettingsInput, exportablePayload } from "./clearinghouse.contract.js"

type Services = Storage | Clock | Ids
type ManualClock = ReturnType<typeof Clock.manual>
const T0 = Date.parse("2026-11-01T00:00:00.000Z")
const DAY = 86_400_000
const encoder = new TextEncoder()

/**
 * The work queue on one adapter: each cause makes one task in its own write, a repeat adds to it,
 * the claim's next move closes it, and racing writers make one task.
 */
export const tasksContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>, clock?: ManualClock) => Promise<A>,
  test: (name: string, body: () => Promise<void>) => void
) => {
  const setup = (slug: string, pcns: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const ws = (yield* createWorkspace(slug, slug)).id
      yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
      const claims: Record<string, string> = {}
      for (const pcn of pcns) {
        const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
        claims[pcn] = (yield* getEncounter(ws, created.encounter_id)).claim.id
      }
      return { ws, claims }
    })
  /** A workspace with three claims sent and then denied, rejected and paid incorrectly: a task each (due in 14, 2 and 5 days). */
  const threeTasks = (slug: string, prefix: string) =>
    Effect.gen(function* () {
      const { ws, claims } = yield* setup(slug, [`${prefix}1`, `${prefix}2`, `${prefix}3`])
      for (const [n, to] of [[1, "denied"], [2, "rejected"], [3, "paid_incorrectly"]] as const) {
        yield* changeClaimStatus(ws, claims[`${prefix}${n}`]!, "submitted_to_payer")
        yield* changeClaimStatus(ws, claims[`${prefix}${n}`]!, to)
      }
      return ws
    })
  const upload = (ws: WorkspaceId, text: string) => importX12File({ workspace_id: ws, body: encoder.encode(text), content_type: "application/edi-x12" })
  const tasksOf = (ws: WorkspaceId, claimId?: string) => Effect.map(listTasks(ws, { claim_id: claimId }), (p) => p.items)
  const openOf = (ws: WorkspaceId, claimId: string) => Effect.map(tasksOf(ws, claimId), (ts) => ts.filter((t) => t.status === "open"))
  const taskEvents = (ws: WorkspaceId) =>
    Effect.map(listEvents(ws, { event_types: ["ExternalApi.Task.Created", "ExternalApi.Task.Updated"] }), (p) =>
      p.items.map((e) => [e.event_type.slice("ExternalApi.Task.".length), e.payload.task_type, e.payload.status])
    )

  test("tasks: a 999 rejection makes a rejection_resolution in the import's write, its category from the IK4 error", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("tasks-999", ["PCNT1", "PCNT2"])
        const batch = yield* createX12Batch(ws, [claims.PCNT1!, claims.PCNT2!])
        assert.deepEqual(yield* tasksOf(ws), [])
        const text = envelope(801, "FA", "005010X231A1", "999", [
          `AK1*HC*${batch.group_control_number}*005010X222A1`,
          "AK2*837*0001*005010X222A1",
          "IK3*NM1*12*2010BA*8",
          "IK4*9*67*7*XYZ",
          "IK5*R*5",
          "AK9*R*1*1*0"
        ])
        const file = yield* upload(ws, text)
        const tasks = yield* tasksOf(ws)
        assert.equal(tasks.length, 2)
        for (const t of tasks) {
          assert.equal(t.type, "rejection_resolution")
          assert.equal(t.category, "invalid_code")
          assert.equal(t.status, "open")
          assert.equal(t.cause.kind, "999")
          assert.equal(t.cause.file_id, file.id)
          assert.deepEqual(t.cause.codes, ["ik4:7", "ik3:8", "ik5:5"])
          assert.match(t.cause.text, /NM1 at segment 12 \(loop 2010BA\).*Invalid Code Value/)
          assert.doesNotMatch(t.cause.text, /XYZ/)
        }
        assert.deepEqual((yield* taskEvents(ws)).map((e) => e[0]), ["Created", "Created"])
        // The same file again is a duplicate: nothing more.
        yield* upload(ws, text)
        assert.equal((yield* tasksOf(ws)).length, 2)
      })
    ))

  test("tasks: a refused write makes no task (the task is part of its cause's write)", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("tasks-atomic", ["PCNA1"])
        const found = yield* Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(claims.PCNA1!)))
        assert.ok(found._tag === "Some")
        const { encounter, claim } = found.value
        // Read as submitted while it is a draft: the compare-and-set refuses the move, and its task with it.
        const stale = { ...claim, status: "submitted_to_payer" }
        const at = new Date(T0).toISOString()
        const result = yield* commit(statusMove(ws, encounter, stale, "denied", at, statusUpdated(ws, EventId.make("00000000-0000-7000-8000-000000000001"), encounter, stale, "denied", at)))
        assert.equal(result._tag, "Refused")
        assert.deepEqual(yield* tasksOf(ws), [])
        assert.deepEqual(yield* taskEvents(ws), [])
      })
    ))

  test("tasks: a 277CA rejection's category comes from its STC status code; a repeat adds to the task; a new claim sent closes it", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("tasks-277", ["PCNR1"])
        yield* createX12Batch(ws, [claims.PCNR1!])
        const file = yield* upload(ws, make277(811, [{ pcn: "PCNR1", category: "A7", text: "NPI INVALID" }]).replace(":20:PR", ":562:85"))
        const [task] = yield* tasksOf(ws, claims.PCNR1)
        assert.ok(task !== undefined)
        assert.deepEqual([task.type, task.category, task.cause.kind, task.cause.file_id], ["rejection_resolution", "provider_identifier", "277CA", file.id])
        assert.deepEqual(task.cause.codes, ["stc_status:562", "stc_category:A7"])
        assert.match(task.cause.text, /Entity's National Provider Identifier/)
        // The payer says it again: the same task, one more cause.
        yield* upload(ws, make277(812, [{ pcn: "PCNR1", category: "A3" }]))
        const again = yield* tasksOf(ws, claims.PCNR1)
        assert.equal(again.length, 1)
        assert.equal(again[0]!.causes.length, 2)
        // Corrected and sent again: the claim moved on, the task is done with the reason.
        yield* changeClaimStatus(ws, claims.PCNR1!, "submitted_to_payer")
        const closed = yield* getTask(ws, task.id)
        assert.deepEqual([closed.status, closed.closed_reason], ["done", "claim moved to submitted_to_payer"])
        assert.deepEqual(yield* taskEvents(ws), [
          ["Created", "rejection_resolution", "open"],
          ["Updated", "rejection_resolution", "open"],
          ["Updated", "rejection_resolution", "done"]
        ])
      })
    ))

  test("tasks: an 835 denial by CARC, a line denied on a paid claim, and a reversal to review", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("tasks-835", ["PCND1", "PCND2"])
        yield* createX12Batch(ws, [claims.PCND1!, claims.PCND2!])
        const file = yield* upload(
          ws,
          make835(821, "CHK821", "20261124", [
            { pcn: "PCND1", charge: 12500, paid: 0, adjustments: [["PR", "1", 500], ["CO", "29", 12000]] },
            {
              pcn: "PCND2",
              charge: 20000,
              paid: 9000,
              lines: [
                { code: "99213", charge: 10000, paid: 9000, adjustments: [["CO", "45", 1000]] },
                { code: "93000", charge: 10000, paid: 0, adjustments: [["CO", "97", 10000]] }
              ]
            }
          ])
        )
        const [denial] = yield* tasksOf(ws, claims.PCND1)
        assert.ok(denial !== undefined)
        assert.deepEqual([denial.type, denial.category, denial.cause.kind, denial.cause.file_id, denial.cause.check_id], ["denial_resolution", "timely_filing", "835", file.id, "CHK821"])
        assert.deepEqual(denial.cause.codes, ["carc:CO-29", "carc:PR-1"])
        const [line] = yield* tasksOf(ws, claims.PCND2)
        assert.ok(line !== undefined)
        assert.deepEqual([line.type, line.category], ["denial_resolution", "bundled"])
        assert.match(line.cause.text, /line 93000 denied/)
        // The payer reverses the paid claim: its line task closes (moved on), a payment review opens with both causes.
        yield* upload(ws, make835(822, "CHK822", "20261125", [{ pcn: "PCND2", charge: -20000, paid: -9000 }]).replace("CLP*PCND2*1*", "CLP*PCND2*22*"))
        const after = yield* tasksOf(ws, claims.PCND2)
        const review = after.find((t) => t.type === "payment_review")
        assert.ok(review !== undefined)
        assert.equal(review.category, "payment_review")
        assert.equal(review.causes.length, 2)
        assert.equal((yield* getTask(ws, line.id)).closed_reason, "claim moved to era_requires_review")
      })
    ))

  test("tasks: status moves through the API make, add to and close tasks, each change an event", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("tasks-api", ["PCNS1"])
        const c = claims.PCNS1!
        yield* changeClaimStatus(ws, c, "submitted_to_payer")
        yield* changeClaimStatus(ws, c, "denied", "payer letter: not covered")
        const [denial] = yield* openOf(ws, c)
        assert.ok(denial !== undefined)
        assert.deepEqual([denial.type, denial.category, denial.cause.kind, denial.cause.text], ["denial_resolution", "other", "status_change", "payer letter: not covered"])
        assert.notEqual(denial.cause.event_id, null)
        yield* changeClaimStatus(ws, c, "era_requires_review")
        yield* changeClaimStatus(ws, c, "paid_incorrectly")
        const open = yield* openOf(ws, c)
        assert.deepEqual(open.map((t) => [t.type, t.causes.length]), [["payment_review", 2]])
        assert.equal((yield* getTask(ws, denial.id)).closed_reason, "claim moved to era_requires_review")
        yield* changeClaimStatus(ws, c, "submitted_to_payer")
        assert.deepEqual(yield* openOf(ws, c), [])
        assert.deepEqual(yield* taskEvents(ws), [
          ["Created", "denial_resolution", "open"],
          ["Updated", "denial_resolution", "done"],
          ["Created", "payment_review", "open"],
          ["Updated", "payment_review", "open"],
          ["Updated", "payment_review", "done"]
        ])
      })
    ))

  test("tasks: changed by hand (assignee, note, done); reopened only while no other is open; another workspace's is not found", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("tasks-edit", ["PCNE1"])
        const other = (yield* createWorkspace("tasks-other", "O")).id
        const c = claims.PCNE1!
        yield* changeClaimStatus(ws, c, "submitted_to_payer")
        yield* changeClaimStatus(ws, c, "rejected")
        const [t] = yield* openOf(ws, c)
        assert.ok(t !== undefined)
        const changed = yield* updateTask(ws, t.id, { status: "in_progress", assignee: "dana", note: "calling the payer", due_at: "2026-12-01T00:00:00Z" }, "key-1")
        assert.deepEqual([changed.status, changed.assignee, changed.due_at, changed.notes.map((n) => [n.text, n.key_id])], [
          "in_progress",
          "dana",
          "2026-12-01T00:00:00.000Z",
          [["calling the payer", "key-1"]]
        ])
        assert.deepEqual((yield* listTasks(ws, { assignee: "dana" })).items.map((x) => x.id), [t.id])
        const done = yield* updateTask(ws, t.id, { status: "done" })
        assert.equal(done.status, "done")
        // A new rejection after a resend opens a new task; the old one cannot be reopened beside it.
        yield* changeClaimStatus(ws, c, "submitted_to_payer")
        yield* changeClaimStatus(ws, c, "rejected")
        const reopen = yield* Effect.either(updateTask(ws, t.id, { status: "open" }))
        assert.ok(Either.isLeft(reopen) && reopen.left._tag === "InvalidTaskChange")
        const bad = yield* Effect.either(updateTask(ws, t.id, { note: "" }))
        assert.ok(Either.isLeft(bad) && bad.left._tag === "InvalidTaskChange")
        const elsewhere = yield* Effect.either(getTask(other, t.id))
        assert.ok(Either.isLeft(elsewhere) && elsewhere.left._tag === "TaskNotFound")
        const badQuery = yield* Effect.either(listTasks(ws, { status: "closed", type: "x" }))
        assert.ok(Either.isLeft(badQuery) && badQuery.left._tag === "InvalidQuery" && badQuery.left.errors.map((e) => e.path).join() === "status,type")
      })
    ))

  test("tasks: listed oldest due first, paged both ways, filtered, bounded by due_before", () =>
    run(
      Effect.gen(function* () {
        const ws = yield* threeTasks("tasks-list", "PCNL")
        // Due by type: a rejection in 2 days, a payment review in 5, a denial in 14.
        const all = (yield* listTasks(ws, {})).items
        assert.deepEqual(all.map((t) => t.type), ["rejection_resolution", "payment_review", "denial_resolution"])
        const first = yield* listTasks(ws, { limit: 2 })
        assert.deepEqual(first.items.map((t) => t.id), all.slice(0, 2).map((t) => t.id))
        const second = yield* listTasks(ws, { limit: 2, page_token: first.next_page_token! })
        assert.deepEqual(second.items.map((t) => t.id), [all[2]!.id])
        assert.equal(second.next_page_token, null)
        const back = yield* listTasks(ws, { limit: 2, page_token: second.prev_page_token! })
        assert.deepEqual(back.items.map((t) => t.id), all.slice(0, 2).map((t) => t.id))
        assert.deepEqual((yield* listTasks(ws, { type: "denial_resolution" })).items.map((t) => t.id), [all[2]!.id])
        const soon = yield* listTasks(ws, { due_before: new Date(T0 + 6 * DAY).toISOString() })
        assert.deepEqual(soon.items.map((t) => t.type), ["rejection_resolution", "payment_review"])
        assert.equal(soon.next_page_token, null)
      })
    ))

  test("tasks: a page read against what the reader holds lists held tasks as held at their revision, reads the rest, and pages as listTasks", () =>
    run(
      Effect.gen(function* () {
        const ws = yield* threeTasks("tasks-held", "PCNH")
        const plain = yield* listTasks(ws, {})
        assert.equal(plain.items.length, 3)
        const revisions = new Map<string, number>()
        const render = (t: Task, revision: number) => {
          revisions.set(t.id, revision)
          return `${t.id}@${revision}:${t.status}:${t.assignee ?? "-"}`
        }
        // Holding nothing: every task read and rendered, the page and its tokens as listTasks's.
        const none = yield* listRenderedTasks(ws, {}, render, () => undefined)
        assert.deepEqual(none.items, plain.items.map((t) => `${t.id}@${revisions.get(t.id)}:${t.status}:-`))
        assert.deepEqual([none.next_page_token, none.prev_page_token], [plain.next_page_token, plain.prev_page_token])
        // The first two held at their revisions: listed as held; asked by id and revision; the third read.
        const [a, b, c] = plain.items as [Task, Task, Task]
        const held = new Map([a, b].map((t) => [`${t.id}@${revisions.get(t.id)}`, `held ${t.id}`]))
        const asked: Array<string> = []
        const holding = (id: string, revision: number) => {
          asked.push(`${id}@${revision}`)
          return held.get(`${id}@${revision}`)
        }
        const page = yield* listRenderedTasks(ws, {}, render, holding)
        assert.deepEqual(page.items, [`held ${a.id}`, `held ${b.id}`, `${c.id}@${revisions.get(c.id)}:open:-`])
        assert.deepEqual(asked, [a, b, c].map((t) => `${t.id}@${revisions.get(t.id)}`))
        // A task changed since: its revision moved on, so what is held of it is not listed.
        const before = revisions.get(a.id)!
        yield* updateTask(ws, a.id, { assignee: "dana" })
        const after = yield* listRenderedTasks(ws, {}, render, holding)
        assert.ok(revisions.get(a.id)! > before)
        assert.deepEqual(after.items, [`${a.id}@${revisions.get(a.id)}:open:dana`, `held ${b.id}`, `${c.id}@${revisions.get(c.id)}:open:-`])
        // Paged both ways, filtered and bounded as listTasks.
        const first = yield* listRenderedTasks(ws, { limit: 2 }, render, holding)
        const plainFirst = yield* listTasks(ws, { limit: 2 })
        assert.deepEqual([first.items.length, first.next_page_token], [2, plainFirst.next_page_token])
        const second = yield* listRenderedTasks(ws, { limit: 2, page_token: first.next_page_token! }, render, holding)
        assert.deepEqual(second.items, [`${c.id}@${revisions.get(c.id)}:open:-`])
        const back = yield* listRenderedTasks(ws, { limit: 2, page_token: second.prev_page_token! }, render, holding)
        assert.deepEqual(back.items, first.items)
        const soon = yield* listRenderedTasks(ws, { due_before: new Date(T0 + 6 * DAY).toISOString() }, render, holding)
        assert.deepEqual(soon.items.length, (yield* listTasks(ws, { due_before: new Date(T0 + 6 * DAY).toISOString() })).items.length)
        assert.equal(soon.next_page_token, null)
        const denials = yield* listRenderedTasks(ws, { type: "denial_resolution" }, render, holding)
        assert.deepEqual(denials.items, (yield* listTasks(ws, { type: "denial_resolution" })).items.map((t) => held.get(`${t.id}@${revisions.get(t.id)}`) ?? `${t.id}@${revisions.get(t.id)}:open:${t.assignee ?? "-"}`))
      })
    ))

  test("tasks: the follow-up sweep makes one task per claim waiting past the setting (controlled clock), leased; the payer's answer closes it", () => {
    const clock = Clock.manual(T0)
    return run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("tasks-sweep", ["PCNF1", "PCNF2"])
        yield* createX12Batch(ws, [claims.PCNF1!])
        assert.equal(yield* sweepFollowUps("a"), 0)
        yield* putWorkQueueSettings(ws, { follow_up_after_days: 3 })
        clock.control.advance(2 * DAY)
        assert.equal(yield* sweepFollowUps("a"), 0)
        yield* createX12Batch(ws, [claims.PCNF2!])
        clock.control.advance(2 * DAY)
        // PCNF1 has waited 4 days, PCNF2 2: one follow-up; "a" holds the workspace's sweep for 2 days.
        assert.equal(yield* sweepFollowUps("a", 2 * DAY), 1)
        const [t] = yield* tasksOf(ws, claims.PCNF1)
        assert.ok(t !== undefined)
        assert.deepEqual([t.type, t.category, t.cause.kind], ["claim_follow_up", "no_response", "no_response"])
        clock.control.advance(1.5 * DAY)
        // PCNF2 is due now, but another instance does not sweep while the lease is held.
        assert.equal(yield* sweepFollowUps("b"), 0)
        assert.equal((yield* tasksOf(ws, claims.PCNF2)).length, 0)
        // Past the lease, two instances at once: PCNF2 gets one task, PCNF1 none more.
        clock.control.advance(DAY)
        const made = yield* Effect.all([sweepFollowUps("a"), sweepFollowUps("b")], { concurrency: "unbounded" })
        assert.equal(made[0]! + made[1]!, 1)
        assert.equal((yield* tasksOf(ws, claims.PCNF2)).length, 1)
        assert.equal((yield* tasksOf(ws, claims.PCNF1)).length, 1)
        // The payer answers: a rejection closes the follow-up and opens its own task.
        yield* upload(ws, make277(831, [{ pcn: "PCNF1", category: "A6" }]))
        assert.equal((yield* getTask(ws, t.id)).closed_reason, "claim moved to rejected")
        assert.deepEqual((yield* openOf(ws, claims.PCNF1!)).map((x) => [x.type, x.category]), [["rejection_resolution", "missing_information"]])
      }),
      clock
    )
  })

  test("tasks: a closing named on a write (a corrected claim sent in its place) closes the claim's open tasks with its reason", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("tasks-closing", ["PCNC1"])
        const c = claims.PCNC1!
        yield* changeClaimStatus(ws, c, "submitted_to_payer")
        yield* changeClaimStatus(ws, c, "rejected")
        const [t] = yield* openOf(ws, c)
        assert.ok(t !== undefined)
        const found = yield* Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(c)))
        assert.ok(found._tag === "Some")
        const { encounter } = found.value
        const closing = {
          workspace_id: ws,
          claim_id: ClaimId.make(c),
          encounter_id: encounter.id,
          external_id: encounter.external_id,
          at: new Date(T0 + DAY).toISOString(),
          reason: "replaced by a corrected claim"
        }
        yield* commit({ operation: "correctClaim", steps: [], closings: [closing] })
        const closed = yield* getTask(ws, t.id)
        assert.deepEqual([closed.status, closed.closed_reason], ["done", "replaced by a corrected claim"])
        assert.deepEqual(yield* openOf(ws, c), [])
        // Nothing open: closing again changes nothing.
        yield* commit({ operation: "correctClaim", steps: [], closings: [closing] })
        assert.deepEqual((yield* taskEvents(ws)).map((e) => e[0]), ["Created", "Updated"])
      })
    ))

  test("tasks: two writers raising one cause at once make one task, the second adding to it", () =>
    run(
      Effect.gen(function* () {
        const { ws, claims } = yield* setup("tasks-race", ["PCNX1"])
        const found = yield* Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(claims.PCNX1!)))
        assert.ok(found._tag === "Some")
        const { encounter } = found.value
        const raise = (n: number) =>
          commit({
            operation: "raiseFollowUp",
            steps: [],
            causes: [
              {
                workspace_id: ws,
                claim_id: ClaimId.make(claims.PCNX1!),
                encounter_id: encounter.id,
                external_id: encounter.external_id,
                type: "claim_follow_up",
                kind: "no_response",
                at: new Date(T0).toISOString(),
                codes: [],
                text: `writer ${n}`
              }
            ]
          })
        yield* Effect.all([1, 2, 3, 4].map(raise), { concurrency: "unbounded" })
        const tasks: ReadonlyArray<Task> = yield* tasksOf(ws)
        assert.equal(tasks.length, 1)
        assert.deepEqual(tasks[0]!.causes.map((c) => c.text).sort(), ["writer 1", "writer 2", "writer 3", "writer 4"])
        assert.deepEqual((yield* taskEvents(ws)).map((e) => e[0]), ["Created", "Updated", "Updated", "Updated"])
      })
    ))
}
