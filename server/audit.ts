import { Cause, Effect, Exit, type ManagedRuntime, Option } from "effect"
import type { AuditActor, AuditOutcome, AuditRecord, AuditResourceType } from "../lib/domain/audit.js"
import { StorageError } from "../lib/domain/errors.js"
import type { WorkspaceId } from "../lib/domain/ids.js"
import { type AuditQuery, appendAuditEntries, auditEntry, listAudit } from "../lib/rules/audit.js"
import { type CarriedAudit, carryingAudit } from "../lib/rules/audit-carry.js"
import { log } from "./log.js"
import type { HttpFailure } from "./problem.js"
import type { Reply, Services } from "./route.js"

/**
 * What a route declares of the patient data it reads or changes: the action written to the audit
 * log (`encounter.read`), the kind of record, and the path parameter naming it (none for a list or
 * search). Only these are written: never a query value, a body or what the answer holds.
 */
export interface AuditDecl {
  readonly action: string
  readonly resource: AuditResourceType
  /** The path parameter holding the record's id; absent for a list. */
  readonly idParam?: string
}

/** Who asked, from where, which request: the rest of an entry. */
export interface AuditContext {
  readonly workspaceId: WorkspaceId
  readonly actor: AuditActor
  readonly params: Readonly<Record<string, string>>
  readonly clientIp: string | undefined
  readonly requestId: string
  /** The request's method: a read (GET, HEAD) does not wait for its entry's commit. */
  readonly method: string
  /** Where a read's entry goes: written with the other reads' entries of its window. */
  readonly reads: AuditQueue
}

/**
 * Reads' entries, gathered for up to `windowMs` after the first of them (or until
 * `MAX_ENTRIES_PER_WRITE` are gathered) and appended as one write: a read costs its entry's row,
 * not a write of its own. A commit costs SQLite about as much as 25 rows (the pages it writes at
 * the tails of the log's indexes), so entries gathered a turn at a time (some 30 under a load of
 * reads) cost about twice as much each as entries gathered over 20 ms (bench/RESULTS.md). A read
 * is answered before its entry is committed either way: what the window changes is how many
 * answered reads' entries a crash can take with it (those of the last `windowMs`, not of the last
 * turn). Reading the audit log drains the queue first, so the log a caller reads holds every read
 * answered before it. A refused write is logged at level error, one line per missing entry (its
 * request id and action, never patient data).
 */
export interface AuditQueue {
  readonly add: (entry: AuditRecord) => void
  /** Writes what is gathered now; resolves once it is committed (or logged as missing). */
  readonly drain: () => Promise<void>
}

const MAX_ENTRIES_PER_WRITE = 512

/** How long reads' entries are gathered after the first of them, by default. */
export const AUDIT_WINDOW_MS = 20

const missing = (entries: ReadonlyArray<AuditRecord>, e: StorageError) =>
  Effect.sync(() => {
    for (const entry of entries) {
      log("error", "audit entry not written", { request_id: entry.request_id, action: entry.action, operation: e.operation, unavailable: e.unavailable ?? null })
    }
  })

export const makeAuditQueue = (runtime: ManagedRuntime.ManagedRuntime<Services, never>, windowMs = AUDIT_WINDOW_MS): AuditQueue => {
  let gathered: Array<AuditRecord> = []
  let timer: ReturnType<typeof setTimeout> | undefined
  const write = (): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    const entries = gathered
    gathered = []
    const writes: Array<Promise<void>> = []
    for (let i = 0; i < entries.length; i += MAX_ENTRIES_PER_WRITE) {
      const chunk = entries.slice(i, i + MAX_ENTRIES_PER_WRITE)
      const logged = Effect.catchAll(Effect.asVoid(appendAuditEntries(chunk)), (e) => missing(chunk, e))
      // The runtime may be gone (a server stopped without draining): the entries are logged as missing.
      writes.push(runtime.runPromise(logged).catch((cause: unknown) => Effect.runSync(missing(chunk, new StorageError({ operation: "appendAudit", cause })))))
    }
    return Promise.all(writes).then(() => undefined)
  }
  return {
    add: (entry) => {
      gathered.push(entry)
      if (gathered.length >= MAX_ENTRIES_PER_WRITE) void write()
      else timer ??= setTimeout(write, windowMs)
    },
    drain: write
  }
}

