import { Effect, Option } from "effect"
import { ClaimNotFound } from "../domain/errors.js"
import { ClaimId, isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, toPage, tokenScope } from "../domain/page.js"
import { ClaimNotSubmitted, StatusCheckNotFound } from "../domain/status-check-settings.js"
import { NEVER_SUBMITTED, type StatusCheckRecord, type StatusCheckTransport, toStatusCheck } from "../domain/status-check.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert } from "../ports/write.js"
import { commit } from "./commit.js"
import { notifyStatusChecks } from "./status-check-signal.js"

/** A claim of the workspace by id; another workspace's (or a malformed id) is not found. */
export const claimOf = (ws: WorkspaceId, claimId: string) =>
  Effect.gen(function* () {
    if (!isUuid(claimId)) return yield* new ClaimNotFound({ id: claimId })
    const found = yield* (yield* Storage).findClaim(ws, ClaimId.make(claimId))
    if (Option.isNone(found)) return yield* new ClaimNotFound({ id: claimId })
    return found.value
  })

/** A new check, queued: `core` ones are due at once, `file` ones wait for the next 276 export. */
export const newCheck = (
  ws: WorkspaceId,
  id: string,
  claimId: ClaimId,
  transport: StatusCheckTransport,
  at: string,
  origin: StatusCheckRecord["origin"],
  roundKey: string
): StatusCheckRecord => ({
  id,
  workspace_id: ws,
  claim_id: claimId,
  transport,
  status: "queued",
  trace_number: id,
  origin,
  round_key: roundKey,
  created_at: at,
  sent_at: null,
  answered_at: null,
  statuses: [],
  effect: null,
  error: null,
  attempts: 0,
  next_attempt_at: transport === "core" ? at : null,
  lease_owner: null,
  lease_expires_at: null
})

/** The transport a workspace's checks take: its settings', `file` while it has none. */
export const transportOf = (ws: WorkspaceId) =>
  Effect.map(Effect.flatMap(Storage, (s) => s.get("status_check_settings", ws, ws)), (found) =>
    Option.match(found, { onNone: () => "file" as const, onSome: (r) => r.settings.transport })
  )

/**
 * Asks the payer for a claim's status: a check, queued (sent at once by the worker with the
 * `core` transport; with `file`, at the next 276 export). A claim never submitted (draft,
 * not_billable) is `ClaimNotSubmitted`; another workspace's claim is not found.
 */
export const requestStatusCheck = (ws: WorkspaceId, claimId: string) =>
  Effect.gen(function* () {
    const { claim } = yield* claimOf(ws, claimId)
    if (NEVER_SUBMITTED.includes(claim.status)) return yield* new ClaimNotSubmitted({ claim_id: claim.id, status: claim.status })
    const id = (yield* Ids).next()
    const at = isoTime((yield* Clock).now())
    const check = newCheck(ws, id, claim.id, yield* transportOf(ws), at, "request", id)
    yield* commit({ operation: "requestStatusCheck", steps: [insert("status_checks", check)] })
    if (check.transport === "core") yield* notifyStatusChecks
    return toStatusCheck(check)
  })

export interface StatusCheckPageQuery {
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/** A claim's checks, newest first. */
export const listStatusChecks = (ws: WorkspaceId, claimId: string, query: StatusCheckPageQuery) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const scope = tokenScope([ws, "claim-status-checks", claimId])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const { claim } = yield* claimOf(ws, claimId)
    const rows = yield* (yield* Storage).page("status_checks", ws, { where: { claim_id: claim.id }, position, limit })
    return toPage(rows, limit, position, (r) => [r.created_at, r.id], scope, toStatusCheck)
  })

/** One check by id; another workspace's is not found. */
export const getStatusCheck = (ws: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    const found = yield* (yield* Storage).get("status_checks", ws, id)
    if (Option.isNone(found)) return yield* new StatusCheckNotFound({ id })
    return toStatusCheck(found.value)
  })
