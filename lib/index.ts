/**
 * encounterd as a library: encounter intake, claims, events and cursor paging behind a storage
 * port. Every operation is an Effect that needs `Storage`, `Clock` and `Ids`; build them with
 * `memoryLayer` (tests), `sqliteLayer` from `encounterd/sqlite-bun` or `encounterd/sqlite-node`,
 * `postgresLayer` from `encounterd/postgres`, or `sqlLayer` over any `@effect/sql` SqlClient. Callers without Effect use `encounterd/promise`.
 *
 * Spec: `service-spec.md` (Resources, States, Events, Limits); gaps decided in `DECISIONS.md`.
 */

// ---- Layers -------------------------------------------------------------------------------

/**
 * `memoryLayer`: the whole service on fresh in-memory storage (state lives as long as the layer).
 * `sqlLayer`: the whole service on the `SqlClient` you provide (run `migrate` first).
 * `liveServices`: the real clock and UUIDv7 ids, to pair with a storage layer of your own.
 */
export { liveServices, memoryLayer, sqlLayer } from "./layers.js"
/** Storage adapters: `MemoryStorage.layer` and `SqlStorage.layer` (needs a SqlClient). */
export { MemoryStorage } from "./adapters/memory/storage.js"
export { SqlStorage } from "./adapters/sql/storage.js"
/** Versioned schema migrations for the SQL adapter (`migrate` runs the pending ones). */
export { migrate, migrations } from "./adapters/sql/migrations/index.js"
/** The ports: storage, clock and id generation (swap `Clock.manual` in for tests that control time). */
export { Storage, type StorageShape } from "./ports/storage.js"
export { Clock, Ids } from "./ports/clock.js"

// ---- Operations ---------------------------------------------------------------------------

/**
 * Intake. `intakeEncounter({workspace_id, body, content_type?, key_id?, source?})` stores the raw
 * bytes first, then validates and creates the encounter, its first claim and the Created event in
 * one transaction; idempotent on (workspace, external_id): a replay answers `duplicate: true`.
 * `createEncounter(workspaceId, payload)` does the same for a payload object.
 * Errors: `InvalidJson`, `InvalidEncounter` (every problem with its path), `PatientControlNumberTaken`, `StorageError`.
 */
export { createEncounter, intakeEncounter, type IntakeRequest, type IntakeResult } from "./rules/create-encounter.js"
/**
 * Reads. `getEncounter(ws, id)` (error `EncounterNotFound`, also for another workspace's id);
 * `listEncounters(ws, {external_id?, claim_status?, limit?, page_token?}, vocabulary?)` newest
 * first, keyset-paged both ways (errors `InvalidQuery` for bad limits, filters and tokens).
 */
export { getEncounter, listEncounters, type EncounterListQuery, type StatusFilterVocabulary } from "./rules/read-encounters.js"
/**
 * Events. `listEvents(ws, {event_types?, created_after?, created_before?, limit?, page_token?})`
 * oldest first in recorded order, inclusive time bounds; `getEvent(ws, id)` (`EventNotFound`).
 */
export { getEvent, listEvents, type EventListQuery } from "./rules/read-events.js"
/**
 * Claim status. `changeClaimStatus(ws, claimId, status, note?)` moves along `ClaimTransitions`,
 * writing one StatusUpdated event per change (none when the status is unchanged). Errors:
 * `ClaimNotFound`, `InvalidTransition`. Race-safe: a compare-and-set on the status.
 */
export { changeClaimStatus, type StatusChangeResult } from "./rules/change-claim-status.js"
/**
 * Workspaces and API keys: `createWorkspace(slug, name)`, `listWorkspaces()`, `findWorkspace(slug)`,
 * `createApiKey(slug, scopes?)` (the secret is returned once; only its SHA-256 is stored),
 * `listApiKeys(slug)`, `revokeApiKey(id)`, `authenticate(key)` → workspace and scopes (`Unauthorized`).
 */
export {
  authenticate,
  createApiKey,
  createWorkspace,
  findWorkspace,
  hashKey,
  listApiKeys,
  listWorkspaces,
  revokeApiKey,
  type CreatedApiKey
} from "./rules/workspaces.js"

// ---- Domain -------------------------------------------------------------------------------

/** Claim statuses, the five filterable ones, and the transition table (the product's rule). */
export {
  allowedTransitions,
  canTransition,
  ClaimStatus,
  ClaimStatuses,
  ClaimTransitions,
  FilterableClaimStatus,
  FilterableClaimStatuses
} from "./domain/claim-status.js"
/** The create payload schema (vendor v4 EncounterCreate shape) and its all-at-once validator. */
export { EncounterCreate } from "./domain/encounter-input.js"
export { validateEncounterCreate } from "./domain/validate.js"
/** Normalized views: `toEncounter` (Encounter with latest claim), `toClaim`. */
export { Claim, Encounter, toClaim, toEncounter, type EncounterWithClaim } from "./domain/encounter.js"
export { Event, EventTypes, SCHEMA_VERSION, toEvent } from "./domain/event.js"
export { Page, DEFAULT_LIMIT, MAX_LIMIT } from "./domain/page.js"
export { Workspace, Scopes, type Scope, type Principal, type ApiKeyView } from "./domain/workspace.js"
export { ApiKeyId, ClaimId, EncounterId, EventId, WorkspaceId } from "./domain/ids.js"
/** Typed errors; each has a `_tag` and a readable `message`. */
export {
  ApiKeyNotFound,
  ClaimNotFound,
  EncounterNotFound,
  EventNotFound,
  FieldIssue,
  InvalidEncounter,
  InvalidJson,
  InvalidQuery,
  InvalidTransition,
  PatientControlNumberTaken,
  SlugTaken,
  StorageError,
  Unauthorized,
  WorkspaceNotFound
} from "./domain/errors.js"
