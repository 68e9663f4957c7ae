import { Effect } from "effect"
import { ClaimStatuses, isClaimStatus } from "../lib/domain/claim-status.js"
import { Scopes, type Scope } from "../lib/domain/workspace.js"
import { DatabaseAdmin } from "../lib/ports/database-admin.js"
import { changeClaimStatus } from "../lib/rules/change-claim-status.js"
import {
  createApiKey,
  createWorkspace,
  findWorkspace,
  listApiKeys,
  listWorkspaces,
  revokeApiKey
} from "../lib/rules/workspaces.js"
import { required, str, UsageError } from "./args.js"
import { type Command, dbOption, dbPath, withDb } from "./db-command.js"
import { backupCommand, restoreCommand } from "./backup-commands.js"
import { clearinghouseCommands } from "./clearinghouse-commands.js"
import { taskCommands } from "./task-commands.js"
import { claimCommands } from "./claim-commands.js"
import { userCommands } from "./user-commands.js"
import { webhookCommands } from "./webhook-commands.js"
import { x12Commands } from "./x12-commands.js"
import { statusCheckCommands } from "./status-check-commands.js"

export { dbPath, withDb, type Command } from "./db-command.js"

export const commands: Record<string, Command> = {
  "workspaces create": {
    spec: {
      usage: "encounterd workspaces create --slug SLUG --name NAME [--db FILE]",
      summary: "Create a workspace. Prints {id, slug, name}.",
      options: { slug: { type: "string", help: "Unique slug: lower-case letters, digits, dashes" }, name: { type: "string", help: "Display name" }, db: dbOption }
    },
    // The first command on a new installation may be this one: it may create the database.
    run: (p) => withDb(dbPath(p), createWorkspace(required(p, "slug"), required(p, "name")), { create: true })
  },
  "workspaces list": {
    spec: { usage: "encounterd workspaces list [--db FILE]", summary: "List workspaces as a JSON array.", options: { db: dbOption } },
    run: (p) => withDb(dbPath(p), listWorkspaces())
  },
  "keys create": {
    spec: {
      usage: "encounterd keys create --workspace SLUG [--scope claims:write] [--db FILE]",
      summary: "Create an API key. Prints {id, key, workspace_id, scopes}; the key is shown this once.",
      options: {
        workspace: { type: "string", help: "Workspace slug" },
        scope: { type: "string", multiple: true, help: `Extra scope, repeatable (${Scopes.join(", ")}); every key has encounters` },
        db: dbOption
      }
    },
    run: (p) => {
      const raw = p.values.scope
      const scopes = Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : []
      const valid = scopes.flatMap((s) => s.split(",")).map((s) => s.trim())
      const known: Array<Scope> = []
      for (const s of valid) {
        const scope = Scopes.find((x) => x === s)
        if (scope === undefined) throw new UsageError(`unknown scope ${s}; known: ${Scopes.join(", ")}`)
        known.push(scope)
      }
      return withDb(dbPath(p), createApiKey(required(p, "workspace"), known))
    }
  },
  "keys list": {
    spec: {
      usage: "encounterd keys list --workspace SLUG [--db FILE]",
      summary: "List a workspace's keys (never the secrets) as a JSON array.",
      options: { workspace: { type: "string", help: "Workspace slug" }, db: dbOption }
    },
    run: (p) => withDb(dbPath(p), listApiKeys(required(p, "workspace")))
  },
  "keys revoke": {
    spec: {
      usage: "encounterd keys revoke ID [--workspace SLUG] [--db FILE]",
      summary: "Revoke a key at once. Prints the key's record.",
      options: { workspace: { type: "string", help: "Workspace slug (default: the key's own, looked up)" }, db: dbOption },
      positionals: ["ID"]
    },
    run: (p) => withDb(dbPath(p), revokeApiKey(p.positionals[0]!, str(p, "workspace")))
  },
  "claims set-status": {
    spec: {
      usage: "encounterd claims set-status CLAIM_ID STATUS --workspace SLUG [--note TEXT] [--db FILE]",
      summary: "Move a claim to a status along the transition table. Prints the claim.",
      options: { workspace: { type: "string", help: "Workspace slug" }, note: { type: "string", help: "Why (kept on the event)" }, db: dbOption },
      positionals: ["CLAIM_ID", "STATUS"]
    },
    run: (p) => {
      const [claimId, status] = [p.positionals[0]!, p.positionals[1]!]
      if (!isClaimStatus(status)) throw new UsageError(`unknown status ${status}; known: ${ClaimStatuses.join(", ")}`)
      const slug = required(p, "workspace")
      return withDb(
        dbPath(p),
        Effect.gen(function* () {
          const ws = yield* findWorkspace(slug)
          const result = yield* changeClaimStatus(ws.id, claimId, status, str(p, "note"))
          return { ...result.claim, changed: result.changed }
        })
      )
    }
  },
  ...claimCommands,
  ...webhookCommands,
  backup: backupCommand,
  restore: restoreCommand,
  migrate: {
    spec: { usage: "encounterd migrate [--db FILE]", summary: "Apply pending schema migrations, creating the database when it is missing (serve does both too).", options: { db: dbOption } },
    run: (p) =>
      withDb(
        dbPath(p),
        Effect.gen(function* () {
          // Opening the database applies what is pending; this reports the resulting version.
          const admin = yield* DatabaseAdmin
          const migrations = yield* admin.migrations()
          return { db: admin.description, migrations }
        }),
        { create: true }
      )
  },
  ...x12Commands,
  ...clearinghouseCommands,
  ...statusCheckCommands,
  ...taskCommands,
  ...userCommands
}
