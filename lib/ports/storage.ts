import { Context, type Effect, type Option } from "effect"
import type { CheckedSearch } from "../domain/encounter-search.js"
import type { ClaimRecord, EncounterRecord, EncounterWithClaim, HeldEncounters, IntakeOutcome, ListedEncounter, RawRequestRecord } from "../domain/encounter.js"
import type { StorageError } from "../domain/errors.js"
import type { TaskRecord } from "../domain/task.js"
import type { FeedEvent, StoredEvent } from "../domain/event.js"
import type { ApiKeyId, ClaimId, EncounterId, EventId, RawRequestId, WorkspaceId } from "../domain/ids.js"
import type { Position } from "../domain/page.js"
import type { WebhookDeliveryRecord, WebhookDeliveryStatus, WebhookEndpoint, WebhookSubscription } from "../domain/webhook.js"
import type { UserWithWorkspace } from "../domain/user.js"
import type { ApiKeyRecord, KeyWithWorkspace, Workspace } from "../domain/workspace.js"
import type { ClearinghouseSettingsRecord, X12BatchRecord, X12FileOutcomeRecord, X12FileRecord } from "../domain/x12-exchange.js"
import type { PagedTable, PageFilter, RecordOf, WorkspaceTable } from "./tables.js"
import type { CommittedWrite, WriteResult } from "./write.js"

/**
 * List encounters newest first by (created_at, id); rows come back in scan order, at most
 * `limit + 1`. Every filter given applies (see `EncounterSearch` for what each means).
 */
export interface EncounterScan extends CheckedSearch {
  readonly external_id?: string | undefined
  readonly claim_status?: string | undefined
  readonly position?: Position | undefined
  readonly limit: number
}

/**
 * The encounters whose latest claim is in one status, ordered by how long it has been in it
 * (`latest_claim_status_changed_at`) or by its billed amount (`billed_cents`), then by id, both
 * ascending or both descending; the position's key is (that value, id). Rows come back in scan
 * order, at most `limit + 1`.
 */
export interface ClaimWorkScan {
  readonly status: string
  readonly by: "status_changed_at" | "billed_cents"
  readonly descending: boolean
  readonly position?: Position | undefined
  readonly limit: number
}

/** List events oldest first by recorded order (seq); rows come back in scan order, at most `limit + 1`. */
export interface EventScan {
  readonly event_types?: ReadonlyArray<string> | undefined
  /** Inclusive bounds on `created_at`, as ISO strings. */
  readonly created_after?: string | undefined
  readonly created_before?: string | undefined
  readonly position?: Position | undefined
  readonly limit: number
}

/** An encounter's own events oldest first by recorded order (seq); rows come back in scan order, at most `limit + 1`. */
export interface EncounterEventScan {
  /** Only events recorded after this place in the feed (a `seq`). */
  readonly after?: number | undefined
  readonly limit: number
}

/** How many encounters' latest claims are in one status, and what they bill together. */
export interface ClaimStatusCount {
  readonly status: string
  readonly count: number
  /** The sum of their `billed_cents`. */
  readonly billed_cents: number
}

/** List raw requests newest first by (received_at, id); rows come back in scan order, at most `limit + 1`. */
export interface RawRequestScan {
  readonly outcome?: IntakeOutcome | undefined
  readonly external_id?: string | undefined
  /** Inclusive bounds on `received_at`, as ISO strings. */
  readonly received_after?: string | undefined
  readonly received_before?: string | undefined
  readonly position?: Position | undefined
  readonly limit: number
}

/** A newest-first page of a workspace's records by (time, id); at most `limit + 1` rows in scan order. */
export interface PageScan {
  readonly position?: Position | undefined
  readonly limit: number
}

/** A list in stored order by a place number (`position`), oldest first; at most `limit + 1` rows in scan order. */
export interface PlaceScan {
  readonly position?: Position | undefined
  readonly limit: number
}

/** How `findClaims` names claims: by their ids or by their patient control numbers. */
export type ClaimKey = "id" | "patient_control_number"

/** A claim with the keys of its encounter that a status move of it needs. */
export interface ClaimWithEncounterKeys {
  readonly claim: ClaimRecord
  readonly encounter: Pick<EncounterRecord, "id" | "external_id" | "latest_claim_id">
}

/**
 * A claim with what a change of it needs of its encounter: the keys its write compares and the
 * content the changed claim is shown with. One row: no remittances, no search columns.
 */
export interface ClaimWithEncounterContent {
  readonly claim: ClaimRecord
  readonly encounter: Pick<EncounterRecord, "id" | "external_id" | "latest_claim_id" | "payload">
}

/** A page of a table (`Pages`): newest first by its key, the rows equal to `where` on its filter columns. */
export interface TablePageScan<T extends PagedTable> extends PageScan {
  readonly where?: { readonly [C in PageFilter<T>]?: C extends keyof RecordOf<T> ? RecordOf<T>[C] | undefined : never }
}

/**
 * What a reader already holds of a table's records, by id and revision (a record of a table with a
 * revision column reads the same at the same revision: every update adds one to it). A page read
 * with it reads the page's keys first, then the rows of only the records the reader does not hold.
 */
