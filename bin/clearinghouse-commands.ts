import { readFileSync } from "node:fs"
import { Effect, Layer } from "effect"
import { ConnectionNotFound } from "../lib/domain/clearinghouse-connection.js"
import type { WorkspaceId } from "../lib/domain/ids.js"
import type { Page } from "../lib/domain/page.js"
import { Storage } from "../lib/ports/storage.js"
import { connectionActivity } from "../lib/rules/sftp-activity.js"
import { createConnection, deleteConnection, getConnection, listConnections, updateConnection } from "../lib/rules/sftp-connections.js"
import { findWorkspace } from "../lib/rules/workspaces.js"
import { webhookSettingsLayer } from "../lib/webhooks/settings.js"
import { type CommandSpec, type Parsed, required, str, UsageError } from "./args.js"
import { type Command, dbOption, dbPath, withDb } from "./db-command.js"
import { webhookFlagSpecs, webhookOptions } from "./webhook-flags.js"

const keyFlag = { "webhook-secret-key-file": webhookFlagSpecs["webhook-secret-key-file"] }
const workspaceOption = { type: "string", help: "Workspace slug (default: looked up in every workspace)" } as const

/** The settings flags of create and update; secrets come from files or variables, never the command line. */
const settingsFlags = {
  name: { type: "string", help: "What the connection is called" },
  host: { type: "string", help: "The SFTP server's host name or address" },
  port: { type: "string", help: "Its port (default 22)" },
  username: { type: "string", help: "The user to log in as" },
  "password-file": { type: "string", help: "A file holding the password (its first line); or set ENCOUNTERD_SFTP_PASSWORD (never on the command line)" },
  "private-key-file": { type: "string", help: "A file holding an unencrypted private key (OpenSSH or PEM)" },
  fingerprint: { type: "string", help: "The host key's SHA256 fingerprint (ssh-keyscan -p PORT HOST | ssh-keygen -lf -)" },
  "outbound-dir": { type: "string", help: "Where batches are dropped" },
  "inbound-dir": { type: "string", help: "Where 999, 277CA and 835 files are picked up" },
  "archive-dir": { type: "string", help: "Where picked-up files are moved once imported (none: they stay; update: '' removes it)" },
  "poll-every": { type: "string", help: "How often inbound-dir is read: 30s, 5m, 1h (1s to 24h; default 5m)" },
  "upload-batches": { type: "string", help: "true or false: drop each new 837P batch (default true)" },
  enabled: { type: "string", help: "true or false (default true)" }
} satisfies CommandSpec["options"]

const truth = (p: Parsed, name: string): boolean | undefined => {
  const v = str(p, name)
  if (v === undefined) return undefined
  if (/^(true|1|yes)$/i.test(v)) return true
  if (/^(false|0|no)$/i.test(v)) return false
  throw new UsageError(`--${name} must be true or false`)
}

/** The body the flags make (the API's field names), secrets read from their files. */
const bodyOf = (p: Parsed, forUpdate: boolean): Record<string, unknown> => {
  const passwordFile = str(p, "password-file")
  const keyFile = str(p, "private-key-file")
  const password = passwordFile !== undefined ? (readFileSync(passwordFile, "utf8").split(/\r?\n/)[0] ?? "") : process.env.ENCOUNTERD_SFTP_PASSWORD
  const port = str(p, "port")
  const archive = str(p, "archive-dir")
  const fields: Record<string, unknown> = {
    name: str(p, "name"),
    host: str(p, "host"),
    port: port === undefined ? undefined : Number(port),
    username: str(p, "username"),
    host_key_fingerprint: str(p, "fingerprint"),
    outbound_dir: str(p, "outbound-dir"),
    inbound_dir: str(p, "inbound-dir"),
    archive_dir: archive === undefined ? undefined : archive === "" && forUpdate ? null : archive,
    poll_every: str(p, "poll-every"),
    upload_batches: truth(p, "upload-batches"),
    enabled: truth(p, "enabled"),
    password,
    private_key: keyFile === undefined ? undefined : readFileSync(keyFile, "utf8")
  }
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
}

/** Runs a connection rule with the server's sealing key (the webhook secret key file). */
const withKey = <A, E, R>(p: Parsed, effect: Effect.Effect<A, E, R>) =>
  Effect.provide(effect, Layer.orDie(webhookSettingsLayer(webhookOptions(p, dbPath(p)))))

