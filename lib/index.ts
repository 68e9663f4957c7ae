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
/**
 * The ports: storage, clock and id generation (swap `Clock.manual` in for tests that control time).
 * `Storage` answers reads and executes `Write`s: the complete writes rules compute (`insert`,
 * `update` with compare-and-set, `appendEvent`), atomically, refusing them on a taken unique key
 * or a stale row. `Tables` defines every stored table once (record schema, JSON columns, unique
 * keys). `DatabaseAdmin`: backup (checked copy) and migration status, provided by each database layer.
 */
export {
  Storage,
  type StorageShape,
  isKnownRecord,
  type HeldRecords,
  type KnownRecord,
  type ListedRecord,
  type ClaimStatusCount,
  type EncounterEventScan,
  type EncounterScan,
  type EventScan,
  type PageScan,
  type RawRequestScan
} from "./ports/storage.js"
export { appendEvent, insert, update, type Write, type WriteResult } from "./ports/write.js"
export { Tables, type TableName, type RecordOf } from "./ports/tables.js"
export { DatabaseAdmin, type DatabaseAdminShape, type BackupResult } from "./ports/database-admin.js"
export { Clock, Ids } from "./ports/clock.js"
/**
 * The metrics port: storage adapters report commit and fsync durations and group-commit sizes,
 * the delivery worker its queue depth and outcomes. Provide `Metrics` with your own sink (the
 * server's registry: `makeServerMetrics().layer`); the default, `noMetrics`, records nothing.
 */
export { Metrics, noMetrics, type DeliveryOutcome, type MetricsSink } from "./ports/metrics.js"

// ---- Operations ---------------------------------------------------------------------------

/**
 * Intake. `intakeEncounter({workspace_id, body, content_type?, key_id?, source?})` stores the raw
 * bytes first, then validates and creates the encounter, its first claim and the Created event in
 * one transaction; idempotent on (workspace, external_id): a replay answers `duplicate: true`.
 * `createEncounter(workspaceId, payload)` does the same for a payload object.
 * Errors: `InvalidJson`, `InvalidEncounter` (every problem with its path, up to `MAX_PROBLEMS`, then one
 * with the code `too_many_problems`), `PatientControlNumberTaken`, `StorageError`.
 */
export { createEncounter, intakeEncounter, type IntakeRequest, type IntakeResult } from "./rules/create-encounter.js"
/**
 * The intake log. `listIntakeRequests(ws, {outcome?, external_id?, received_after?, received_before?,
 * limit?, page_token?})`: every stored create request with its outcome, newest first;
 * `getIntakeRequest(ws, id)` adds the body as received (`IntakeRequestNotFound`).
 */
export { getIntakeRequest, listIntakeRequests, type IntakeListQuery } from "./rules/intake-log.js"
/** On an empty database: the workspace `default` and one key with every scope (what `serve` does first). */
export { ensureFirstRun } from "./rules/workspaces.js"
/**
 * Reads. `getEncounter(ws, id)` (error `EncounterNotFound`, also for another workspace's id);
 * `listEncounters(ws, {external_id?, claim_status?, patient_last_name?, patient_date_of_birth?,
 * date_of_service_from?, date_of_service_to?, external_id_prefix?, payer_id?, limit?, page_token?},
 * vocabulary?)` newest first, every filter given applying, keyset-paged both ways (errors
 * `InvalidQuery` for bad limits, filters and tokens, each named; see docs/api.md "Finding an
 * encounter"). `listHeldEncounters(ws, query, vocabulary, held)`: the same page for a reader that
 * keeps what it made of encounters by id and revision (`held(id, revision)` answers it, or
 * undefined): those come back as `KnownEncounter`s carrying it, and only the others' rows are read
 * (a search's rows may be read whole).
 */
export { getEncounter, listEncounters, listHeldEncounters, type EncounterListQuery, type StatusFilterVocabulary } from "./rules/read-encounters.js"
/**
 * Events. `listEvents(ws, {event_types?, created_after?, created_before?, limit?, page_token?})`
 * oldest first in recorded order, inclusive time bounds; `getEvent(ws, id)` (`EventNotFound`).
 */
export { getEvent, listEvents, type EventListQuery } from "./rules/read-events.js"
/**
 * Claim status. `changeClaimStatus(ws, claimId, status, note?)` moves along `ClaimTransitions`,
 * writing one StatusUpdated event per change (none when the status is unchanged). Errors:
 * `ClaimNotFound`, `InvalidTransition`, `InvalidStatusChange` (a note over `NOTE_MAX_LENGTH`).
 * Race-safe: a compare-and-set on the status.
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

// ---- Clearinghouse exchange (X12) ------------------------------------------------------------

/**
 * Settings per workspace: `putClearinghouseSettings(ws, input)` (every problem listed:
 * `InvalidClearinghouseSettings`), `getClearinghouseSettings(ws)` (`ClearinghouseSettingsNotFound`).
 */
