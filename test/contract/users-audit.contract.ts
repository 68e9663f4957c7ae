import assert from "node:assert/strict"
import { Effect, Either, Fiber, Layer } from "effect"
import type { WorkspaceId } from "../../lib/domain/ids.js"
import { type Clock, Ids } from "../../lib/ports/clock.js"
import { type PasswordHasher, Passwords } from "../../lib/ports/passwords.js"
import { Storage } from "../../lib/ports/storage.js"
import { appendAudit, auditEntry, exportAudit, listAudit } from "../../lib/rules/audit.js"
import { type CarriedAudit, carryingAudit } from "../../lib/rules/audit-carry.js"
import { commit } from "../../lib/rules/commit.js"
import { insert } from "../../lib/ports/write.js"
import { intakeEncounter } from "../../lib/rules/create-encounter.js"
import { listIntakeRequests } from "../../lib/rules/intake-log.js"
import { lockMs, signInWithPassword } from "../../lib/rules/password-sign-in.js"
import { purgeWorkspace, setRetention } from "../../lib/rules/retention.js"
import { changeOwnPassword, createUser } from "../../lib/rules/users.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { validPayload } from "../support/payloads.js"
import type { Harness } from "../support/run.js"

type Services = Storage | Clock | Ids
interface ManualClock {
  readonly layer: Layer.Layer<Clock>
  readonly control: { readonly set: (ms: number) => void; readonly advance: (ms: number) => void }
}

/** A stand-in hasher: the contract is about what is stored and decided, on Node as on Bun. */
const plainPasswords: PasswordHasher = {
  hash: (p) => Effect.succeed(`plain:${p}`),
  verify: (p, h) => Effect.succeed(h === `plain:${p}`),
  burn: () => Effect.void
}

const DAY = 24 * 60 * 60 * 1000

