import { createHash, randomBytes } from "node:crypto"
import { commit } from "./commit.js"
import { Effect, Either, Option, Schema } from "effect"
import { ApiKeyGivenForId, ApiKeyNotFound, FieldIssue, InvalidQuery, SlugTaken, Unauthorized, WorkspaceNotFound } from "../domain/errors.js"
import { ApiKeyId, WorkspaceId } from "../domain/ids.js"
import { type ApiKeyView, type Scope, Scopes, toApiKeyView, type Workspace, WorkspaceSlug } from "../domain/workspace.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert, update } from "../ports/write.js"
import { principalOfKeyHash } from "./authenticate-key-hash.js"

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
    const result = yield* commit({
      operation: "createWorkspace",
      steps: [insert("workspaces", { ...ws, created_at: isoTime(clock.now()) }, { unique: "slug", refuse: () => new SlugTaken({ slug }) })]
    })
    if (result._tag === "Refused") return yield* result.refusal
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
    yield* commit({
      operation: "createApiKey",
      steps: [
        insert("api_keys", {
          id,
          workspace_id: ws.id,
          hash: hashKey(key),
          prefix: key.slice(0, 10),
          scopes,
          created_at: isoTime(clock.now()),
          last_used_at: null,
          revoked_at: null
        })
      ]
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

/**
 * Revokes a key at once; revoking twice keeps the first time. The key is looked up in the
 * workspace given, or (for the operator, who may know only the key's id) in each workspace. The
 * key itself given for its id is `ApiKeyGivenForId` (naming the id), and nothing is revoked.
 */
export const revokeApiKey = (id: string, slug?: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const clock = yield* Clock
    if (id.startsWith(KEY_PREFIX)) {
      // The key itself, where its id belongs: name the id, never revoke by a secret passed around.
      const found = KEY_SHAPE.test(id) ? yield* storage.findApiKeyByHash(hashKey(id)) : Option.none()
      return yield* new ApiKeyGivenForId({ key_id: Option.isSome(found) ? found.value.key.id : null })
    }
    const keyId = ApiKeyId.make(id)
    const workspaces = slug === undefined ? yield* storage.listWorkspaces() : [yield* findWorkspace(slug)]
    for (const ws of workspaces) {
      const found = yield* storage.get("api_keys", ws.id, keyId)
      if (Option.isNone(found)) continue
      yield* commit({
        operation: "revokeApiKey",
        steps: [update("api_keys", keyId, { workspace_id: ws.id, revoked_at: null }, { revoked_at: isoTime(clock.now()) })]
      })
      const revoked = yield* storage.get("api_keys", ws.id, keyId)
      if (Option.isSome(revoked)) return toApiKeyView(revoked.value) satisfies ApiKeyView
    }
    return yield* new ApiKeyNotFound({ id })
  })

/**
 * The workspace and scopes of a presented key. Missing, malformed, unknown and revoked keys are
 * all Unauthorized. `last_used_at` is refreshed at most once a minute per key.
 */
export const authenticate = (presented: string | undefined) => Effect.gen(() => authenticateKey(presented))

function* authenticateKey(presented: string | undefined) {
  if (presented === undefined || presented === "") return yield* new Unauthorized({ reason: "An API key is required" })
  if (!KEY_SHAPE.test(presented)) return yield* new Unauthorized({ reason: "The API key is malformed" })
  return yield* principalOfKeyHash(hashKey(presented), "The API key is not valid")
}

/**
 * On an empty database: the workspace `default` and one key with every scope, answered once (the
 * secret is shown then and never again); nothing on a database that has a workspace. Several
 * instances starting together on one empty PostgreSQL database: one of them creates it.
 */
export const ensureFirstRun = () =>
  Effect.gen(function* () {
    const existing = yield* listWorkspaces()
    if (existing.length > 0) return Option.none<CreatedApiKey>()
    const ws = yield* createWorkspace("default", "Default workspace")
    return Option.some(yield* createApiKey(ws.slug, Scopes))
  }).pipe(Effect.catchTag("SlugTaken", () => Effect.succeed(Option.none<CreatedApiKey>())))
