import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Effect } from "effect"
import { getClearinghouseSettings, putClearinghouseSettings } from "../lib/rules/clearinghouse-settings.js"
import { findWorkspace } from "../lib/rules/workspaces.js"
import { importX12File } from "../lib/rules/x12-import.js"
import { type Parsed, required, str, UsageError } from "./args.js"
import type { Command } from "./db-command.js"
import { dbOption, dbPath, withDb } from "./db-command.js"
import { x12ExportCommand } from "./x12-export.js"

const workspaceOption = { type: "string", help: "Workspace slug" } as const

/** Flags of `clearinghouse set`, each one field of the settings. */
const settingFlags = {
  "interchange-sender-id": "ISA06/GS02: your id at the clearinghouse (2-15 characters)",
  "interchange-receiver-id": "ISA08/GS03: the clearinghouse's id (2-15 characters)",
  "submitter-name": "1000A NM103: your organization's name",
  "submitter-id": "1000A NM109: the submitter id (ETIN) the clearinghouse gave you",
  "contact-name": "1000A PER02: whom the clearinghouse calls",
  "contact-phone": "PER TE: 10 digits (a phone or an email is required)",
  "contact-email": "PER EM: an email address",
  "receiver-name": "1000B NM103: the clearinghouse's name",
  "receiver-id": "1000B NM109: the clearinghouse's ETIN",
  usage: "ISA15: T (test) or P (production)"
} as const

const settingsFrom = (p: Parsed) => {
  const phone = str(p, "contact-phone")
  const email = str(p, "contact-email")
  return {
    interchange_sender_id: required(p, "interchange-sender-id"),
    interchange_receiver_id: required(p, "interchange-receiver-id"),
    submitter: {
      name: required(p, "submitter-name"),
      id: required(p, "submitter-id"),
      contact_name: required(p, "contact-name"),
      ...(phone !== undefined ? { contact_phone: phone } : {}),
      ...(email !== undefined ? { contact_email: email } : {})
    },
    receiver: { name: required(p, "receiver-name"), id: required(p, "receiver-id") },
    usage: required(p, "usage")
  }
}

export const x12Commands: Record<string, Command> = {
  "clearinghouse set": {
    spec: {
      usage: "encounterd clearinghouse set --workspace SLUG --interchange-sender-id ID --interchange-receiver-id ID --submitter-name NAME --submitter-id ID --contact-name NAME (--contact-phone N | --contact-email E) --receiver-name NAME --receiver-id ID --usage T|P [--db FILE]",
      summary: "Set a workspace's clearinghouse settings (what the 837P envelopes say). Prints the settings.",
      options: {
        workspace: workspaceOption,
        ...Object.fromEntries(Object.entries(settingFlags).map(([name, help]) => [name, { type: "string", help } as const])),
        db: dbOption
      }
    },
    run: (p) => {
      const slug = required(p, "workspace")
      const settings = settingsFrom(p)
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(slug), (ws) => putClearinghouseSettings(ws.id, settings)))
    }
  },
  "clearinghouse show": {
    spec: {
      usage: "encounterd clearinghouse show --workspace SLUG [--db FILE]",
      summary: "Print a workspace's clearinghouse settings (fails while unset).",
      options: { workspace: workspaceOption, db: dbOption }
    },
    run: (p) => withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => getClearinghouseSettings(ws.id)))
  },
  "x12 export": x12ExportCommand,
  "x12 import": {
    spec: {
      usage: "encounterd x12 import FILE --workspace SLUG [--db FILE]",
      summary: "Import a 999, 277CA or 835 the clearinghouse sent back. Prints what it did to each claim.",
      options: { workspace: workspaceOption, db: dbOption },
      positionals: ["FILE"]
    },
    run: (p) => {
      const path = resolve(p.positionals[0]!)
      if (!existsSync(path)) throw new UsageError(`${path} does not exist`)
      const body = new Uint8Array(readFileSync(path))
      return withDb(
        dbPath(p),
        Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) =>
          importX12File({ workspace_id: ws.id, body, content_type: "application/edi-x12", key_id: null })
        )
      )
    }
  }
}
