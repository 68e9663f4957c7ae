import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { Data, Effect, Either, Layer } from "effect"
import { discardStagedFile, publishStagedFile, type StagedFile, stagePrivateFile } from "../lib/private-files.js"
import { getStatusCheckSettings, putStatusCheckSettings } from "../lib/rules/status-check-settings.js"
import { requestStatusCheck } from "../lib/rules/status-checks.js"
import { export276 } from "../lib/rules/status-checks-export.js"
import { findWorkspace } from "../lib/rules/workspaces.js"
import { webhookSettingsLayer } from "../lib/webhooks/settings.js"
import { type Parsed, required, str, UsageError } from "./args.js"
import { type Command, dbOption, dbPath, withDb } from "./db-command.js"
import { webhookFlagSpecs, webhookOptions } from "./webhook-flags.js"

const workspaceOption = { type: "string", help: "Workspace slug" } as const

/** The 276 file could not be written: no check was marked sent. */
export class FileNotWritten extends Data.TaggedError("FileNotWritten")<{ readonly message: string }> {}

/** Rules that seal or open the core password take the server's secret key, from the same flags. */
const withKey = <A, E, R>(p: Parsed, effect: Effect.Effect<A, E, R>) =>
  Effect.provide(effect, Layer.orDie(webhookSettingsLayer(webhookOptions(p, dbPath(p)))))

const whole = (p: Parsed, name: string): number | undefined => {
  const v = str(p, name)
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number`)
  return Number(v)
}

const settingsBody = (p: Parsed) => {
  const enabled = str(p, "enabled") ?? "true"
  if (enabled !== "true" && enabled !== "false") throw new UsageError("--enabled must be true or false")
  const url = str(p, "core-url")
  const password = str(p, "core-password") ?? process.env.ENCOUNTERD_CORE_PASSWORD
  const numbers = Object.fromEntries(
    (["first-after-days", "every-days", "max-checks", "window-days"] as const).flatMap((name) => {
      const n = whole(p, name)
      return n === undefined ? [] : [[name.replaceAll("-", "_"), n]]
    })
  )
  return {
    enabled: enabled === "true",
    ...numbers,
    ...(str(p, "transport") !== undefined ? { transport: str(p, "transport") } : {}),
    ...(url === undefined
      ? {}
      : {
          core: {
            url,
            sender_id: required(p, "core-sender-id"),
            receiver_id: required(p, "core-receiver-id"),
            username: required(p, "core-username"),
            ...(password !== undefined ? { password } : {})
          }
        })
  }
}

export const statusCheckCommands: Record<string, Command> = {
  "claims check": {
    spec: {
      usage: "encounterd claims check CLAIM_ID --workspace SLUG [--db FILE]",
      summary:
        "Ask the payer for a claim's status (a 276). Prints the check: queued; a running server sends it at once with the core transport, `x12 export-276` with the file transport.",
      options: { workspace: workspaceOption, db: dbOption },
      positionals: ["CLAIM_ID"]
    },
    run: (p) => {
      const slug = required(p, "workspace")
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(slug), (ws) => requestStatusCheck(ws.id, p.positionals[0]!)))
    }
  },
  "x12 export-276": {
    spec: {
      usage: "encounterd x12 export-276 --workspace SLUG --out FILE [--claims ID[,ID...]] [--db FILE]",
      summary:
        "Write the workspace's queued status checks (file transport) as one 276 file; with --claims only those claims' (a check is made for a named claim without one). The checks become sent once the file is written. Prints {file, interchange_control_number, checks}.",
      options: {
        workspace: workspaceOption,
        out: { type: "string", help: "Where to write the 276, owner-only (0600) (must not exist; its folder must)" },
        claims: { type: "string", help: "Claim ids, comma-separated" },
        db: dbOption
      }
    },
    run: (p) => {
      const slug = required(p, "workspace")
      const out = resolve(required(p, "out"))
      if (existsSync(out)) throw new UsageError(`${out} already exists`)
      const claims = str(p, "claims")?.split(",").map((c) => c.trim()).filter((c) => c !== "")
      return withDb(
        dbPath(p),
        Effect.gen(function* () {
          const ws = yield* findWorkspace(slug)
          let staged: StagedFile | undefined
          // The file is written in full before the checks are marked sent, and named only after.
          const stage = (text: string) =>
            Effect.try({
              try: () => {
                if (staged !== undefined) discardStagedFile(staged)
                staged = stagePrivateFile(out, new TextEncoder().encode(text))
              },
              catch: (cause) => new FileNotWritten({ message: `Cannot write ${out}: ${cause instanceof Error ? cause.message : String(cause)}; no check was sent` })
            })
          const result = yield* Effect.either(export276(ws.id, claims, stage))
          const file = staged
          if (Either.isLeft(result)) {
            if (file !== undefined) discardStagedFile(file)
            return yield* result.left
          }
          if (file !== undefined) publishStagedFile(file)
          return { file: out, interchange_control_number: result.right.interchange_control_number, checks: result.right.checks }
        })
      )
    }
  },
  "status-checks set": {
    spec: {
      usage:
        "encounterd status-checks set --workspace SLUG [--enabled true|false] [--first-after-days 7] [--every-days 7] [--max-checks 6] [--window-days 7] [--transport file|core] [--core-url URL --core-sender-id ID --core-receiver-id ID --core-username NAME [--core-password P]] [--db FILE]",
      summary:
        "Set the workspace's claim follow-up settings. The core password is sealed with the webhook secret key (also read from ENCOUNTERD_CORE_PASSWORD) and never shown; left out, the stored one is kept. Prints the settings.",
      options: {
        workspace: workspaceOption,
        enabled: { type: "string", help: "true (default) or false" },
        "first-after-days": { type: "string", help: "Days after submission before the first inquiry (default 7; 0 allowed)" },
        "every-days": { type: "string", help: "Days between inquiries (default 7)" },
        "max-checks": { type: "string", help: "Inquiries per claim and status, at most (default 6)" },
        "window-days": { type: "string", help: "Days either side of the dates of service in the 276 (default 7, at most 30)" },
        transport: { type: "string", help: "file (276 batch files, default) or core (CAQH CORE real time)" },
        "core-url": { type: "string", help: "The CORE endpoint (https; http only to loopback)" },
        "core-sender-id": { type: "string", help: "SenderID of the envelope" },
        "core-receiver-id": { type: "string", help: "ReceiverID of the envelope" },
        "core-username": { type: "string", help: "UserName of the envelope" },
        "core-password": { type: "string", help: "Password of the envelope (prefer ENCOUNTERD_CORE_PASSWORD)" },
        "webhook-secret-key-file": webhookFlagSpecs["webhook-secret-key-file"],
        db: dbOption
      }
    },
    run: (p) => {
      const slug = required(p, "workspace")
      const body = settingsBody(p)
      return withDb(dbPath(p), withKey(p, Effect.flatMap(findWorkspace(slug), (ws) => putStatusCheckSettings(ws.id, body))))
    }
  },
  "status-checks show": {
    spec: {
      usage: "encounterd status-checks show --workspace SLUG [--db FILE]",
      summary: "Print the workspace's claim follow-up settings (never the password).",
      options: { workspace: workspaceOption, db: dbOption }
    },
    run: (p) => {
      const slug = required(p, "workspace")
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(slug), (ws) => getStatusCheckSettings(ws.id)))
    }
  }
}
