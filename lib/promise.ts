import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import type { ClaimStatus } from "./domain/claim-status.js"
import { type Encounter, toEncounter } from "./domain/encounter.js"
import type { Event } from "./domain/event.js"
import { WorkspaceId } from "./domain/ids.js"
import type { Page } from "./domain/page.js"
import type { WebhookDeliveryView, WebhookEndpointCreated, WebhookEndpointPatch, WebhookEndpointView } from "./domain/webhook.js"
import type { Scope, Workspace } from "./domain/workspace.js"
import type { Clock, Ids } from "./ports/clock.js"
import type { Storage } from "./ports/storage.js"
import { changeClaimStatus } from "./rules/change-claim-status.js"
import { createEncounter } from "./rules/create-encounter.js"
import { type EncounterListQuery, getEncounter, listEncounters } from "./rules/read-encounters.js"
import { type EventListQuery, getEvent, listEvents } from "./rules/read-events.js"
import {
  type DeliveryListQuery,
  listWebhookDeliveries,
  recoverWebhookDeliveries,
  retryWebhookDelivery,
  type WebhookRecovery
} from "./rules/webhook-deliveries.js"
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  type EndpointListQuery,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint
} from "./rules/webhook-endpoints.js"
import { authenticate, createApiKey, createWorkspace } from "./rules/workspaces.js"
import { WebhookSettings } from "./webhooks/settings.js"

type Services = Storage | Clock | Ids

/**
 * The library for callers that do not use Effect: every operation returns a Promise. A failure
 * rejects with the library's typed error itself (`err._tag`, `err.message`, and its fields, e.g.
 * `InvalidEncounter.errors`), never a wrapper.
 */
export interface EncounterdClient {
  readonly createWorkspace: (slug: string, name: string) => Promise<Workspace>
  readonly createApiKey: (slug: string, scopes?: ReadonlyArray<Scope>) => Promise<{ id: string; key: string; workspace_id: string; scopes: ReadonlyArray<Scope> }>
  /** The workspace a key belongs to (rejects with `Unauthorized`). */
  readonly authenticate: (key: string) => Promise<Workspace>
  readonly createEncounter: (workspaceId: string, payload: unknown) => Promise<{ encounter_id: string; duplicate: boolean }>
  readonly getEncounter: (workspaceId: string, id: string) => Promise<Encounter>
  readonly listEncounters: (workspaceId: string, query?: EncounterListQuery) => Promise<Page<Encounter>>
  readonly listEvents: (workspaceId: string, query?: EventListQuery) => Promise<Page<Event>>
  readonly getEvent: (workspaceId: string, id: string) => Promise<Event>
  readonly changeClaimStatus: (workspaceId: string, claimId: string, status: ClaimStatus, note?: string) => Promise<{ changed: boolean; status: string }>
  /**
   * Webhook endpoints (push delivery). Creating and rotating need the sealing key: the layer's
   * `WebhookSettings` (memoryLayer has one), else `options.webhooks` of `openClient`; without
   * either they reject with `WebhooksUnavailable`. Deliveries are made by a delivery worker
   * (`DeliveryWorker.layer`, or `encounterd serve`) on the same database.
   */
  readonly webhooks: {
    readonly create: (workspaceId: string, input: { url: string; event_types?: ReadonlyArray<string>; description?: string }) => Promise<WebhookEndpointCreated>
    readonly list: (workspaceId: string, query?: EndpointListQuery) => Promise<Page<WebhookEndpointView>>
    readonly get: (workspaceId: string, id: string) => Promise<WebhookEndpointView>
    readonly update: (workspaceId: string, id: string, patch: WebhookEndpointPatch) => Promise<WebhookEndpointView>
    readonly delete: (workspaceId: string, id: string) => Promise<void>
    /** The new secret; the old one keeps signing for 24 hours. */
    readonly rotateSecret: (workspaceId: string, id: string) => Promise<{ secret: string }>
    readonly deliveries: (workspaceId: string, endpointId: string, query?: DeliveryListQuery) => Promise<Page<WebhookDeliveryView>>
    readonly retry: (workspaceId: string, deliveryId: string) => Promise<WebhookDeliveryView>
    /**
     * Queues again the matching events recorded at or after `since` (ISO 8601), at most 1,000 per
     * call: while the answer says `more`, call again with its `next_page_token`.
     */
    readonly recover: (workspaceId: string, endpointId: string, since: string, pageToken?: string) => Promise<WebhookRecovery>
  }
  /** Releases the storage (closes the database). */
  readonly close: () => Promise<void>
}