export type HeldRecords<K> = (id: string, revision: number) => K | undefined

/** A record of a page whose reader holds what it needs of it at this revision: its page key and the reader's value. */
export interface KnownRecord<K> {
  readonly _tag: "Known"
  readonly id: string
  /** The page key's time column, as stored. */
  readonly time: string
  readonly revision: number
  readonly value: K
}

/** An item of a page read with `HeldRecords`: the record, or what the reader holds of it. */
export type ListedRecord<T extends PagedTable, K> = RecordOf<T> | KnownRecord<K>

export const isKnownRecord = <T extends PagedTable, K>(item: ListedRecord<T, K>): item is KnownRecord<K> => "_tag" in item && item._tag === "Known"

/**
 * The storage port. Rules decide what to write and hand the complete write, with its
 * preconditions, to `write`; adapters only execute it atomically and answer reads. Every read of
 * tenant data takes the workspace id.
 */
export interface StorageShape {
  /** Succeeds when the store answers (readiness). */
  readonly ping: () => Effect.Effect<void, StorageError>
  /**
   * Executes a write atomically: all of its steps, or none when a precondition refuses it. Rules
   * write through `commit` (`lib/rules/commit.ts`), which alone makes a `CommittedWrite`.
   */
  readonly write: <R>(write: CommittedWrite<R>) => Effect.Effect<WriteResult<R>, StorageError>

  /** The record of a workspace's table with this id (another workspace's is not found). */
  readonly get: <T extends WorkspaceTable>(table: T, ws: WorkspaceId, id: string) => Effect.Effect<Option.Option<RecordOf<T>>, StorageError>
  /** A newest-first page of a table by its page key (`Pages` in tables.ts); at most `limit + 1` rows in scan order. */
  readonly page: <T extends PagedTable>(table: T, ws: WorkspaceId, q: TablePageScan<T>) => Effect.Effect<ReadonlyArray<RecordOf<T>>, StorageError>
  /**
   * `page` against what the reader holds (`HeldRecords`): the page's keys (id, time, revision)
   * first, then, in one query by id, the records not held at their revision, in the keys' order
   * (a record gone between the two reads is left out). A table without a revision column answers
   * every record read.
   */
  readonly pageHeld: <T extends PagedTable, K>(
    table: T,
    ws: WorkspaceId,
    q: TablePageScan<T>,
    held: HeldRecords<K>
  ) => Effect.Effect<ReadonlyArray<ListedRecord<T, K>>, StorageError>

  readonly findWorkspaceBySlug: (slug: string) => Effect.Effect<Option.Option<Workspace>, StorageError>
  readonly listWorkspaces: () => Effect.Effect<ReadonlyArray<Workspace>, StorageError>

  /** The key with this hash, revoked or not, with its workspace. */
  readonly findApiKeyByHash: (hash: string) => Effect.Effect<Option.Option<KeyWithWorkspace>, StorageError>
  readonly listApiKeys: (ws: WorkspaceId) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StorageError>
  /** The users with this (normalized) email in every workspace, with their workspaces, oldest first: sign-in names no workspace. */
  readonly findUsersByEmail: (email: string) => Effect.Effect<ReadonlyArray<UserWithWorkspace>, StorageError>

  readonly listRawRequests: (ws: WorkspaceId, q: RawRequestScan) => Effect.Effect<ReadonlyArray<RawRequestRecord>, StorageError>