/** The connection in the workspace named, or in whichever workspace has it. */
const inSomeWorkspace = <A, E, R>(slug: string | undefined, id: string, run: (ws: WorkspaceId) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const workspaces = slug === undefined ? yield* (yield* Storage).listWorkspaces() : [yield* findWorkspace(slug)]
    for (const ws of workspaces) {
      const found = yield* Effect.either(run(ws.id))
      if (found._tag === "Right") return found.right
      const e = found.left
      if (typeof e === "object" && e !== null && "_tag" in e && e._tag === "ConnectionNotFound") continue
      return yield* Effect.fail(e)
    }
    return yield* Effect.fail(new ConnectionNotFound({ id }))
  })

const allPages = <A, E, R>(page: (token: string | undefined) => Effect.Effect<Page<A>, E, R>) =>
  Effect.gen(function* () {
    const out: Array<A> = []
    let token: string | undefined
    for (;;) {
      const p = yield* page(token)
      out.push(...p.items)
      if (p.next_page_token === null) return out
      token = p.next_page_token
    }
  })

const G = "encounterd clearinghouse connections"

export const clearinghouseCommands: Record<string, Command> = {
  "clearinghouse connections create": {
    spec: {
      usage: `${G} create --workspace SLUG --name NAME --host HOST [--port 22] --username USER (--password-file FILE | --private-key-file FILE) --fingerprint SHA256:... --outbound-dir DIR --inbound-dir DIR [--archive-dir DIR] [--poll-every 5m] [--upload-batches true] [--db FILE]`,
      summary: "Connect a workspace to a clearinghouse over SFTP. Prints the connection (never its secret); a running server starts dropping and picking up.",
      options: { workspace: { type: "string", help: "Workspace slug" }, ...settingsFlags, db: dbOption, ...keyFlag }
    },
    run: (p) => {
      const body = bodyOf(p, false)
      return withDb(dbPath(p), withKey(p, Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => createConnection(ws.id, body))))
    }
  },
  "clearinghouse connections list": {
    spec: {
      usage: `${G} list --workspace SLUG [--db FILE]`,
      summary: "A workspace's clearinghouse connections as a JSON array, newest first.",
      options: { workspace: { type: "string", help: "Workspace slug" }, db: dbOption }
    },
    run: (p) =>
      withDb(
        dbPath(p),
        Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) =>
          allPages((token) => listConnections(ws.id, token === undefined ? {} : { page_token: token }))
        )
      )
  },
  "clearinghouse connections show": {
    spec: {
      usage: `${G} show ID [--workspace SLUG] [--db FILE]`,
      summary: "One connection with its pending uploads, alerts and its 20 latest uploads and pickups.",
      options: { workspace: workspaceOption, db: dbOption },
      positionals: ["ID"]
    },
    run: (p) => {
      const id = p.positionals[0]!
      return withDb(
        dbPath(p),
        inSomeWorkspace(str(p, "workspace"), id, (ws) =>
          Effect.all({ connection: getConnection(ws, id), activity: Effect.map(connectionActivity(ws, id, { limit: 20 }), (a) => a.items) })
        )
      )
    }
  },
  "clearinghouse connections update": {
    spec: {
      usage: `${G} update ID [--workspace SLUG] [settings flags as for create] [--db FILE]`,
      summary: "Change a connection's settings or secret. Prints the connection.",
      options: { workspace: workspaceOption, ...settingsFlags, db: dbOption, ...keyFlag },
      positionals: ["ID"]
    },
    run: (p) => {
      const id = p.positionals[0]!
      const body = bodyOf(p, true)
      return withDb(dbPath(p), withKey(p, inSomeWorkspace(str(p, "workspace"), id, (ws) => updateConnection(ws, id, body))))
    }
  },
  "clearinghouse connections delete": {
    spec: {
      usage: `${G} delete ID [--workspace SLUG] [--db FILE]`,
      summary: "Delete a connection (its uploads and pickups stay on record). Prints {deleted: ID}.",
      options: { workspace: workspaceOption, db: dbOption },
      positionals: ["ID"]
    },
    run: (p) => {
      const id = p.positionals[0]!
      return withDb(dbPath(p), Effect.as(inSomeWorkspace(str(p, "workspace"), id, (ws) => deleteConnection(ws, id)), { deleted: id }))
    }
  }
}