/** Settings without a key: webhook management rejects with `WebhooksUnavailable`. */
const noWebhooks = Layer.succeed(WebhookSettings, {
  key: Option.none(),
  allowPrivate: false,
  schedule: [0],
  timeoutMs: 15_000,
  version: "0.1.0"
})

/** Opens a client on a service layer: `memoryLayer`, or `sqliteLayer(file)` from `encounterd/sqlite-node` / `-bun`. */
export const openClient = <E>(
  layer: Layer.Layer<Services, E>,
  options: { readonly webhooks?: Layer.Layer<WebhookSettings> } = {}
): EncounterdClient => {
  const runtime = ManagedRuntime.make(layer)
  const run = async <A, F>(effect: Effect.Effect<A, F, Services>): Promise<A> => {
    const exit = await runtime.runPromiseExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    throw Option.isSome(failure) ? failure.value : Cause.squash(exit.cause)
  }
  const ws = (id: string) => WorkspaceId.make(id)
  /** The layer's own webhook settings when it has them, else the ones given, else none. */
  const hooks = <A, F>(effect: Effect.Effect<A, F, Services | WebhookSettings>) =>
    run(
      Effect.flatMap(Effect.serviceOption(WebhookSettings), (found) =>
        Option.isSome(found) ? Effect.provideService(effect, WebhookSettings, found.value) : Effect.provide(effect, options.webhooks ?? noWebhooks)
      )
    )
  return {
    createWorkspace: (slug, name) => run(createWorkspace(slug, name)),
    createApiKey: (slug, scopes) => run(createApiKey(slug, scopes)),
    authenticate: async (key) => (await run(authenticate(key))).workspace,
    createEncounter: async (workspaceId, payload) => {
      const r = await run(createEncounter(ws(workspaceId), payload))
      return { encounter_id: r.encounter_id, duplicate: r.duplicate }
    },
    getEncounter: async (workspaceId, id) => toEncounter(await run(getEncounter(ws(workspaceId), id))),
    listEncounters: async (workspaceId, query = {}) => {
      const page = await run(listEncounters(ws(workspaceId), query))
      return { ...page, items: page.items.map(toEncounter) }
    },
    listEvents: (workspaceId, query = {}) => run(listEvents(ws(workspaceId), query)),
    getEvent: (workspaceId, id) => run(getEvent(ws(workspaceId), id)),
    changeClaimStatus: async (workspaceId, claimId, status, note) => {
      const r = await run(changeClaimStatus(ws(workspaceId), claimId, status, note))
      return { changed: r.changed, status: r.claim.status }
    },
    webhooks: {
      create: (workspaceId, input) => hooks(createWebhookEndpoint(ws(workspaceId), input)),
      list: (workspaceId, query = {}) => run(listWebhookEndpoints(ws(workspaceId), query)),
      get: (workspaceId, id) => run(getWebhookEndpoint(ws(workspaceId), id)),
      update: (workspaceId, id, patch) => hooks(updateWebhookEndpoint(ws(workspaceId), id, patch)),
      delete: (workspaceId, id) => run(deleteWebhookEndpoint(ws(workspaceId), id)),
      rotateSecret: (workspaceId, id) => hooks(rotateWebhookSecret(ws(workspaceId), id)),
      deliveries: (workspaceId, endpointId, query = {}) => run(listWebhookDeliveries(ws(workspaceId), endpointId, query)),
      retry: (workspaceId, deliveryId) => run(retryWebhookDelivery(ws(workspaceId), deliveryId)),
      recover: (workspaceId, endpointId, since, pageToken) =>
        run(recoverWebhookDeliveries(ws(workspaceId), endpointId, { since, ...(pageToken !== undefined ? { page_token: pageToken } : {}) }))
    },
    close: () => runtime.dispose()
  }
}