export { getClearinghouseSettings, putClearinghouseSettings } from "./rules/clearinghouse-settings.js"
/**
 * 837P out. `preview837P(ws, claimId)` → the interchange text, nothing stored or moved.
 * `createX12Batch(ws, claimIds)` (1 to `MAX_BATCH_CLAIMS`) → `X12Batch`: in one write the next
 * control number, every claim to `submitted_to_payer` with its StatusUpdated event, and the batch
 * with its bytes. Errors: `ClearinghouseNotConfigured`, `ClaimNotFound`, `BatchTransitionsRefused`,
 * `ClaimsNotExportable` (each claim with its `{field, message}` problems), `InvalidExportRequest`.
 */
export { createX12Batch, MAX_BATCH_CLAIMS, preview837P } from "./rules/x12-export.js"
/**
 * 999, 277CA and 835 in. `importX12File({workspace_id, body, content_type, key_id?})` →
 * `InboundResult` `{id, kind, duplicate, claims: [{patient_control_number, claim_id, outcome,
 * previous_status, status, detail}], summary}`; the file and its effects in one write, or, for a
 * file naming many claims, in writes of about `ImportWriteSteps` steps (a FiberRef) with the file
 * `importing` until the last; `finishImports` finishes files a stopped process left importing
 * (the server runs it as it starts; the same file sent again finishes it too). The same
 * interchange again answers `duplicate: true` and applies nothing; malformed input fails with
 * `X12ReadError` (segment id and 1-based position) and applies nothing, as does a file beyond what
 * one file may do: an 835 with more than `MAX_CLAIM_PAYMENTS_PER_FILE` CLPs for one claim, a 999
 * acknowledging more than `MAX_999_GROUPS` batches. A claim a 999 or 277CA names again has one
 * outcome (the last decision); at most `MAX_UNMATCHED_OUTCOMES` unmatched entries are listed; the
 * answer lists the first `IMPORT_OUTCOMES_SHOWN` outcomes, `listX12FileOutcomes` pages them all.
 */
export { finishImports, importX12File, ImportWriteSteps, type X12Upload } from "./rules/x12-import.js"
export { MAX_999_GROUPS, MAX_CLAIM_PAYMENTS_PER_FILE, MAX_UNMATCHED_OUTCOMES } from "./rules/x12-import-bounds.js"
/**
 * Reads: batches (`getX12BatchFile` answers the exact bytes) and files received, newest first,
 * each with a summary of its outcomes and its first `FILE_OUTCOMES_SHOWN`;
 * `listX12FileOutcomes(ws, fileId, {limit?, page_token?})` pages a file's outcomes in file order
 * (`X12FileNotFound`, `InvalidQuery`).
 */
export {
  getX12Batch,
  getX12BatchFile,
  getX12File,
  listX12Batches,
  listX12FileOutcomes,
  listX12Files,
  type X12PageQuery
} from "./rules/x12-reads.js"
/**
 * A claim's remittances, newest first, paged: `listClaimRemittances(ws, claimId, {limit?,
 * page_token?})` (`ClaimNotFound`, `InvalidQuery`). Reads of a claim carry its
 * `REMITTANCES_SHOWN` most recent and `more_remittances`.
 */
export { listClaimRemittances, type RemittancePageQuery } from "./rules/claim-remittances.js"
export { ClearinghouseSettings, InvalidClearinghouseSettings, decodeClearinghouseSettings } from "./domain/clearinghouse.js"
export {
  FILE_OUTCOMES_SHOWN,
  IMPORT_OUTCOMES_SHOWN,
  InboundClaimOutcome,
  InboundResult,
  OutcomeSummary,
  X12Batch,
  X12File
} from "./domain/x12-exchange.js"
export { Remittance, REMITTANCES_SHOWN } from "./domain/remittance.js"
/**
 * Claim status inquiries (276 out, 277 in; docs/status-checks.md). `requestStatusCheck(ws,
 * claimId)` → a queued `StatusCheck` (`ClaimNotFound`, `ClaimNotSubmitted` for draft and
 * not_billable claims); `listStatusChecks` pages a claim's checks newest first, `getStatusCheck`
 * reads one (`StatusCheckNotFound`). `export276(ws, claimIds?)` writes the queued file-transport
 * checks as one 276 and marks them sent; an imported 277 (`importX12File`) answers them.
 * `put/getStatusCheckSettings` set the follow-up schedule and transport (the core password sealed
 * with `WebhookSettings`' key). `StatusCheckWorker.layer()` makes due follow-ups and sends `core`
 * checks over the CAQH CORE envelope while the layer is alive.
 */
