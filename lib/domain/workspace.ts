import { Schema } from "effect"
import { ApiKeyId, WorkspaceId } from "./ids.js"

/** A tenant: every encounter, claim, event and key belongs to exactly one. */
export const Workspace = Schema.Struct({
  id: WorkspaceId,
  slug: Schema.String,
  name: Schema.String
})
export type Workspace = typeof Workspace.Type

export const WorkspaceSlug = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9-]{0,62}$/, {
    message: () => "must be 1 to 63 lower-case letters, digits or dashes, starting with a letter or digit"
  })
)

/**
 * `encounters`: create and read. `claims:write`: change claim statuses. `webhooks:write`: manage
 * webhook endpoints and deliveries (reads included). `tasks:write`: change work queue tasks and settings.
 * `admin`: manage the workspace's users and read its audit log.
 */
export const Scopes = ["encounters", "claims:write", "webhooks:write", "tasks:write", "admin"] as const
export const Scope = Schema.Literal(...Scopes)
export type Scope = typeof Scope.Type

/** A workspace as stored: the tenant and when it was made. */
export const WorkspaceRecord = Schema.Struct({ ...Workspace.fields, created_at: Schema.String })
export type WorkspaceRecord = typeof WorkspaceRecord.Type

/** A stored API key: only the SHA-256 of the secret is kept. */
export const ApiKeyRecord = Schema.Struct({
  id: ApiKeyId,
  workspace_id: WorkspaceId,
  hash: Schema.String,
  prefix: Schema.String,
  scopes: Schema.Array(Scope),
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
})
export type ApiKeyRecord = typeof ApiKeyRecord.Type

/** What `keys list` shows: everything but the hash. */
export const ApiKeyView = ApiKeyRecord.pipe(Schema.omit("hash"))
export type ApiKeyView = typeof ApiKeyView.Type

export const toApiKeyView = ({ hash: _hash, ...view }: ApiKeyRecord): ApiKeyView => view

/** A key found by its hash, with the workspace it belongs to (one read: every request needs both). */
export interface KeyWithWorkspace {
  readonly key: ApiKeyRecord
  readonly workspace: Workspace
}

/** The workspace and scopes a presented key grants. */
export interface Principal {
  readonly workspace: Workspace
  readonly keyId: ApiKeyId
  /** The key's shown prefix (`eik_abcd…`): how the audit log names a key, never by the key. */
  readonly keyPrefix: string
  readonly scopes: ReadonlyArray<Scope>
}
