import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Effect } from "effect"
import { getClearinghouseSettings, putClearinghouseSettings } from "../lib/rules/clearinghouse-settings.js"
import { findWorkspace } from "../lib/rules/workspaces.js"
import { listClaimRemittances } from "../lib/rules/claim-remittances.js"
import { listX12FileOutcomes, listX12Files } from "../lib/rules/x12-reads.js"
import { importX12File } from "../lib/rules/x12-import.js"
import { type Parsed, required, str, UsageError } from "./args.js"
import type { Command } from "./db-command.js"
import { dbOption, dbPath, withDb } from "./db-command.js"
import { x12ExportCommand } from "./x12-export.js"

const workspaceOption = { type: "string", help: "Workspace slug" } as const
const pageOptions = {
  limit: { type: "string", help: "Page size, 1 to 100 (default 100)" },
  "page-token": { type: "string", help: "next_page_token or prev_page_token of a previous page" }
} as const

/** The page a command was asked for (`--limit`, `--page-token`), as the API's query. */
const pageQuery = (p: Parsed) => {
  const limit = str(p, "limit")
  const token = str(p, "page-token")
  if (limit !== undefined && !/^\d+$/.test(limit)) throw new UsageError("--limit must be a whole number from 1 to 100")
  return { ...(limit !== undefined ? { limit: Number(limit) } : {}), ...(token !== undefined ? { page_token: token } : {}) }
}

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
  },
  "x12 files": {
    spec: {
      usage: "encounterd x12 files --workspace SLUG [--limit N] [--page-token TOKEN] [--db FILE]",
      summary:
        "A page of the X12 files received, newest first: each with a summary of its claim outcomes and its first 20 (all of them: x12 outcomes). Prints the page.",
      options: { workspace: workspaceOption, ...pageOptions, db: dbOption }
    },
    run: (p) => {
      const query = pageQuery(p)
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => listX12Files(ws.id, query)))
    }
  },
  "x12 outcomes": {
    spec: {
      usage: "encounterd x12 outcomes FILE_ID --workspace SLUG [--limit N] [--page-token TOKEN] [--db FILE]",
      summary: "A page of what one X12 file did to each claim it names, in file order. Prints the page.",
      options: { workspace: workspaceOption, ...pageOptions, db: dbOption },
      positionals: ["FILE_ID"]
    },
    run: (p) => {
      const query = pageQuery(p)
      const id = p.positionals[0]!
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => listX12FileOutcomes(ws.id, id, query)))
    }
  },
  "claims remittances": {
    spec: {
      usage: "encounterd claims remittances CLAIM_ID --workspace SLUG [--limit N] [--page-token TOKEN] [--db FILE]",
      summary: "A page of a claim's remittances (835s that named it), newest first. Prints the page.",
      options: { workspace: workspaceOption, ...pageOptions, db: dbOption },
      positionals: ["CLAIM_ID"]
    },
    run: (p) => {
      const query = pageQuery(p)
      const id = p.positionals[0]!
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => listClaimRemittances(ws.id, id, query)))
    }
  }
}