export { getStatusCheck, listStatusChecks, requestStatusCheck } from "./rules/status-checks.js"
export { export276 } from "./rules/status-checks-export.js"
export { getStatusCheckSettings, putStatusCheckSettings } from "./rules/status-check-settings.js"
export { StatusCheckWorker, type StatusCheckWorkerOptions } from "./rules/status-checks-worker.js"
export { categoryEffect, needsAttention, StatusCheck } from "./domain/status-check.js"
export {
  ClaimNotSubmitted,
  InvalidStatusCheckSettings,
  StatusCheckNotFound,
  StatusCheckSettings,
  StatusCheckSettingsNotFound
} from "./domain/status-check-settings.js"
export {
  BatchTransitionsRefused,
  ClearinghouseNotConfigured,
  ClearinghouseSettingsNotFound,
  ControlNumbersExhausted,
  X12BatchNotFound,
  X12FileNotFound
} from "./domain/x12-exchange-errors.js"
export { ClaimsNotExportable, ExportProblem, InvalidExportRequest, X12ReadError, X12WriteError } from "./x12/errors.js"
/** The pure X12 core, for embedders who move files themselves. */
export { build837P, type Export837PInput, type Export837PResult } from "./x12/export-837p/build.js"
export { exportability } from "./x12/export-837p/exportability.js"
export { detectKind, readInterchange } from "./x12/read/interchange.js"
export { read999 } from "./x12/read/ack-999.js"
export { read277CA } from "./x12/read/ack-277ca.js"
export { read835 } from "./x12/read/remit-835.js"
export { actionsFrom999, statusFrom277Claim, statusFrom835Claim, type StatusAction } from "./x12/status-mapping.js"
/**
 * Webhook endpoints (push delivery, Standard Webhooks). Each needs `WebhookSettings` (the key that
 * seals signing secrets, the target policy; `webhookSettingsLayer({db, keyFile?, allowPrivate?})`,
 * built on the `Storage` it seals for: a missing key file is made only while that database holds no
 * endpoint, else refused with `SecretKeyError`; `memoryLayer` has one): `createWebhookEndpoint(ws, {url, event_types?, description?})` (the
 * secret is answered once; `InvalidWebhookInput` names each path, private targets are refused
 * unless allowed), `listWebhookEndpoints`, `getWebhookEndpoint`, `updateWebhookEndpoint(ws, id,
 * patch)`, `deleteWebhookEndpoint`, `rotateWebhookSecret` (both secrets sign for 24 hours).
 * Errors: `WebhookEndpointNotFound` (also another workspace's), `WebhooksUnavailable` (no key),
 * `WebhookEndpointLimitReached` (the workspace has `maxEndpoints` of the settings, default 50).
 */
export {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type EndpointListQuery
} from "./rules/webhook-endpoints.js"
/**
 * Deliveries: `listWebhookDeliveries(ws, endpointId, {status?, limit?, page_token?})` newest first;
 * `retryWebhookDelivery(ws, id)` (one more attempt now, also for a failed one);
 * `recoverWebhookDeliveries(ws, endpointId, {since, page_token?})` queues the matching events
 * since then again, at most 1,000 per call (`{queued, more, next_page_token}`: call again with the
 * token while `more`), due 50 ms apart behind what the endpoint already has pending.
 * Deliveries are written with their event (the outbox) and made by the delivery worker.
 */
export {
  listWebhookDeliveries,
  RECOVER_LIMIT,
  RECOVER_PACE_MS,
  recoverWebhookDeliveries,
  retryWebhookDelivery,
  type DeliveryListQuery,
  type WebhookRecovery
} from "./rules/webhook-deliveries.js"
/**
 * The delivery worker: `DeliveryWorker.layer({concurrency?, perEndpoint?, perWorkspace?, pollMs?})`
 * runs while the layer lives (or `runDeliveryWorker()` as an effect); it claims due deliveries with
 * a lease, so several processes on one database share the work. Its slots are shared fairly: one
 * workspace has at most half of them (less while others have attempts under way), so slow or dead
 * endpoints delay only their own workspace. It needs Storage, Clock and WebhookSettings.
 */
export { DeliveryWorker, runDeliveryWorker, workspaceShare, type WorkerOptions } from "./webhooks/worker.js"
export {
  DEFAULT_MAX_ENDPOINTS,
  ephemeralWebhookSettings,
  WebhookSettings,
  webhookSettingsLayer,
  type WebhookSettingsOptions,
  type WebhookSettingsShape
} from "./webhooks/settings.js"
export { DeliverySignal } from "./webhooks/signal.js"

// ---- Domain -------------------------------------------------------------------------------

