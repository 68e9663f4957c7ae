import { Effect, Layer } from "effect"
import type { WorkspaceId } from "../lib/domain/ids.js"
import type { Page } from "../lib/domain/page.js"
import { WebhookDeliveryStatuses } from "../lib/domain/webhook.js"
import { WebhookDeliveryNotFound, WebhookEndpointNotFound } from "../lib/domain/webhook-errors.js"
import { Storage } from "../lib/ports/storage.js"
import { listWebhookDeliveries, retryWebhookDelivery } from "../lib/rules/webhook-deliveries.js"
import { createWebhookEndpoint, listWebhookEndpoints, updateWebhookEndpoint } from "../lib/rules/webhook-endpoints.js"
import { findWorkspace } from "../lib/rules/workspaces.js"
import { webhookSettingsLayer } from "../lib/webhooks/settings.js"
import { type Parsed, required, str, UsageError } from "./args.js"
import type { Command } from "./commands.js"
import { dbOption, dbPath, withDb } from "./db-command.js"
import { webhookFlagSpecs, webhookOptions } from "./webhook-flags.js"

const workspaceOption = { type: "string", help: "Workspace slug (default: looked up in every workspace)" } as const
const settingsFlags = {
  "webhook-allow-private": webhookFlagSpecs["webhook-allow-private"],
  "webhook-secret-key-file": webhookFlagSpecs["webhook-secret-key-file"]
}
/** `create` also counts the workspace's endpoints against the limit the server is given. */
const createFlags = { ...settingsFlags, "webhook-max-endpoints": webhookFlagSpecs["webhook-max-endpoints"] }

/** Runs a webhook rule with the same settings (sealing key, target policy) the server would use. */
const withWebhooks = <A, E, R>(p: Parsed, effect: Effect.Effect<A, E, R>) =>
  Effect.provide(effect, Layer.orDie(webhookSettingsLayer(webhookOptions(p, dbPath(p)))))

/**
 * The operator knows an id, maybe not its workspace: the one named, or each in turn (like
 * `keys revoke`). Not found anywhere is not found.
 */
const inSomeWorkspace = <A, E, R>(
  slug: string | undefined,
  notFound: WebhookEndpointNotFound | WebhookDeliveryNotFound,
  run: (ws: WorkspaceId) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const workspaces = slug === undefined ? yield* (yield* Storage).listWorkspaces() : [yield* findWorkspace(slug)]
    for (const ws of workspaces) {
      const found = yield* Effect.either(run(ws.id))
      if (found._tag === "Right") return found.right
      const e = found.left
      if (typeof e === "object" && e !== null && "_tag" in e && e._tag === notFound._tag) continue
      return yield* Effect.fail(e)
    }
    return yield* Effect.fail(notFound)
  })

/** Every page of a list, as one array. */
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

const toggle = (status: "enabled" | "disabled"): Command => ({
  spec: {
    usage: `encounterd webhooks ${status === "enabled" ? "enable" : "disable"} ID [--workspace SLUG] [--db FILE]`,
    summary: `${status === "enabled" ? "Enable a webhook endpoint (clears disabled_reason)" : "Disable a webhook endpoint"}. Prints the endpoint.`,
    options: { workspace: workspaceOption, db: dbOption, ...settingsFlags },
    positionals: ["ID"]
  },
  run: (p) => {
    const id = p.positionals[0]!
    return withDb(dbPath(p), withWebhooks(p, inSomeWorkspace(str(p, "workspace"), new WebhookEndpointNotFound({ id }), (ws) => updateWebhookEndpoint(ws, id, { status }))))
  }
})

export const webhookCommands: Record<string, Command> = {
  "webhooks create": {
    spec: {
      usage:
        "encounterd webhooks create --workspace SLUG --url URL [--event-type TYPE]... [--description TEXT] [--webhook-max-endpoints 50] [--db FILE]",
      summary: "Register a webhook endpoint. Prints it with its signing secret, shown this once.",
      options: {
        workspace: { type: "string", help: "Workspace slug" },
        url: { type: "string", help: "Absolute http(s) URL of the receiver" },
        "event-type": { type: "string", multiple: true, help: "Event type to send, repeatable (default: every type)" },
        description: { type: "string", help: "What the endpoint is for" },
        db: dbOption,
        ...createFlags
      }
    },
    run: (p) => {
      const raw = p.values["event-type"]
      const types = Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : []
      const description = str(p, "description")
      const body = { url: required(p, "url"), event_types: types, ...(description !== undefined ? { description } : {}) }
      return withDb(
        dbPath(p),
        withWebhooks(p, Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => createWebhookEndpoint(ws.id, body)))
      )
    }
  },
  "webhooks list": {
    spec: {
      usage: "encounterd webhooks list --workspace SLUG [--db FILE]",
      summary: "List a workspace's webhook endpoints (never their secrets) as a JSON array, newest first.",
      options: { workspace: { type: "string", help: "Workspace slug" }, db: dbOption }
    },
    run: (p) =>
      withDb(
        dbPath(p),
        Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) =>
          allPages((token) => listWebhookEndpoints(ws.id, { ...(token !== undefined ? { page_token: token } : {}) }))
        )
      )
  },
  "webhooks enable": toggle("enabled"),
  "webhooks disable": toggle("disabled"),
  "webhooks deliveries": {
    spec: {
      usage: "encounterd webhooks deliveries ENDPOINT_ID [--status pending|succeeded|failed] [--workspace SLUG] [--db FILE]",
      summary: "An endpoint's delivery log as a JSON array, newest first.",
      options: { status: { type: "string", help: `Only deliveries with this status (${WebhookDeliveryStatuses.join(", ")})` }, workspace: workspaceOption, db: dbOption },
      positionals: ["ENDPOINT_ID"]
    },
    run: (p) => {
      const id = p.positionals[0]!
      const status = str(p, "status")
      if (status !== undefined && !WebhookDeliveryStatuses.some((s) => s === status)) {
        throw new UsageError(`--status must be one of ${WebhookDeliveryStatuses.join(", ")}`)
      }
      return withDb(
        dbPath(p),
        inSomeWorkspace(str(p, "workspace"), new WebhookEndpointNotFound({ id }), (ws) =>
          allPages((token) => listWebhookDeliveries(ws, id, { status, ...(token !== undefined ? { page_token: token } : {}) }))
        )
      )
    }
  },
  "webhooks retry": {
    spec: {
      usage: "encounterd webhooks retry DELIVERY_ID [--workspace SLUG] [--db FILE]",
      summary: "Queue one more attempt of a delivery now (a running server makes it), also for a failed one. Prints the delivery.",
      options: { workspace: workspaceOption, db: dbOption },
      positionals: ["DELIVERY_ID"]
    },
    run: (p) => {
      const id = p.positionals[0]!
      return withDb(dbPath(p), inSomeWorkspace(str(p, "workspace"), new WebhookDeliveryNotFound({ id }), (ws) => retryWebhookDelivery(ws, id)))
    }
  }
}
