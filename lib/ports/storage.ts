import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { ClaimRecord, EncounterRecord, EncounterWithClaim, RawOutcome, RawRequestRecord, StoredRawRequest } from "../domain/encounter.js"
import type { SlugTaken, StorageError } from "../domain/errors.js"
import type { EventRecord, StoredEvent } from "../domain/event.js"
import type { ApiKeyId, ClaimId, EncounterId, EventId, RawRequestId, WorkspaceId } from "../domain/ids.js"
import type { Position } from "../domain/page.js"
import type { ApiKeyRecord, Workspace } from "../domain/workspace.js"

/** List encounters newest first by (created_at, id); rows come back in scan order, at most `limit + 1`. */
export interface EncounterScan {
  readonly external_id?: string | undefined
  readonly claim_status?: string | undefined
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

export type InsertResult =
  | { readonly _tag: "Inserted" }
  | { readonly _tag: "Duplicate"; readonly encounter_id: EncounterId }
  | { readonly _tag: "PatientControlNumberTaken" }

export interface StatusChange {
  readonly claim_id: ClaimId
  readonly encounter_id: EncounterId
  /** Compare-and-set: the change applies only while the claim still has this status. */
  readonly expected: string
  readonly next: string
  readonly at: string
  readonly event: EventRecord
}

/**
 * The storage port. Each method is atomic on its own; every tenant-owned read and write takes the
 * workspace id. Rules decide what to write; adapters only store.
 */
export interface StorageShape {
  /** Succeeds when the store answers (readiness). */
  readonly ping: () => Effect.Effect<void, StorageError>
  readonly insertWorkspace: (ws: Workspace & { readonly created_at: string }) => Effect.Effect<void, SlugTaken | StorageError>
  readonly findWorkspaceBySlug: (slug: string) => Effect.Effect<Option.Option<Workspace>, StorageError>
  readonly listWorkspaces: () => Effect.Effect<ReadonlyArray<Workspace>, StorageError>

  readonly insertApiKey: (key: ApiKeyRecord) => Effect.Effect<void, StorageError>
  /** The key with this hash, unrevoked or not, and its workspace. */
  readonly findApiKeyByHash: (
    hash: string
  ) => Effect.Effect<Option.Option<{ readonly key: ApiKeyRecord; readonly workspace: Workspace }>, StorageError>
  readonly listApiKeys: (ws: WorkspaceId) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StorageError>
  /** Sets `revoked_at` once; answers the key as stored afterwards, or none if unknown. */
  readonly revokeApiKey: (id: ApiKeyId, at: string) => Effect.Effect<Option.Option<ApiKeyRecord>, StorageError>
  readonly touchApiKey: (id: ApiKeyId, at: string) => Effect.Effect<void, StorageError>

  /**
   * Stores a raw request with its outcome, durably (rejected requests and replays; an accepted one
   * is stored by `insertEncounter`, in the encounter's transaction).
   */
  readonly insertRawRequest: (r: RawRequestRecord & { readonly result: RawOutcome }) => Effect.Effect<void, StorageError>
  readonly findRawRequest: (ws: WorkspaceId, id: RawRequestId) => Effect.Effect<Option.Option<StoredRawRequest>, StorageError>

  readonly findEncounterIdByExternalId: (
    ws: WorkspaceId,
    externalId: string
  ) => Effect.Effect<Option.Option<EncounterId>, StorageError>
  /**
   * In one transaction: the raw request (outcome `accepted`), the encounter, its first claim and
   * its Created event. A unique (workspace, external_id) decides races: the loser writes nothing
   * (not even its raw request) and learns the winner's id.
   */
  readonly insertEncounter: (bundle: {
    readonly encounter: EncounterRecord
    readonly claim: ClaimRecord
    readonly event: EventRecord
    readonly raw: RawRequestRecord
  }) => Effect.Effect<InsertResult, StorageError>
  readonly findEncounter: (ws: WorkspaceId, id: EncounterId) => Effect.Effect<Option.Option<EncounterWithClaim>, StorageError>
  readonly listEncounters: (ws: WorkspaceId, q: EncounterScan) => Effect.Effect<ReadonlyArray<EncounterWithClaim>, StorageError>

  readonly findClaim: (ws: WorkspaceId, id: ClaimId) => Effect.Effect<Option.Option<EncounterWithClaim>, StorageError>
  /**
   * In one transaction, if the claim still has `expected`: its status and status_changed_at, the
   * encounter's last_event_at and denormalized status, and the event. Answers whether it applied.
   */
  readonly changeClaimStatus: (ws: WorkspaceId, change: StatusChange) => Effect.Effect<boolean, StorageError>

  readonly listEvents: (ws: WorkspaceId, q: EventScan) => Effect.Effect<ReadonlyArray<StoredEvent>, StorageError>
  readonly findEvent: (ws: WorkspaceId, id: EventId) => Effect.Effect<Option.Option<StoredEvent>, StorageError>
}

export class Storage extends Context.Tag("encounters/Storage")<Storage, StorageShape>() {}
