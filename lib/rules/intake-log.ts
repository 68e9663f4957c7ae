import { Effect, Option } from "effect"
import { IntakeOutcomes, type IntakeOutcome, type RawRequestRecord } from "../domain/encounter.js"
import { FieldIssue, type FieldIssueJson, IntakeRequestNotFound, InvalidQuery } from "../domain/errors.js"
import { isUuid, RawRequestId, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, timeBound, toPage, tokenScope } from "../domain/page.js"
import { Storage } from "../ports/storage.js"

export interface IntakeListQuery {
  readonly outcome?: string | undefined
  readonly external_id?: string | undefined
  /** Inclusive bounds on `received_at`: ISO 8601 date-times. */
  readonly received_after?: string | undefined
  readonly received_before?: string | undefined
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/** One entry of the intake log: what came in and what became of it. */
export interface IntakeRequest {
  readonly id: string
  readonly received_at: string
  readonly outcome: IntakeOutcome | null
  readonly external_id: string | null
  readonly encounter_id: string | null
  readonly errors: ReadonlyArray<FieldIssueJson>
}

/** An entry with the request exactly as received. */
export interface IntakeRequestDetail extends IntakeRequest {
  readonly content_type: string
  /** The body as received, as text (UTF-8). */
  readonly body: string
}

export const toIntakeRequest = (r: RawRequestRecord): IntakeRequest => ({
  id: r.id,
  received_at: r.received_at,
  outcome: r.outcome ?? r.result?.outcome ?? null,
  external_id: r.external_id,
  encounter_id: r.result !== null && r.result.outcome !== "rejected" ? r.result.encounter_id : null,
  errors: r.result?.outcome === "rejected" ? r.result.errors : []
})

const decoder = new TextDecoder()

const isOutcome = (s: string): s is IntakeOutcome => IntakeOutcomes.some((o) => o === s)

/** The intake log: stored raw requests newest first, filtered, keyset-paged both ways. */
export const listIntakeRequests = (workspaceId: WorkspaceId, query: IntakeListQuery) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const issues: Array<FieldIssue> = []
    const outcome = query.outcome
    if (outcome !== undefined && !isOutcome(outcome)) {
      issues.push(new FieldIssue({ path: "outcome", message: `must be one of: ${IntakeOutcomes.join(", ")}` }))
    }
    const after = timeBound("received_after", query.received_after)
    const before = timeBound("received_before", query.received_before)
    if (Array.isArray(after)) issues.push(...after)
    if (Array.isArray(before)) issues.push(...before)
    if (issues.length > 0) return yield* new InvalidQuery({ errors: issues })
    const filters = {
      outcome: outcome !== undefined && isOutcome(outcome) ? outcome : undefined,
      external_id: query.external_id,
      received_after: typeof after === "string" ? after : undefined,
      received_before: typeof before === "string" ? before : undefined
    }
    const scope = tokenScope([workspaceId, "intake", filters.outcome ?? null, filters.external_id ?? null, filters.received_after ?? null, filters.received_before ?? null])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const storage = yield* Storage
    const rows = yield* storage.listRawRequests(workspaceId, { ...filters, position, limit })
    return toPage(rows, limit, position, (r) => [r.received_at, r.id], scope, toIntakeRequest)
  })

/** One stored raw request of the workspace, with its body; another workspace's is not found. */
export const getIntakeRequest = (workspaceId: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    if (!isUuid(id)) return yield* new IntakeRequestNotFound({ id })
    const storage = yield* Storage
    const found = yield* storage.get("raw_requests", workspaceId, RawRequestId.make(id))
    if (Option.isNone(found)) return yield* new IntakeRequestNotFound({ id })
    const r = found.value
    return { ...toIntakeRequest(r), content_type: r.content_type, body: decoder.decode(r.body) } satisfies IntakeRequestDetail
  })
