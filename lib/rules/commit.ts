import { Effect, Exit } from "effect"
import type { StorageError } from "../domain/errors.js"
import type { WorkspaceId } from "../domain/ids.js"
import type { WebhookSubscription } from "../domain/webhook.js"
import { Ids } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import type { CommittedWrite, Step, Write, WriteResult } from "../ports/write.js"
import { notifyDeliveries } from "../webhooks/signal.js"
import { claimCarried } from "./audit-carry.js"
import { TaskRace, taskSteps } from "./task-steps.js"
import { deliveriesFor } from "./webhook-outbox.js"

/**
 * The one path by which rules write. A write that appends events gets, in the same transaction,
 * the outbox delivery of each event to every enabled endpoint of its workspace that takes the
 * event's type (the endpoints are read just before the write); after it is written, the delivery
 * worker is nudged. Storage takes only a `CommittedWrite`, which this function alone makes, so a
 * rule cannot record an event without its deliveries (nor a delivery without its event).
 *
 * Likewise the work queue: a write's status moves and causes make, add to or close their claims'
 * tasks in the same write (`task-steps.ts`). Those steps are read against the claims' open tasks
 * just before the write; a write refused because another writer changed those tasks meanwhile is
 * made again from a fresh read, so the rule never sees that refusal.
 */
export const commit = <R>(write: Write<R>): Effect.Effect<WriteResult<R>, StorageError, Storage | Ids> =>
  Effect.gen(() => carryGen(write))

/**
 * A request's change carries its audit entry (`audit-carry.ts`): the first write in its scope that
 * writes anything adds the entry's insert, and the entry is written exactly when the write is.
 */
function* carryGen<R>(write: Write<R>) {
  const carried = write.steps.length === 0 ? undefined : yield* claimCarried<R>(write.refusal === true)
  if (carried === undefined) return yield* commitGen(write)
  const exit = yield* Effect.exit(Effect.gen(() => commitGen<R>({ ...write, steps: [...write.steps, carried.step] })))
  carried.settle(Exit.isSuccess(exit) && exit.value._tag === "Written")
  return yield* exit
}

function* commitGen<R>(write: Write<R>) {
  if (!hasTaskWork(write)) return yield* commitSteps(write)
  const ids = yield* Ids
  for (;;) {
    const tasks = yield* taskSteps(write, ids.next)
    const result: WriteResult<R | TaskRace> = yield* commitSteps<R | TaskRace>(
      tasks.length === 0 ? write : { operation: write.operation, steps: [...write.steps, ...tasks] }
    )
    if (result._tag === "Refused" && result.refusal === TaskRace) continue
    // Every refusal but the race is the rule's own.
    return result as WriteResult<R>
  }
}

/** Whether the write moves a claim or names a cause or closing of work: only then has it task steps. */
const hasTaskWork = <R>(write: Write<R>): boolean =>
  (write.causes !== undefined && write.causes.length > 0) ||
  (write.closings !== undefined && write.closings.length > 0) ||
  write.steps.some((s) => s._tag === "AppendEvent" && s.event.event_type === "ExternalApi.Encounter.StatusUpdated")

function* commitSteps<R>(write: Write<R>) {
  const storage = yield* Storage
  // The workspaces whose events this write appends (almost always one).
  let workspaces: Array<WorkspaceId> | undefined
  for (const step of write.steps) {
    if (step._tag !== "AppendEvent") continue
    const ws = step.event.workspace_id
    if (workspaces === undefined) workspaces = [ws]
    else if (!workspaces.includes(ws)) workspaces.push(ws)
  }
  if (workspaces === undefined) return yield* storage.write(sealed(write))

  const ids = yield* Ids
  const endpoints = new Map<WorkspaceId, ReadonlyArray<WebhookSubscription>>()
  for (const ws of workspaces) endpoints.set(ws, yield* storage.enabledWebhookEndpoints(ws))
  const deliveries: Array<Step<R>> = []
  for (const step of write.steps) {
    if (step._tag !== "AppendEvent") continue
    deliveries.push(...deliveriesFor(endpoints.get(step.event.workspace_id) ?? [], step.event, ids.next))
  }
  if (deliveries.length === 0) return yield* storage.write(sealed(write))
  const result = yield* storage.write(sealed({ operation: write.operation, steps: [...write.steps, ...deliveries] }))
  if (result._tag === "Written") yield* notifyDeliveries
  return result
}

/** The brand storage asks for; given here only, to writes whose deliveries were added above. */
const sealed = <R>(write: Write<R>): CommittedWrite<R> => write as CommittedWrite<R>
