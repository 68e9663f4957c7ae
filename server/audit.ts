import { Cause, Effect, Exit, Option } from "effect"
import type { AuditActor, AuditOutcome, AuditResourceType } from "../lib/domain/audit.js"
import type { WorkspaceId } from "../lib/domain/ids.js"
import { appendAudit } from "../lib/rules/audit.js"
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
}

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
 * Runs a route's work and appends its audit entry, then answers: the entry is committed before the
 * answer leaves, so no patient data is shown without its entry (when the entry cannot be written,
 * the answer is that storage failure, not the data).
 */
export const audited = (decl: AuditDecl, context: AuditContext, work: Effect.Effect<Reply, HttpFailure, Services>) =>
  Effect.gen(() => auditedGen(decl, context, work))

function* auditedGen(decl: AuditDecl, context: AuditContext, work: Effect.Effect<Reply, HttpFailure, Services>) {
  const exit = yield* Effect.exit(work)
  yield* appendAudit({
    workspaceId: context.workspaceId,
    actor: context.actor,
    action: decl.action,
    resourceType: decl.resource,
    resourceId: decl.idParam === undefined ? null : (context.params[decl.idParam] ?? null),
    clientIp: context.clientIp ?? null,
    requestId: context.requestId,
    outcome: outcomeOf(exit)
  })
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
