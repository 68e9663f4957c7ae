import { Effect, Option } from "effect"
import { commit } from "./commit.js"
import { type ClearinghouseConnection, type ClearinghouseConnectionRecord, ConnectionNotFound, type ConnectionSettings, decodeConnectionCreate, decodeConnectionPatch, toConnectionView } from "../domain/clearinghouse-connection.js"
import type { StorageError } from "../domain/errors.js"
import { isUuid, type WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, type Page, toPage, tokenScope } from "../domain/page.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, remove, update } from "../ports/write.js"
import { seal } from "../webhooks/secret-box.js"
import { requireKey, WebhookSettings } from "../webhooks/settings.js"
import { connectionAlerts } from "./sftp-alerts.js"

/** A connection of the workspace; another workspace's (or a malformed id) is not found. */
export const findConnection = (
  ws: WorkspaceId,
  id: string
): Effect.Effect<ClearinghouseConnectionRecord, ConnectionNotFound | StorageError, Storage> =>
  Effect.gen(function* () {
    if (!isUuid(id)) return yield* new ConnectionNotFound({ id })
    const found = yield* (yield* Storage).get("clearinghouse_connections", ws, id)
    if (Option.isNone(found)) return yield* new ConnectionNotFound({ id })
    return found.value
  })

/** The secret sealed for this connection alone (its id is the sealing context). */
const sealSecret = (id: string, input: { readonly password?: string; readonly private_key?: string }) =>
  Effect.gen(function* () {
    const key = yield* requireKey(yield* WebhookSettings)
    return input.password !== undefined
      ? { auth_method: "password" as const, secret: seal(input.password, key, id) }
      : { auth_method: "private_key" as const, secret: seal(input.private_key ?? "", key, id) }
  })

/**
 * Registers a connection. Its password or private key is sealed under the server's key and never
 * answered; batches created from now on are uploaded when `upload_batches` is on, and the first
 * poll is due at once.
 */
export const createConnection = (ws: WorkspaceId, body: unknown) =>
  Effect.gen(function* () {
    const input = yield* decodeConnectionCreate(body)
    const id = (yield* Ids).next()
    const now = isoTime((yield* Clock).now())
    const settings: ConnectionSettings = {
      name: input.name,
      host: input.host,
      port: input.port ?? 22,
      username: input.username,
      host_key_fingerprint: input.host_key_fingerprint,
      outbound_dir: input.outbound_dir,
      inbound_dir: input.inbound_dir,
      archive_dir: input.archive_dir ?? null,
      poll_every: input.poll_every ?? "5m",
      upload_batches: input.upload_batches ?? true,
      enabled: input.enabled ?? true
    }
    const record: ClearinghouseConnectionRecord = {
      id,
      workspace_id: ws,
      settings,
      ...(yield* sealSecret(id, input)),
      created_at: now,
      updated_at: now,
      uploads_since: settings.upload_batches ? now : null,
      last_success_at: null,
      last_error: null,
      last_error_code: null,
      last_error_at: null,
      failures: 0,
      retry_at: null,
      next_poll_at: now,
      lease_owner: null,
      lease_expires_at: null,
      payers: {}
    }
    yield* commit({ operation: "createClearinghouseConnection", steps: [insert("clearinghouse_connections", record)] })
    return toConnectionView(record)
  })

export interface ConnectionListQuery {
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

/** The workspace's connections, newest first, keyset-paged both ways. */
export const listConnections = (ws: WorkspaceId, query: ConnectionListQuery = {}) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const scope = tokenScope([ws, "clearinghouse-connections"])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const rows = yield* (yield* Storage).page("clearinghouse_connections", ws, { position, limit })
    return toPage(rows, limit, position, (c) => [c.created_at, c.id], scope, toConnectionView) satisfies Page<ClearinghouseConnection>
  })

/** Uploads still to make, at most this many counted. */
const PENDING_COUNTED = 100

/** A connection with its pending uploads (up to 100 counted) and its alerts. */
export const getConnection = (ws: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    const connection = yield* findConnection(ws, id)
    const pending = yield* (yield* Storage).page("clearinghouse_uploads", ws, {
      where: { connection_id: connection.id, status: "pending" },
      limit: PENDING_COUNTED
    })
    return {
      ...toConnectionView(connection),
      pending_uploads: Math.min(pending.length, PENDING_COUNTED),
      alerts: yield* connectionAlerts(connection)
    } satisfies ClearinghouseConnection
  })

/**
 * Changes a connection. A new secret replaces the old one (sealed). Turning `upload_batches` on
 * uploads the batches created from then on; a new `poll_every`, or enabling the connection,
 * makes a poll due at once and forgets earlier failures' backoff.
 */
export const updateConnection = (ws: WorkspaceId, id: string, body: unknown) =>
  Effect.gen(function* () {
    const connection = yield* findConnection(ws, id)
    const patch = yield* decodeConnectionPatch(body)
    const now = isoTime((yield* Clock).now())
    const { password, private_key, ...changes } = patch
    const settings: ConnectionSettings = { ...connection.settings, ...changes }
    const secret =
      password !== undefined || private_key !== undefined
        ? yield* sealSecret(connection.id, { ...(password !== undefined ? { password } : {}), ...(private_key !== undefined ? { private_key } : {}) })
        : {}
    const startsUploading = settings.upload_batches && !connection.settings.upload_batches
    const again =
      (settings.enabled && !connection.settings.enabled) || settings.poll_every !== connection.settings.poll_every || Object.keys(secret).length > 0
    const set: Partial<ClearinghouseConnectionRecord> = {
      settings,
      ...secret,
      updated_at: now,
      ...(startsUploading ? { uploads_since: now } : {}),
      ...(again ? { next_poll_at: now, retry_at: null, failures: 0 } : {})
    }
    yield* commit({
      operation: "updateClearinghouseConnection",
      steps: [update("clearinghouse_connections", connection.id, { workspace_id: ws }, set)]
    })
    return toConnectionView({ ...connection, ...set })
  })

/** Deletes a connection; its uploads and pickups stay on record. A session under way finishes its current file. */
export const deleteConnection = (ws: WorkspaceId, id: string) =>
  Effect.gen(function* () {
    const connection = yield* findConnection(ws, id)
    yield* commit({ operation: "deleteClearinghouseConnection", steps: [remove("clearinghouse_connections", connection.id, { workspace_id: ws })] })
  })
