import { createHash, randomBytes } from "node:crypto"
import { Effect, Either, Option, Schema } from "effect"
import { ApiKeyNotFound, FieldIssue, InvalidQuery, Unauthorized, WorkspaceNotFound } from "../domain/errors.js"
import { ApiKeyId, WorkspaceId } from "../domain/ids.js"
import { type ApiKeyView, type Principal, type Scope, toApiKeyView, type Workspace, WorkspaceSlug } from "../domain/workspace.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"

const checkSlug = Schema.decodeUnknownEither(WorkspaceSlug)

/** Creates a workspace; the slug is unique. */
export const createWorkspace = (slug: string, name: string) =>
  Effect.gen(function* () {
    if (Either.isLeft(checkSlug(slug))) {
      return yield* new InvalidQuery({
        errors: [new FieldIssue({ path: "slug", message: "must be 1 to 63 lower-case letters, digits or dashes" })]
      })
    }
    if (name.trim() === "") {
      return yield* new InvalidQuery({ errors: [new FieldIssue({ path: "name", message: "must not be empty" })] })
    }
    const storage = yield* Storage
    const ids = yield* Ids
    const clock = yield* Clock
    const ws: Workspace = { id: WorkspaceId.make(ids.next()), slug, name }
    yield* storage.insertWorkspace({ ...ws, created_at: isoTime(clock.now()) })
    return ws
  })

export const listWorkspaces = () => Effect.flatMap(Storage, (s) => s.listWorkspaces())

export const findWorkspace = (slug: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const found = yield* storage.findWorkspaceBySlug(slug)
    if (Option.isNone(found)) return yield* new WorkspaceNotFound({ slug })
    return found.value
  })

const KEY_PREFIX = "eik_"
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const KEY_SHAPE = /^eik_[0-9A-Za-z]{32,128}$/

/** 40 base62 characters (about 238 bits), drawn without modulo bias. */
const newSecret = (): string => {
  let out = KEY_PREFIX
  while (out.length < KEY_PREFIX.length + 40) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && out.length < KEY_PREFIX.length + 40) out += BASE62[byte % 62]
    }
  }
  return out
}

export const hashKey = (key: string): string => createHash("sha256").update(key).digest("hex")

export interface CreatedApiKey {
  readonly id: ApiKeyId
  /** The secret, shown once; only its SHA-256 is stored. */
  readonly key: string
  readonly workspace_id: WorkspaceId
  readonly scopes: ReadonlyArray<Scope>
}

/** Creates a key for a workspace. Every key may create and read (`encounters`); extra scopes add rights. */
export const createApiKey = (slug: string, extraScopes: ReadonlyArray<Scope> = []) =>
  Effect.gen(function* () {
    const ws = yield* findWorkspace(slug)
    const storage = yield* Storage
    const ids = yield* Ids
    const clock = yield* Clock
    const key = newSecret()
    const scopes: ReadonlyArray<Scope> = [...new Set<Scope>(["encounters", ...extraScopes])]
    const id = ApiKeyId.make(ids.next())
    yield* storage.insertApiKey({
      id,
      workspace_id: ws.id,
      hash: hashKey(key),
      prefix: key.slice(0, 10),
      scopes,
      created_at: isoTime(clock.now()),
      last_used_at: null,
      revoked_at: null
    })
    return { id, key, workspace_id: ws.id, scopes } satisfies CreatedApiKey
  })

export const listApiKeys = (slug: string) =>
  Effect.gen(function* () {
    const ws = yield* findWorkspace(slug)
    const storage = yield* Storage
    const keys = yield* storage.listApiKeys(ws.id)
    return keys.map(toApiKeyView)
  })

/** Revokes a key at once; revoking twice keeps the first time. */
export const revokeApiKey = (id: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    const revoked = yield* storage.revokeApiKey(ApiKeyId.make(id), isoTime(clock.now()))
    if (Option.isNone(revoked)) return yield* new ApiKeyNotFound({ id })
    return toApiKeyView(revoked.value) satisfies ApiKeyView
  })

const TOUCH_INTERVAL_MS = 60_000

/**
 * The workspace and scopes of a presented key. Missing, malformed, unknown and revoked keys are
 * all Unauthorized. `last_used_at` is refreshed at most once a minute per key.
 */
export const authenticate = (presented: string | undefined) =>
  Effect.gen(function* () {
    if (presented === undefined || presented === "") return yield* new Unauthorized({ reason: "An API key is required" })
    if (!KEY_SHAPE.test(presented)) return yield* new Unauthorized({ reason: "The API key is malformed" })
    const storage = yield* Storage
    const clock = yield* Clock
    const found = yield* storage.findApiKeyByHash(hashKey(presented))
    if (Option.isNone(found)) return yield* new Unauthorized({ reason: "The API key is not valid" })
    const { key, workspace } = found.value
    if (key.revoked_at !== null) return yield* new Unauthorized({ reason: "The API key is not valid" })
    const now = clock.now()
    if (key.last_used_at === null || now - Date.parse(key.last_used_at) > TOUCH_INTERVAL_MS) {
      yield* storage.touchApiKey(key.id, isoTime(now))
    }
    return { workspace, keyId: key.id, scopes: key.scopes } satisfies Principal
  })