  readonly findEncounterIdByExternalId: (
    ws: WorkspaceId,
    externalId: string
  ) => Effect.Effect<Option.Option<EncounterId>, StorageError>
  readonly findEncounter: (ws: WorkspaceId, id: EncounterId) => Effect.Effect<Option.Option<EncounterWithClaim>, StorageError>
  /**
   * A page of encounters (`EncounterScan`). With `held`, the encounters the reader holds at their
   * revision come back as `KnownEncounter`s carrying its value, and only the others' rows are
   * read (an adapter may read a search's rows whole: the SQL adapter does).
   */
  readonly listEncounters: {
    (ws: WorkspaceId, q: EncounterScan): Effect.Effect<ReadonlyArray<EncounterWithClaim>, StorageError>
    <K>(ws: WorkspaceId, q: EncounterScan, held: HeldEncounters<K>): Effect.Effect<ReadonlyArray<ListedEncounter<K>>, StorageError>
  }
  /**
   * Exact counts of the workspace's encounters by their latest claim's status, with the sum of
   * their billed amounts, for the statuses that have any (in no set order).
   */
  readonly countClaimStatuses: (ws: WorkspaceId) => Effect.Effect<ReadonlyArray<ClaimStatusCount>, StorageError>
  /** A status's work list: its encounters by age in the status or by amount (see `ClaimWorkScan`). */
  readonly listClaimWork: (ws: WorkspaceId, q: ClaimWorkScan) => Effect.Effect<ReadonlyArray<EncounterWithClaim>, StorageError>
  /** A claim by its own id, with its encounter and remittances. */
  readonly findClaim: (ws: WorkspaceId, id: ClaimId) => Effect.Effect<Option.Option<EncounterWithClaim>, StorageError>
  /**
   * A claim's open tasks (open or in progress), in no set order: at most one per type, which the
   * unique key of open tasks (`tasks_open_key`) holds. What every write that moves a claim reads.
   */
  readonly findOpenTasksOfClaim: (ws: WorkspaceId, claimId: ClaimId) => Effect.Effect<ReadonlyArray<TaskRecord>, StorageError>
  /** A claim by its own id with its encounter's keys and content (`ClaimWithEncounterContent`): what a status move reads. */
  readonly findClaimToChange: (ws: WorkspaceId, id: ClaimId) => Effect.Effect<Option.Option<ClaimWithEncounterContent>, StorageError>
  /** A claim by its patient control number, with its encounter and remittances. */
  readonly findClaimByPcn: (ws: WorkspaceId, pcn: string) => Effect.Effect<Option.Option<EncounterWithClaim>, StorageError>
  /**
   * The claims with these ids or control numbers (`key`; at most 1000 values), with their
   * encounters' keys, in no set order; values that name no claim of the workspace are left out.
   * One query for many claims: how an import looks up the claims a file names.
   */
  readonly findClaims: (
    ws: WorkspaceId,
    key: ClaimKey,
    values: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<ClaimWithEncounterKeys>, StorageError>

  readonly findClearinghouseSettings: (ws: WorkspaceId) => Effect.Effect<Option.Option<ClearinghouseSettingsRecord>, StorageError>
  /** The batch sent with this GS06 (what a 999's AK102 names). */
  readonly findX12BatchByGroup: (ws: WorkspaceId, group: number) => Effect.Effect<Option.Option<X12BatchRecord>, StorageError>
  /** The first file imported with this interchange key (`ISA06|ISA13`, see `interchangeKey`); several may have it. */
  readonly findX12FileByInterchange: (ws: WorkspaceId, key: string) => Effect.Effect<Option.Option<X12FileRecord>, StorageError>
  /** The imported (not invalid) file with these bytes. */
  readonly findX12FileBySha: (ws: WorkspaceId, sha256: string) => Effect.Effect<Option.Option<X12FileRecord>, StorageError>
  /** The file with this content key (`X12FileRecord.content_key`, unique in a workspace). */
  readonly findX12FileByContent: (ws: WorkspaceId, key: string) => Effect.Effect<Option.Option<X12FileRecord>, StorageError>
  /** The workspace's encounters with these ids (at most 1000), in no set order; ids naming none are left out. */
  readonly findEncounters: (ws: WorkspaceId, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<EncounterRecord>, StorageError>
  /** A file's claim outcomes in file order (by position). */
  readonly listX12FileOutcomes: (
    ws: WorkspaceId,
    fileId: string,
    q: PlaceScan
  ) => Effect.Effect<ReadonlyArray<X12FileOutcomeRecord>, StorageError>

  /** Feed reads hand the payload on as its stored JSON text (`FeedEvent`). */
  readonly listEvents: (ws: WorkspaceId, q: EventScan) => Effect.Effect<ReadonlyArray<FeedEvent>, StorageError>
  readonly findEvent: (ws: WorkspaceId, id: EventId) => Effect.Effect<Option.Option<FeedEvent>, StorageError>
  /** The events that name this encounter (`payload.encounter_id`), oldest first: its timeline. */
  readonly listEncounterEvents: (
    ws: WorkspaceId,
    encounterId: EncounterId,
    q: EncounterEventScan
  ) => Effect.Effect<ReadonlyArray<StoredEvent>, StorageError>

  /** The workspace's enabled endpoints: read before every write that appends an event (the outbox). */
  readonly enabledWebhookEndpoints: (ws: WorkspaceId) => Effect.Effect<ReadonlyArray<WebhookSubscription>, StorageError>
  /** The slots the workspace's endpoints hold (one each, unique in the workspace): the endpoint limit counts them. */
  readonly webhookEndpointSlots: (ws: WorkspaceId) => Effect.Effect<ReadonlyArray<number>, StorageError>
  /** How many deliveries are pending, due or not, in every workspace (the outbox's depth, for metrics). */
  readonly pendingWebhookDeliveries: () => Effect.Effect<number, StorageError>
  /** How many of this endpoint's deliveries are pending, due or not (recover queues behind them). */
  readonly pendingWebhookDeliveriesOf: (ws: WorkspaceId, endpointId: string) => Effect.Effect<number, StorageError>
  /**
   * Pending deliveries of every workspace due at `now` (an ISO time) whose lease is free or
   * expired, soonest first: what the delivery worker claims. `skipEndpoints` and `skipWorkspaces`
   * leave out endpoints and workspaces at their limit of concurrent attempts, so one slow
   * endpoint's or workspace's backlog never hides others'.
   */
  readonly dueWebhookDeliveries: (
    now: string,
    limit: number,
    skipEndpoints?: ReadonlyArray<string>,
    skipWorkspaces?: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<WebhookDeliveryRecord>, StorageError>
}

export class Storage extends Context.Tag("encounters/Storage")<Storage, StorageShape>() {}