/** Claim statuses, the five filterable ones, and the transition table (the product's rule). */
export {
  allowedTransitions,
  canTransition,
  ClaimStatus,
  ClaimStatuses,
  ClaimTransitions,
  FilterableClaimStatus,
  FilterableClaimStatuses,
  NOTE_MAX_LENGTH
} from "./domain/claim-status.js"
/** The create payload schema (vendor v4 EncounterCreate shape) and its all-at-once validator. */
export { EncounterCreate } from "./domain/encounter-input.js"
export { validateEncounterCreate } from "./domain/validate.js"
/**
 * How many problems a validation answers (100): past it, the list ends with one problem whose
 * `code` is `too_many_problems` and whose message states how many were found.
 */
export { MAX_PROBLEMS, TOO_MANY_PROBLEMS } from "./domain/problems.js"
/** Normalized views: `toEncounter` (Encounter with latest claim), `toClaim`. */
export {
  Claim,
  Encounter,
  isKnownEncounter,
  listedKey,
  toClaim,
  toEncounter,
  type EncounterWithClaim,
  type HeldEncounters,
  type KnownEncounter,
  type ListedEncounter
} from "./domain/encounter.js"
export { Event, EventTypes, SCHEMA_VERSION, toEvent } from "./domain/event.js"
export { Page, DEFAULT_LIMIT, MAX_LIMIT } from "./domain/page.js"
export { Workspace, Scopes, type Scope, type Principal, type ApiKeyView } from "./domain/workspace.js"
export { ApiKeyId, ClaimId, EncounterId, EventId, WorkspaceId } from "./domain/ids.js"
/** Webhook records and views: endpoints (never a secret in a view), deliveries, statuses. */
export {
  WebhookDeliveryStatuses,
  WebhookDeliveryView,
  WebhookEndpointCreated,
  WebhookEndpointStatus,
  WebhookEndpointView
} from "./domain/webhook.js"
export {
  InvalidWebhookInput,
  WebhookDeliveryNotFound,
  WebhookEndpointLimitReached,
  WebhookEndpointNotFound,
  WebhooksUnavailable
} from "./domain/webhook-errors.js"
/** Typed errors; each has a `_tag` and a readable `message`. */
export {
  ApiKeyGivenForId,
  ApiKeyNotFound,
  ClaimNotFound,
  EncounterNotFound,
  EventNotFound,
  BackupFailed,
  DatabaseMissing,
  DatabaseUnusable,
  IntakeRequestNotFound,
  FieldIssue,
  InvalidEncounter,
  InvalidJson,
  InvalidQuery,
  InvalidStatusChange,
  InvalidTransition,
  PatientControlNumberTaken,
  SlugTaken,
  StorageError,
  Unauthorized,
  WorkspaceNotFound
} from "./domain/errors.js"

/**
 * The work queue: tasks the service makes from rejections, denials, payments to review and claims
 * the payer has not answered, in the same write as their cause (the commit path derives them).
 * `listTasks(ws, {status?, type?, category?, assignee?, claim_id?, due_before?, limit?,
 * page_token?})` is oldest due first (`InvalidQuery`); `getTask` (`TaskNotFound`); `updateTask(ws,
 * id, {status?, assignee?, due_at?, note?}, keyId?)` (`TaskNotFound`, `InvalidTaskChange`).
 * `listRenderedTasks(ws, query, render, held?)`: the same page with each task as `render(task,
 * revision)` makes it, for a reader that keeps those by task id and revision (`held(id, revision)`
 * answers one, or undefined): the page's keys are read first, then only the tasks not held.
 */
export { getTask, listRenderedTasks, listTasks, type TaskChange, type TaskQuery, updateTask } from "./rules/tasks.js"
/**
 * The follow-up setting per workspace (`follow_up_after_days`, 1 to 365 or null;
 * `InvalidTaskChange`) and the sweep that makes `claim_follow_up` tasks, leased per workspace
 * (`runFollowUpSweeper` runs it every minute until interrupted).
 */
export { getWorkQueueSettings, putWorkQueueSettings, runFollowUpSweeper, sweepFollowUps } from "./rules/task-follow-ups.js"
/** A task and its parts, the types and statuses, and the settings' schema. */
export { Task, TaskCause, TaskNote, TaskStatuses, TaskTypes, WorkQueueSettings } from "./domain/task.js"
export { InvalidTaskChange, TaskNotFound } from "./domain/task-errors.js"
/** What the codes of 999s, 277s and 835s mean (CARC, RARC, STC, IK3/IK4/IK5), and the task categories derived from them. */
export { categoryOf, CodeMeanings, meaningOfCauseCode, TaskCategories } from "./domain/code-meanings.js"
