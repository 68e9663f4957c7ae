import { Effect, Option } from "effect"
import { ClaimStatuses, FilterableClaimStatuses } from "../domain/claim-status.js"
import { checkEncounterSearch, type EncounterSearch, searchScope } from "../domain/encounter-search.js"
import { type HeldEncounters, type ListedEncounter, listedKey } from "../domain/encounter.js"
import { EncounterNotFound, FieldIssue, InvalidQuery, type StorageError } from "../domain/errors.js"
import { EncounterId, isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, toPage, tokenScope } from "../domain/page.js"
import { type EncounterScan, Storage, type StorageShape } from "../ports/storage.js"

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
) =>
  Effect.gen(() =>
    listEncountersGen(workspaceId, query, vocabulary, (storage, scan) => storage.listEncounters(workspaceId, scan), (r) => [r.encounter.created_at, r.encounter.id])
  )

/**
 * `listEncounters` for a reader that holds some encounters already (a server's renders): those it
 * holds at their revision come back as `KnownEncounter`s with its value, and only the others are
 * read whole (`StorageShape.listEncounters`). The same page, tokens and errors. Without `held`
 * (a reader that expects to hold little of this page), every row is read at once.
 */
export const listHeldEncounters = <K>(workspaceId: WorkspaceId, query: EncounterListQuery, vocabulary: StatusFilterVocabulary, held: HeldEncounters<K> | undefined) =>
  Effect.gen(() =>
    listEncountersGen<ListedEncounter<K>>(
      workspaceId,
      query,
      vocabulary,
      (storage, scan) => (held === undefined ? storage.listEncounters(workspaceId, scan) : storage.listEncounters(workspaceId, scan, held)),
      listedKey
    )
  )

function* listEncountersGen<A>(
  workspaceId: WorkspaceId,
  query: EncounterListQuery,
  vocabulary: StatusFilterVocabulary,
  read: (storage: StorageShape, scan: EncounterScan) => Effect.Effect<ReadonlyArray<A>, StorageError>,
  key: (item: A) => readonly [string, string]
) {
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
  const rows = yield* read(storage, {
    ...search,
    external_id: query.external_id,
    claim_status: query.claim_status,
    position,
    limit
  })
  return toPage(rows, limit, position, key, scope, (r) => r)
}
