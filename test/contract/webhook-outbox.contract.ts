import assert from "node:assert/strict"
import { rawWrite } from "../support/raw-write.js"
import { Effect, Layer, Option } from "effect"
import type { WorkspaceId } from "../../lib/domain/ids.js"
import { Clock, type Ids } from "../../lib/ports/clock.js"
import { Storage } from "../../lib/ports/storage.js"
import { insert, remove } from "../../lib/ports/write.js"
import { correctClaim } from "../../lib/rules/correct-claim.js"
import { changeClaimStatus } from "../../lib/rules/change-claim-status.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { listEvents } from "../../lib/rules/read-events.js"
import { listWebhookDeliveries, RECOVER_PACE_MS, recoverWebhookDeliveries } from "../../lib/rules/webhook-deliveries.js"
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, updateWebhookEndpoint } from "../../lib/rules/webhook-endpoints.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { deliverOne } from "../../lib/webhooks/deliver.js"
import { WebhookEndpointId } from "../../lib/domain/webhook.js"
import { newSecretBoxKey } from "../../lib/webhooks/secret-box.js"
import { WebhookSettings, type WebhookSettingsShape } from "../../lib/webhooks/settings.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { validPayload } from "../support/payloads.js"
import { make999, x12File } from "../support/x12-files.js"
import { clearinghouseSettingsInput, exportablePayload } from "./clearinghouse.contract.js"
import type { Harness } from "../support/run.js"

type Services = Storage | Clock | Ids

/**
 * The outbox on one adapter: deliveries written in the event's own write, the worker's lease as a
 * compare-and-set, and an attempt's result recorded. Attempts never leave the machine: the target
 * is a loopback address that the delivery settings refuse (creation allowed it).
 */