/**
 * A page of the audit log, once the reads' entries gathered so far are written: the log a caller
 * reads holds every read answered before its request.
 */
export const listAuditAfterReads = (server: { readonly auditReads: AuditQueue }, ws: WorkspaceId, query: AuditQuery) =>
  Effect.zipRight(
    Effect.promise(() => server.auditReads.drain()),
    listAudit(ws, query)
  )

/** Not-found errors are tagged `...NotFound`; scope, role and password-change refusals are denials. */
const outcomeOf = (exit: Exit.Exit<Reply, HttpFailure>): AuditOutcome => {
  if (Exit.isSuccess(exit)) return exit.value.status < 400 ? "ok" : "failed"
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) return "failed"
  const tag = failure.value._tag
  if (tag.endsWith("NotFound")) return "not_found"
  if (tag === "Forbidden" || tag === "PasswordChangeRequired") return "denied"
  return "failed"
}

/**
 * Runs a route's work and appends its audit entry, then answers: a change's entry is committed
 * with the change itself (or, when the change wrote nothing, before the answer leaves); a read's
 * is gathered for the next write of reads' entries. When the database refuses the entry (a full disk, a lock held past the busy
 * timeout, PostgreSQL unreachable), the answer still goes out, as reads keep working through such
 * faults, and the missing entry is logged at level error with the request id and the action (never
 * the patient data), so the gap is on record where the operator looks.
 */
export const audited = (decl: AuditDecl, context: AuditContext, work: Effect.Effect<Reply, HttpFailure, Services>) =>
  Effect.gen(() => auditedGen(decl, context, work))

function* auditedGen(decl: AuditDecl, context: AuditContext, work: Effect.Effect<Reply, HttpFailure, Services>) {
  const fact = (outcome: AuditOutcome) => ({
    workspaceId: context.workspaceId,
    actor: context.actor,
    action: decl.action,
    resourceType: decl.resource,
    resourceId: decl.idParam === undefined ? null : (context.params[decl.idParam] ?? null),
    clientIp: context.clientIp ?? null,
    requestId: context.requestId,
    outcome
  })
  if (context.method === "GET" || context.method === "HEAD") {
    // A read is answered without waiting for its entry's commit (it is gathered and committed with
    // the other reads' entries of its window), so a read costs no write of its own and is not held up
    // by a database that will not take writes (a lock held by another process).
    const exit = yield* Effect.exit(work)
    context.reads.add(yield* auditEntry(fact(outcomeOf(exit))))
    return yield* exit
  }
  // A change's entry rides on the change's own first write (`carryingAudit`): committed with it,
  // as `ok` (`failed` when the write records a refusal, as a rejected create's intake entry). A
  // change that wrote nothing (refused, invalid, not found) appends its entry with the outcome,
  // and waits for it; so does one whose outcome turned out other than its write said (a second
  // entry, same request id: the write stands, and so does the failure).
  const carried: CarriedAudit = { entry: yield* auditEntry(fact("ok")), state: "open" }
  const exit = yield* Effect.exit(carryingAudit(carried, work))
  const outcome = outcomeOf(exit)
  if (carried.state !== "written" || carried.outcome !== outcome) {
    const entry = carried.state === "written" ? yield* auditEntry(fact(outcome)) : { ...carried.entry, outcome }
    yield* Effect.catchAll(appendAuditEntries([entry]), (e) => missing([entry], e))
  }
  return yield* exit
}

/** A refusal before the route ran (its scope or role): appended as `denied`, then the refusal. */
export const auditedRefusal = <E extends HttpFailure>(decl: AuditDecl | "none" | undefined, context: AuditContext, refusal: E) =>
  decl === undefined || decl === "none" ? Effect.fail(refusal) : audited(decl, context, Effect.fail(refusal))

/** The actor of an API request: its key, by id and prefix. */
export const keyActor = (principal: { readonly keyId: string; readonly keyPrefix: string }): AuditActor => ({
  kind: "key",
  id: principal.keyId,
  name: principal.keyPrefix
})
