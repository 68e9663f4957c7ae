import { Effect, Either, Option } from "effect"
import { commit } from "./commit.js"
import { FieldIssue, type StorageError } from "../domain/errors.js"
import { isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, type Page, toPage, tokenScope } from "../domain/page.js"
import {
  decodeWebhookEndpointCreate,
  decodeWebhookEndpointPatch,
  toWebhookEndpointView,
  type WebhookEndpoint,
  type WebhookEndpointCreated,
  WebhookEndpointId,
  type WebhookEndpointView,
  type WebhookSecret
} from "../domain/webhook.js"
import {
  InvalidWebhookInput,
  WebhookEndpointLimitReached,
  WebhookEndpointNotFound,
  type WebhooksUnavailable
} from "../domain/webhook-errors.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, remove, update } from "../ports/write.js"
import { issueSecret, rotateSecrets } from "../webhooks/rotation.js"
import { DEFAULT_MAX_ENDPOINTS, requireKey, WebhookSettings } from "../webhooks/settings.js"
import { checkTargetUrl } from "../webhooks/targets.js"

/** Why an endpoint was disabled when a caller (API or operator) disabled it. */
export const DISABLED_ON_REQUEST = "Disabled on request"

const invalid = (errors: ReadonlyArray<FieldIssue>) => new InvalidWebhookInput({ errors })

/** The address check of a target, refusals at the path `url`. */
const checkTarget = (url: string) =>
  Effect.flatMap(WebhookSettings, (settings) =>
    checkTargetUrl(url, { allowPrivate: settings.allowPrivate, ...(settings.resolve !== undefined ? { resolve: settings.resolve } : {}) }).pipe(
      Effect.mapError((e) => invalid([new FieldIssue({ path: "url", message: e.reason })]))
    )
  )

/** An endpoint of the workspace; another workspace's (or a malformed id) is not found. */
export const findEndpoint = (ws: WorkspaceId, id: string): Effect.Effect<WebhookEndpoint, WebhookEndpointNotFound | StorageError, Storage> =>
  Effect.gen(function* () {
    if (!isUuid(id)) return yield* new WebhookEndpointNotFound({ id })
    const found = yield* (yield* Storage).get("webhook_endpoints", ws, id)
    if (Option.isNone(found)) return yield* new WebhookEndpointNotFound({ id })
    return found.value
  })

/** The lowest slot under `limit` that no endpoint holds; undefined when every one is held. */
const freeSlot = (held: ReadonlyArray<number>, limit: number): number | undefined => {
  const taken = new Set(held)
  for (let slot = 0; slot < limit; slot++) if (!taken.has(slot)) return slot
  return undefined
}

/**
 * Registers an endpoint. The URL is checked now (its host resolved, private addresses refused
 * unless allowed) and again at every delivery. The secret is answered this once; it is stored
 * sealed under the server's key. A workspace holds at most `maxEndpoints` (the endpoint takes a
 * free slot under it, a unique key, so racing creates cannot pass it).
 */
export const createWebhookEndpoint = (
  ws: WorkspaceId,
  body: unknown
): Effect.Effect<
  WebhookEndpointCreated,
  InvalidWebhookInput | WebhookEndpointLimitReached | WebhooksUnavailable | StorageError,
  Storage | Clock | Ids | WebhookSettings
> =>
  Effect.gen(function* () {
    const input = yield* Either.mapLeft(decodeWebhookEndpointCreate(body), invalid)
    const settings = yield* WebhookSettings
    const key = yield* requireKey(settings)
    const limit = settings.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS
    const storage = yield* Storage
    // Refused before the address check, which may resolve a host name.
    if ((yield* storage.webhookEndpointSlots(ws)).length >= limit) return yield* new WebhookEndpointLimitReached({ limit })
    yield* checkTarget(input.url)
    const ids = yield* Ids
    const now = isoTime((yield* Clock).now())
    const id = WebhookEndpointId.make(ids.next())
    const { secret, sealed } = issueSecret(id, key)
    const endpoint: WebhookEndpoint = {
      id,
      workspace_id: ws,
      url: input.url,
      event_types: input.event_types ?? [],
      description: input.description ?? null,
      status: "enabled",
      disabled_reason: null,
      secret: sealed,
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      slot: 0,
      created_at: now,
      updated_at: now
    }
    // Another create may take the slot read: read again and take another, until none is left.
    for (;;) {
      const held = yield* storage.webhookEndpointSlots(ws)
      const slot = held.length >= limit ? undefined : freeSlot(held, limit)
      if (slot === undefined) return yield* new WebhookEndpointLimitReached({ limit })
      const result = yield* commit({
        operation: "createWebhookEndpoint",
        steps: [insert("webhook_endpoints", { ...endpoint, slot }, { unique: "slot", refuse: () => "slot taken" as const })]
      })
      if (result._tag === "Written") return { ...toWebhookEndpointView(endpoint), secret }
    }
  })

