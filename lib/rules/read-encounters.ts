import { Effect, Option } from "effect"
import { ClaimStatuses, FilterableClaimStatuses } from "../domain/claim-status.js"
import { checkEncounterSearch, type EncounterSearch, searchScope } from "../domain/encounter-search.js"
import { EncounterNotFound, FieldIssue, InvalidQuery } from "../domain/errors.js"
import { EncounterId, isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, toPage, tokenScope } from "../domain/page.js"
import { Storage } from "../ports/storage.js"

/** One encounter of the workspace with its latest claim; another workspace's is not found. */
export const getEncounter = (workspaceId: WorkspaceId, id: string) => Effect.gen(() => getEncounterGen(workspaceId, id))

function* getEncounterGen(workspaceId: WorkspaceId, id: string) {
  if (!isUuid(id)) return yield* new EncounterNotFound({ id })
  const storage = yield* Storage
  const found = yield* storage.findEncounter(workspaceId, EncounterId.make(id))
  if (Option.isNone(found)) return yield* new EncounterNotFound({ id })
  return found.value
}

/** A list's query: the external id, the claim status and the search filters (`EncounterSearch`), all combinable. */
export interface EncounterListQuery extends EncounterSearch {
  readonly external_id?: string | undefined
  readonly claim_status?: string | undefined
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/**
 * Which claim statuses a list accepts as filter: the normalized list the spec's five, the compat
 * list the whole vocabulary.
 */
export type StatusFilterVocabulary = "filterable" | "all"

const vocabularies: Record<StatusFilterVocabulary, ReadonlyArray<string>> = {
  filterable: FilterableClaimStatuses,
  all: ClaimStatuses
}

/**
 * Encounters newest first by (created_at, id), keyset-paged both ways, narrowed by every filter
 * given (`InvalidQuery` names each bad one, all at once).
 */
export const listEncounters = (
  workspaceId: WorkspaceId,
  query: EncounterListQuery,
  vocabulary: StatusFilterVocabulary = "filterable"
) => Effect.gen(() => listEncountersGen(workspaceId, query, vocabulary))

function* listEncountersGen(workspaceId: WorkspaceId, query: EncounterListQuery, vocabulary: StatusFilterVocabulary) {
  const limit = yield* checkLimit(query.limit)
  const statuses = vocabularies[vocabulary]
  const issues: Array<FieldIssue> = []
  if (query.claim_status !== undefined && !statuses.includes(query.claim_status)) {
    issues.push(new FieldIssue({ path: "claim_status", message: `must be one of ${statuses.join(", ")}` }))
  }
  const search = checkEncounterSearch(query, issues)
  if (issues.length > 0) return yield* new InvalidQuery({ errors: issues })
  // Without a search filter the scope is what it was before the search existed: tokens stay valid.
  const scope = tokenScope([
    workspaceId,
    "encounters",
    query.external_id ?? null,
    query.claim_status ?? null,
    ...(search === undefined ? [] : searchScope(search))
  ])
  const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
  const storage = yield* Storage
  const rows = yield* storage.listEncounters(workspaceId, {
    ...search,
    external_id: query.external_id,
    claim_status: query.claim_status,
    position,
    limit
  })
  return toPage(rows, limit, position, (r) => [r.encounter.created_at, r.encounter.id], scope, (r) => r)
}