/** Users, sign-in lockout, the audit log and the retention purge on one adapter, on a clock the test moves. */
export const usersAuditContract = (
  run: <A, E>(effect: Effect.Effect<A, E, Services>, clock: ManualClock) => Promise<A>,
  manual: () => ManualClock,
  { test }: Pick<Harness, "test">
) => {
  const workspace = (slug: string) => Effect.map(createWorkspace(slug, slug.toUpperCase()), (w) => w.id)
  const withPasswords = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, Passwords, plainPasswords)

  test("users: one email per workspace, found across workspaces; sign-in locks after repeated failures and the lock passes", () => {
    const clock = manual()
    return run(
      withPasswords(
        Effect.gen(function* () {
          const a = yield* workspace("clinic-a")
          const b = yield* workspace("clinic-b")
          const made = yield* createUser(a, { email: "Pat@Clinic.Test", role: "biller" })
          assert.equal(made.email, "pat@clinic.test")
          const again = yield* Effect.either(createUser(a, { email: "pat@clinic.test", role: "viewer" }))
          assert.ok(Either.isLeft(again) && again.left._tag === "UserEmailTaken")
          yield* createUser(b, { email: "pat@clinic.test", role: "viewer" })
          const found = yield* (yield* Storage).findUsersByEmail("pat@clinic.test")
          assert.deepEqual(found.map((f) => f.workspace.slug).sort(), ["clinic-a", "clinic-b"])
          yield* changeOwnPassword(a, made.id, made.initial_password, "correct horse battery")
          for (let i = 0; i < 5; i++) {
            const r = yield* Effect.either(signInWithPassword({ email: "pat@clinic.test", password: "wrong", workspace: "clinic-a" }))
            assert.ok(Either.isLeft(r) && r.left._tag === "SignInRefused")
          }
          const locked = yield* Effect.either(signInWithPassword({ email: "pat@clinic.test", password: "correct horse battery", workspace: "clinic-a" }))
          assert.ok(Either.isLeft(locked) && locked.left._tag === "SignInLocked")
          clock.control.advance(lockMs(5) + 1)
          const ok = yield* signInWithPassword({ email: "pat@clinic.test", password: "correct horse battery" })
          assert.equal(ok.workspace.id, a)
          assert.equal(ok.user.failed_sign_ins, 0)
          const stored = yield* (yield* Storage).get("users", a, made.id)
          assert.ok(stored._tag === "Some" && stored.value.failed_sign_ins === 0 && stored.value.last_sign_in_at !== null)
        })
      ),
      clock
    )
  })

  test("audit: appended entries are listed newest first by workspace, filtered, and exported oldest first", () => {
    const clock = manual()
    return run(
      Effect.gen(function* () {
        const a = yield* workspace("clinic-a")
        const b = yield* workspace("clinic-b")
        const fact = (ws: WorkspaceId, action: string, id: string | null) => ({
          workspaceId: ws,
          actor: { kind: "user" as const, id: "u1", name: "pat@clinic.test" },
          action,
          resourceType: "encounter" as const,
          resourceId: id,
          clientIp: "127.0.0.1",
          requestId: "r1",
          outcome: "ok" as const
        })
        for (let i = 0; i < 5; i++) {
          clock.control.advance(1000)
          yield* appendAudit(fact(a, i % 2 === 0 ? "encounter.read" : "encounter.list", i % 2 === 0 ? `e${i}` : null))
        }
        yield* appendAudit(fact(b, "encounter.read", "e0"))
        const all = yield* listAudit(a, {})
        assert.equal(all.items.length, 5)
        assert.deepEqual(all.items.map((e) => e.resource.id), ["e4", null, "e2", null, "e0"])
        assert.deepEqual((yield* listAudit(a, { resource: "e0" })).items.map((e) => e.workspace_id), [a])
        assert.equal((yield* listAudit(a, { action: "encounter.list" })).items.length, 2)
        const since = new Date(clock === undefined ? 0 : Date.parse(all.items[2]!.at)).toISOString()
        assert.deepEqual((yield* listAudit(a, { since })).items.map((e) => e.resource.id), ["e4", null, "e2"])
        assert.deepEqual((yield* listAudit(a, { until: since })).items.map((e) => e.resource.id), ["e2", null, "e0"])
        const exported: Array<string | null> = []
        const count = yield* exportAudit(a, since, (chunk) => Effect.sync(() => exported.push(...chunk.map((e) => e.resource.id))))
        assert.equal(count, 3)
        assert.deepEqual(exported, ["e2", null, "e4"])
      }),
      clock
    )
  })

  test("retention: raw requests older than raw_request_days and audit entries older than audit_days go; a dry run counts only", () => {
    const clock = manual()
    return run(
      Effect.gen(function* () {
        const ws = yield* workspace("clinic-a")
        const other = yield* workspace("clinic-b")
        const intake = (w: WorkspaceId, id: string) => intakeEncounter({ workspace_id: w, body: new TextEncoder().encode(JSON.stringify(validPayload(id))) })
        yield* intake(ws, "old-1")
        yield* intake(other, "old-other")
        yield* appendAudit({ workspaceId: ws, actor: { kind: "key", id: "k", name: "eik_x" }, action: "encounter.read", resourceType: "encounter", resourceId: "x", clientIp: null, requestId: null, outcome: "ok" })
        clock.control.advance(40 * DAY)
        yield* intake(ws, "new-1")
        // Default: raw requests are kept; the audit log 6 years.
        const kept = yield* purgeWorkspace(ws, false)
        assert.deepEqual([kept.raw_requests, kept.audit_entries, kept.raw_request_days], [0, 0, null])
        yield* setRetention(ws, { raw_request_days: 30 })
        const dry = yield* purgeWorkspace(ws, true)
        assert.deepEqual([dry.dry_run, dry.raw_requests, dry.audit_entries], [true, 1, 0])
        assert.equal((yield* listIntakeRequests(ws, {})).items.length, 2)
        const done = yield* purgeWorkspace(ws, false)
        assert.equal(done.raw_requests, 1)
        assert.deepEqual((yield* listIntakeRequests(ws, {})).items.map((r) => r.external_id), ["new-1"])
        // Another workspace's settings are its own.
        assert.equal((yield* listIntakeRequests(other, {})).items.length, 1)
        const refused = yield* Effect.either(setRetention(ws, { audit_days: 30 }))
        assert.ok(Either.isLeft(refused))
        clock.control.advance(6 * 366 * DAY)
        const later = yield* purgeWorkspace(ws, false)
        assert.deepEqual([later.audit_entries, (yield* listAudit(ws, {})).items.length], [1, 0])
      }),
      clock
    )
  })

  test("a change carries its audit entry: written with its first write that stands, not with a refused one, nor by a forked fiber", () => {
    const clock = manual()
    return run(
      Effect.gen(function* () {
        const ws = yield* workspace("clinic-carry")
        const entry = yield* auditEntry({ workspaceId: ws, actor: { kind: "key", id: "k", name: "eik_x" }, action: "encounter.create", resourceType: "encounter", resourceId: null, clientIp: null, requestId: "r-1", outcome: "ok" })
        const carried: CarriedAudit = { entry, state: "open" }
        // A forked fiber's write does not take it.
        const forked = yield* Effect.fork(intakeEncounter({ workspace_id: ws, body: new TextEncoder().encode(JSON.stringify(validPayload("carry-forked"))) }))
        yield* carryingAudit(carried, Fiber.join(forked))
        assert.equal(carried.state, "open")
        assert.equal((yield* listAudit(ws, {})).items.length, 0)
        // A refused write (the same external id taken) leaves it open; the next write takes it, once.
        const taken = yield* carryingAudit(carried, commit({ operation: "refused", steps: [insert("retention_settings", { id: ws, workspace_id: ws, raw_request_days: null, audit_days: 3000, updated_at: entry.at }, { unique: "workspace", refuse: () => "taken" as const })] }))
        assert.equal(taken._tag, "Written")
        assert.equal(carried.state, "written")
        const again = yield* carryingAudit(carried, commit({ operation: "refused", steps: [insert("retention_settings", { id: `${ws}-2`, workspace_id: ws, raw_request_days: null, audit_days: 3000, updated_at: entry.at }, { unique: "workspace", refuse: () => "taken" as const })] }))
        assert.equal(again._tag, "Refused")
        const log = (yield* listAudit(ws, {})).items
        assert.deepEqual(log.map((e) => [e.request_id, e.outcome]), [["r-1", "ok"]])
        // A refused write on an open entry leaves it open.
        const open: CarriedAudit = { entry: { ...entry, id: `${entry.id}-b`, request_id: "r-2" }, state: "open" }
        const refused = yield* carryingAudit(open, commit({ operation: "refused", steps: [insert("retention_settings", { id: `${ws}-3`, workspace_id: ws, raw_request_days: null, audit_days: 3000, updated_at: entry.at }, { unique: "workspace", refuse: () => "taken" as const })] }))
        assert.equal(refused._tag, "Refused")
        assert.equal(open.state, "open")
        assert.equal((yield* listAudit(ws, {})).items.length, 1)
      }),
      clock
    )
  })
}