export interface EndpointListQuery {
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/** The workspace's endpoints, newest first, keyset-paged both ways. */
export const listWebhookEndpoints = (ws: WorkspaceId, query: EndpointListQuery = {}) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const scope = tokenScope([ws, "webhook-endpoints"])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const rows = yield* (yield* Storage).page("webhook_endpoints", ws, { position, limit })
    return toPage(rows, limit, position, (e) => [e.created_at, e.id], scope, toWebhookEndpointView) satisfies Page<WebhookEndpointView>
  })

export const getWebhookEndpoint = (ws: WorkspaceId, id: string) => Effect.map(findEndpoint(ws, id), toWebhookEndpointView)

/**
 * Changes an endpoint. A new URL is checked like at creation. Disabling records why; enabling
 * again clears the reason and the failure clock (the 5-day rule starts over).
 */
export const updateWebhookEndpoint = (ws: WorkspaceId, id: string, body: unknown) =>
  Effect.gen(function* () {
    const endpoint = yield* findEndpoint(ws, id)
    const patch = yield* Either.mapLeft(decodeWebhookEndpointPatch(body), invalid)
    if (patch.url !== undefined && patch.url !== endpoint.url) yield* checkTarget(patch.url)
    const now = isoTime((yield* Clock).now())
    const status = patch.status ?? endpoint.status
    const statusFields =
      status === endpoint.status
        ? {}
        : status === "enabled"
          ? { status, disabled_reason: null, failing_since: null }
          : { status, disabled_reason: DISABLED_ON_REQUEST }
    const set: Partial<WebhookEndpoint> = {
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(patch.event_types !== undefined ? { event_types: patch.event_types } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...statusFields,
      updated_at: now
    }
    yield* commit({
      operation: "updateWebhookEndpoint",
      steps: [update("webhook_endpoints", endpoint.id, { workspace_id: ws }, set)]
    })
    return toWebhookEndpointView({ ...endpoint, ...set })
  })

/** Deletes an endpoint; its pending deliveries fail when the worker reaches them. */
export const deleteWebhookEndpoint = (ws: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    const endpoint = yield* findEndpoint(ws, id)
    yield* commit({
      operation: "deleteWebhookEndpoint",
      steps: [remove("webhook_endpoints", endpoint.id, { workspace_id: ws })]
    })
  })

/**
 * A new signing secret, answered this once. For 24 hours messages carry two signatures, with the
 * new and the old secret, so receivers switch without a gap.
 */
export const rotateWebhookSecret = (ws: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    const key = yield* requireKey(yield* WebhookSettings)
    const storage = yield* Storage
    const clock = yield* Clock
    for (;;) {
      const endpoint = yield* findEndpoint(ws, id)
      const nowMs = clock.now()
      const rotated = rotateSecrets(endpoint, key, nowMs)
      // Compare-and-set on the secret read: of two rotations at once, the later one reads again.
      const result = yield* commit({
        operation: "rotateWebhookSecret",
        steps: [
          update(
            "webhook_endpoints",
            endpoint.id,
            { workspace_id: ws, secret: endpoint.secret },
            { ...rotated.fields, updated_at: isoTime(nowMs) },
            "stale"
          )
        ]
      })
      if (result._tag === "Written") return { secret: rotated.secret } satisfies { readonly secret: WebhookSecret }
    }
  })