export const webhookOutboxContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>,
  { test }: Pick<Harness, "test">
) => {
  const key = newSecretBoxKey()
  const settings = (allowPrivate: boolean, maxEndpoints?: number): WebhookSettingsShape => ({
    key: Option.some(key),
    allowPrivate,
    schedule: [0, 60_000],
    timeoutMs: 1000,
    version: "test",
    ...(maxEndpoints !== undefined ? { maxEndpoints } : {})
  })
  const managing = Layer.succeed(WebhookSettings, settings(true))
  const delivering = Layer.succeed(WebhookSettings, settings(false))
  const endpoint = (ws: WorkspaceId, body: Record<string, unknown>) =>
    Effect.map(Effect.provide(createWebhookEndpoint(ws, { url: "http://127.0.0.1:9/hook", ...body }), managing), (e) => e.id)
  const deliveriesOf = (ws: WorkspaceId, id: string) =>
    Effect.map(listWebhookDeliveries(ws, id, { limit: 100 }), (p) => p.items)

  test("outbox: a create and a status move queue one delivery per matching enabled endpoint, in the event's write", () =>
    run(
      Effect.gen(function* () {
        const a = (yield* createWorkspace("hooks-a", "A")).id
        const b = (yield* createWorkspace("hooks-b", "B")).id
        const every = yield* endpoint(a, {})
        const created = yield* endpoint(a, { event_types: ["ExternalApi.Encounter.Created"] })
        const moved = yield* endpoint(a, { event_types: ["ExternalApi.Encounter.StatusUpdated"] })
        const off = yield* endpoint(a, {})
        yield* Effect.provide(updateWebhookEndpoint(a, off, { status: "disabled" }), managing)
        const elsewhere = yield* endpoint(b, {})

        const enc = yield* createEncounter(a, validPayload("hook-1"))
        const { claim } = yield* getEncounter(a, enc.encounter_id)
        yield* changeClaimStatus(a, claim.id, "submitted_to_payer")
        // A replay writes no event, so no delivery.
        yield* createEncounter(a, validPayload("hook-1"))
        const events = (yield* listEvents(a, {})).items
        assert.equal(events.length, 2)

        const counts = yield* Effect.all([every, created, moved, off].map((id) => deliveriesOf(a, id)))
        assert.deepEqual(counts.map((d) => d.length), [2, 1, 1, 0])
        assert.deepEqual((yield* deliveriesOf(b, elsewhere)).length, 0)
        const [latest, first] = counts[0]!
        assert.deepEqual([first!.event_id, latest!.event_id], [events[0]!.id, events[1]!.id])
        assert.deepEqual(
          { status: first!.status, attempts: first!.attempts, type: first!.event_type, last: first!.last_attempt_at, endpoint: first!.endpoint_id },
          { status: "pending", attempts: 0, type: "ExternalApi.Encounter.Created", last: null, endpoint: every }
        )
        assert.equal(counts[1]![0]!.event_type, "ExternalApi.Encounter.Created")
        assert.equal(counts[2]![0]!.event_type, "ExternalApi.Encounter.StatusUpdated")

        const storage = yield* Storage
        const due = yield* storage.dueWebhookDeliveries("2099-01-01T00:00:00.000Z", 100)
        assert.equal(due.length, 4)
        assert.deepEqual((yield* storage.dueWebhookDeliveries("2099-01-01T00:00:00.000Z", 100, [every])).length, 2)
        assert.deepEqual((yield* storage.dueWebhookDeliveries("2000-01-01T00:00:00.000Z", 100)).length, 0)
        const pending = yield* listWebhookDeliveries(a, every, { status: "pending", limit: 1 })
        assert.equal(pending.items.length, 1)
        assert.notEqual(pending.next_page_token, null)
        assert.equal((yield* listWebhookDeliveries(a, every, { status: "succeeded" })).items.length, 0)
        // Another workspace's endpoint is not found; its deliveries are not listed.
        assert.equal(Option.isNone(yield* storage.get("webhook_endpoints", b, every)), true)
        assert.equal((yield* storage.page("webhook_deliveries", b, { where: { endpoint_id: every }, limit: 10 })).length, 0)
      })
    ))

  test("outbox: every operation that appends events (create, status move, 837P batch, 999, 277CA, 835, correction, and the tasks they make) queues one delivery per enabled endpoint that takes each event", () =>
    run(
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("hooks-every", "E")).id
        const other = (yield* createWorkspace("hooks-every-b", "B")).id
        yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
        const subscribed = {
          all: yield* endpoint(ws, {}),
          created: yield* endpoint(ws, { event_types: ["ExternalApi.Encounter.Created"] }),
          moved: yield* endpoint(ws, { event_types: ["ExternalApi.Encounter.StatusUpdated"] }),
          tasks: yield* endpoint(ws, { event_types: ["ExternalApi.Task.Created", "ExternalApi.Task.Updated"] }),
          off: yield* endpoint(ws, {}),
          elsewhere: yield* endpoint(other, {})
        }
        yield* Effect.provide(updateWebhookEndpoint(ws, subscribed.off, { status: "disabled" }), managing)
        const takes: Record<keyof typeof subscribed, (type: string) => boolean> = {
          all: () => true,
          created: (t) => t === "ExternalApi.Encounter.Created",
          moved: (t) => t === "ExternalApi.Encounter.StatusUpdated",
          tasks: (t) => t.startsWith("ExternalApi.Task."),
          off: () => false,
          elsewhere: () => false
        }
        /** After each operation: every event of the feed has exactly the deliveries its endpoints take. */
        const check = (operation: string) =>
          Effect.gen(function* () {
            const events = (yield* listEvents(ws, { limit: 100 })).items
            for (const [name, id] of Object.entries(subscribed) as Array<[keyof typeof subscribed, string]>) {
              const owner = name === "elsewhere" ? other : ws
              const deliveries = (yield* listWebhookDeliveries(owner, id, { limit: 100 })).items
              const perEvent = new Map<string, number>()
              for (const d of deliveries) perEvent.set(d.event_id, (perEvent.get(d.event_id) ?? 0) + 1)
              for (const e of events) {
                assert.equal(perEvent.get(e.id) ?? 0, takes[name](e.event_type) ? 1 : 0, `${operation}: ${name} for ${e.event_type} ${e.id}`)
              }
              assert.equal(deliveries.length, events.filter((e) => takes[name](e.event_type)).length, `${operation}: ${name} has no other deliveries`)
            }
            return events.length
          })

        const claims: Record<string, string> = {}
        for (const pcn of ["PCN0001", "PCN0005", "PCN0007", "PCN0010", "PCN0020"]) {
          const created = yield* createEncounter(ws, exportablePayload(`enc-${pcn}`, pcn))
          claims[pcn] = (yield* getEncounter(ws, created.encounter_id)).claim.id
        }
        assert.equal(yield* check("create"), 5)
        yield* changeClaimStatus(ws, claims.PCN0020!, "missing_information")
        assert.equal(yield* check("status move"), 6)
        yield* changeClaimStatus(ws, claims.PCN0020!, "draft")
        const batch = yield* createX12Batch(ws, [claims.PCN0001!, claims.PCN0005!, claims.PCN0007!, claims.PCN0010!])
        assert.equal(yield* check("837P batch"), 11)
        const bounced = yield* createX12Batch(ws, [claims.PCN0020!])
        const upload = (text: string) => importX12File({ workspace_id: ws, body: new TextEncoder().encode(text), content_type: "application/edi-x12" })
        yield* upload(make999(500, bounced.group_control_number, [["0001", "R"]]))
        // The bounce makes a task: its Task.Created is delivered like any event.
        assert.equal(yield* check("999"), 14)
        yield* upload(make999(501, batch.group_control_number, [["0001", "A"]]))
        yield* upload(x12File("277ca-mixed.x12"))
        assert.equal(yield* check("277CA"), 18)
        yield* upload(x12File("835-mixed.x12"))
        assert.equal(yield* check("835"), 21)
        // A 277CA rejecting a whole transaction set (2200B) moves each of its claims with its event.
        const created = yield* createEncounter(ws, exportablePayload("enc-PCN0030", "PCN0030"))
        const third = yield* createX12Batch(ws, [(yield* getEncounter(ws, created.encounter_id)).claim.id])
        assert.equal(third.interchange_control_number, 3)
        assert.equal(yield* check("create and batch"), 23)
        yield* upload(x12File("277ca-batch-rejected.x12").replace("TRN*2*000000001-0001", "TRN*2*000000003-0001"))
        assert.equal(yield* check("277CA batch rejection"), 25)
        yield* correctClaim(ws, claims.PCN0001!, { action: "replace" })
        assert.equal(yield* check("correction"), 26)
      })
    ))

  test("outbox: the lease is a compare-and-set (of two claimers one attempts), and the attempt's result is recorded", () =>
    run(
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("hooks-lease", "L")).id
        const id = yield* endpoint(ws, {})
        yield* createEncounter(ws, validPayload("lease-1"))
        const storage = yield* Storage
        const [due] = yield* storage.dueWebhookDeliveries("2099-01-01T00:00:00.000Z", 10)
        assert.ok(due !== undefined)
        const runs = yield* Effect.all([deliverOne(due, "worker-1", key), deliverOne(due, "worker-2", key)], { concurrency: 2 }).pipe(
          Effect.provide(delivering)
        )
        assert.deepEqual([...runs].sort(), ["claimed-elsewhere", "retrying"])
        const after = Option.getOrThrow(yield* storage.get("webhook_deliveries", ws, due.id))
        assert.equal(after.status, "pending")
        assert.equal(after.attempts, 1)
        assert.match(after.last_error ?? "", /refused/)
        assert.deepEqual([after.lease_owner, after.lease_expires_at], [null, null])
        assert.ok(after.next_attempt_at !== null && after.next_attempt_at > (after.last_attempt_at ?? ""))
        const ep = Option.getOrThrow(yield* storage.get("webhook_endpoints", ws, id))
        assert.equal(ep.failing_since, after.last_attempt_at)
        // The read the claim was decided on is stale now: claiming with it again is refused.
        assert.equal(yield* Effect.provide(deliverOne(due, "worker-3", key), delivering), "claimed-elsewhere")
      })
    ))

  test("endpoints: listed newest first, paged; a remove applies only where its conditions hold", () =>
    run(
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("hooks-list", "L")).id
        const other = (yield* createWorkspace("hooks-other", "O")).id
        const ids = []
        for (let i = 0; i < 5; i++) ids.push(yield* endpoint(ws, { description: `n${i}` }))
        const first = yield* listWebhookEndpoints(ws, { limit: 3 })
        const second = yield* listWebhookEndpoints(ws, { limit: 3, page_token: first.next_page_token ?? "" })
        assert.deepEqual([...first.items, ...second.items].map((e) => e.id), [...ids].reverse())
        const storage = yield* Storage
        yield* rawWrite(storage, { operation: "test", steps: [remove("webhook_endpoints", ids[0]!, { workspace_id: other })] })
        assert.equal(Option.isSome(yield* storage.get("webhook_endpoints", ws, ids[0]!)), true)
        yield* rawWrite(storage, { operation: "test", steps: [remove("webhook_endpoints", ids[0]!, { workspace_id: ws })] })
        assert.equal(Option.isNone(yield* storage.get("webhook_endpoints", ws, ids[0]!)), true)
        assert.equal((yield* storage.enabledWebhookEndpoints(ws)).length, 4)
      })
    ))

  test("endpoints: each holds a slot unique in its workspace, so the limit holds however creates interleave", () =>
    run(
      Effect.gen(function* () {
        const a = (yield* createWorkspace("hooks-slots-a", "A")).id
        const b = (yield* createWorkspace("hooks-slots-b", "B")).id
        const two = Layer.succeed(WebhookSettings, settings(true, 2))
        const create = (ws: WorkspaceId) => Effect.provide(createWebhookEndpoint(ws, { url: "http://127.0.0.1:9/hook" }), two)
        const first = yield* create(a)
        const second = yield* create(a)
        const third = yield* Effect.either(create(a))
        assert.ok(third._tag === "Left" && third.left._tag === "WebhookEndpointLimitReached" && third.left.limit === 2)
        assert.match(third._tag === "Left" ? third.left.message : "", /--webhook-max-endpoints/)
        yield* create(b)
        const storage = yield* Storage
        assert.deepEqual([...(yield* storage.webhookEndpointSlots(a))].sort(), [0, 1])
        assert.deepEqual(yield* storage.webhookEndpointSlots(b), [0])

        // A create that read the same free slot as another is refused by the unique key, not stored twice.
        const held = Option.getOrThrow(yield* storage.get("webhook_endpoints", a, second.id))
        const racer = { ...held, id: WebhookEndpointId.make("01a00000-0000-7000-8000-0000000000aa") }
        const refused = yield* rawWrite(storage, {
          operation: "test",
          steps: [insert("webhook_endpoints", racer, { unique: "slot", refuse: (holder) => holder })]
        })
        assert.deepEqual(refused, { _tag: "Refused", refusal: second.id })
        assert.equal((yield* storage.webhookEndpointSlots(a)).length, 2)

        // A delete frees its slot: the next create takes the lowest free one.
        yield* deleteWebhookEndpoint(a, first.id)
        const again = yield* create(a)
        assert.equal(Option.getOrThrow(yield* storage.get("webhook_endpoints", a, again.id)).slot, 0)
      })
    ))

  test("outbox: the due read leaves out skipped workspaces; an endpoint's pending deliveries are counted", () =>
    run(
      Effect.gen(function* () {
        const a = (yield* createWorkspace("hooks-skip-a", "A")).id
        const b = (yield* createWorkspace("hooks-skip-b", "B")).id
        const inA = yield* endpoint(a, {})
        const inB = yield* endpoint(b, {})
        yield* createEncounter(a, validPayload("skip-a-1"))
        yield* createEncounter(a, validPayload("skip-a-2"))
        yield* createEncounter(b, validPayload("skip-b-1"))
        const storage = yield* Storage
        const later = "2099-01-01T00:00:00.000Z"
        assert.equal((yield* storage.dueWebhookDeliveries(later, 10)).length, 3)
        const onlyB = yield* storage.dueWebhookDeliveries(later, 10, [], [a])
        assert.deepEqual(onlyB.map((d) => d.endpoint_id), [inB])
        assert.deepEqual((yield* storage.dueWebhookDeliveries(later, 10, [inB], [a])).length, 0)
        assert.deepEqual((yield* storage.dueWebhookDeliveries(later, 10, [inA], [])).map((d) => d.workspace_id), [b])
        assert.equal(yield* storage.pendingWebhookDeliveriesOf(a, inA), 2)
        assert.equal(yield* storage.pendingWebhookDeliveriesOf(b, inA), 0)
        assert.equal(yield* storage.pendingWebhookDeliveriesOf(b, inB), 1)
      })
    ))

  test("recover: bounded per call, going on from its token, due RECOVER_PACE_MS apart behind what is pending", () =>
    run(
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("hooks-recover", "R")).id
        const since = new Date((yield* Clock).now()).toISOString()
        for (let i = 0; i < 3; i++) yield* createEncounter(ws, validPayload(`recover-${i}`))
        const id = yield* endpoint(ws, {})
        const first = yield* recoverWebhookDeliveries(ws, id, { since }, 2)
        assert.deepEqual([first.queued, first.more], [2, true])
        assert.ok(first.next_page_token !== null)
        const second = yield* recoverWebhookDeliveries(ws, id, { since, page_token: first.next_page_token }, 2)
        assert.deepEqual(second, { queued: 1, more: false, next_page_token: null })
        const deliveries = [...(yield* deliveriesOf(ws, id))].sort((x, y) => ((x.next_attempt_at ?? "") < (y.next_attempt_at ?? "") ? -1 : 1))
        const now = (yield* Clock).now()
        // Under the contract's clock both calls ran at the same instant: the third is due behind the two pending.
        assert.deepEqual(
          deliveries.map((d) => Date.parse(d.next_attempt_at ?? "") - now),
          [0, RECOVER_PACE_MS, 2 * RECOVER_PACE_MS]
        )
        const events = (yield* listEvents(ws, {})).items.map((e) => e.id)
        assert.deepEqual(deliveries.map((d) => d.event_id), events)
        // Nothing since: nothing queued, nothing more.
        assert.deepEqual(yield* recoverWebhookDeliveries(ws, id, { since: "2999-01-01T00:00:00Z" }), { queued: 0, more: false, next_page_token: null })
      })
    ))
}