import { closeSync, fsyncSync, writeSync } from "node:fs"
import { Effect } from "effect"
import { timeBound } from "../lib/domain/page.js"
import { Roles } from "../lib/domain/user.js"
import type { Workspace } from "../lib/domain/workspace.js"
import { openNewPrivateFile } from "../lib/private-files.js"
import { Passwords } from "../lib/ports/passwords.js"
import { exportAudit } from "../lib/rules/audit.js"
import { getRetention, purgeWorkspace, setRetention } from "../lib/rules/retention.js"
import { createUser, findUserByEmail, listUsers, resetUserPassword, updateUser } from "../lib/rules/users.js"
import { findWorkspace, listWorkspaces } from "../lib/rules/workspaces.js"
import { argon2idPasswords } from "../server/passwords.js"
import { int, required, str, UsageError } from "./args.js"
import { type Command, dbOption, dbPath, withDb } from "./db-command.js"

const workspaceOption = { type: "string", help: "Workspace slug" } as const
const emailOption = { type: "string", help: "The user's email" } as const

/** The users of a workspace, every page. */
const allUsers = (ws: Workspace) =>
  Effect.gen(function* () {
    const users = []
    let token: string | undefined
    do {
      const page = yield* listUsers(ws.id, { limit: 100, page_token: token })
      users.push(...page.items)
      token = page.next_page_token ?? undefined
    } while (token !== undefined)
    return users
  })

const setStatus = (slug: string, email: string, status: "active" | "disabled") =>
  Effect.gen(function* () {
    const ws = yield* findWorkspace(slug)
    const user = yield* findUserByEmail(ws.id, email)
    return yield* updateUser(ws.id, user.id, { status })
  })

/** A time flag: ISO 8601. */
const timeFlag = (name: string, value: string): string => {
  const bound = timeBound(name, value)
  if (typeof bound !== "string") throw new UsageError(`--${name} must be an ISO 8601 time, e.g. 2026-01-01T00:00:00Z`)
  return bound
}

export const userCommands: Record<string, Command> = {
  "users create": {
    spec: {
      usage: "encounterd users create --workspace SLUG --email EMAIL --role viewer|biller|admin [--name NAME] [--db FILE]",
      summary: "Add a console user. Prints {id, email, role, status, initial_password}; the one-time password is shown this once and must be changed at the first sign-in.",
      options: { workspace: workspaceOption, email: emailOption, role: { type: "string", help: `One of ${Roles.join(", ")}` }, name: { type: "string", help: "Display name" }, db: dbOption }
    },
    run: (p) => {
      const role = required(p, "role")
      if (!Roles.some((r) => r === role)) throw new UsageError(`unknown role ${role}; known: ${Roles.join(", ")}`)
      return withDb(
        dbPath(p),
        Effect.gen(function* () {
          const ws = yield* findWorkspace(required(p, "workspace"))
          return yield* createUser(ws.id, { email: required(p, "email"), role, name: str(p, "name") ?? null })
        }).pipe(Effect.provideService(Passwords, argon2idPasswords()))
      )
    }
  },
  "users list": {
    spec: { usage: "encounterd users list --workspace SLUG [--db FILE]", summary: "List a workspace's users (never their passwords) as a JSON array.", options: { workspace: workspaceOption, db: dbOption } },
    run: (p) => withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), allUsers))
  },
  "users disable": {
    spec: { usage: "encounterd users disable --workspace SLUG --email EMAIL [--db FILE]", summary: "Disable a user: their console sessions end at their next request. Prints the user.", options: { workspace: workspaceOption, email: emailOption, db: dbOption } },
    run: (p) => withDb(dbPath(p), setStatus(required(p, "workspace"), required(p, "email"), "disabled"))
  },
  "users enable": {
    spec: { usage: "encounterd users enable --workspace SLUG --email EMAIL [--db FILE]", summary: "Enable a user again (clears a sign-in lockout). Prints the user.", options: { workspace: workspaceOption, email: emailOption, db: dbOption } },
    run: (p) => withDb(dbPath(p), setStatus(required(p, "workspace"), required(p, "email"), "active"))
  },
  "users reset-password": {
    spec: {
      usage: "encounterd users reset-password --workspace SLUG --email EMAIL [--db FILE]",
      summary: "Give a user a new one-time password (shown this once, to be changed at the next sign-in). Prints the user with initial_password.",
      options: { workspace: workspaceOption, email: emailOption, db: dbOption }
    },
    run: (p) =>
      withDb(
        dbPath(p),
        Effect.gen(function* () {
          const ws = yield* findWorkspace(required(p, "workspace"))
          const user = yield* findUserByEmail(ws.id, required(p, "email"))
          return yield* resetUserPassword(ws.id, user.id)
        }).pipe(Effect.provideService(Passwords, argon2idPasswords()))
      )
  },
  "audit export": {
    spec: {
      usage: "encounterd audit export --since TIME --out FILE [--workspace SLUG] [--db FILE]",
      summary: "Write the audit log's entries at or after TIME, oldest first, as JSON lines to a new 0600 file (every workspace unless one is named). Prints {out, entries}.",
      options: { since: { type: "string", help: "ISO 8601 time" }, out: { type: "string", help: "A new file (refused if it exists)" }, workspace: workspaceOption, db: dbOption }
    },
    run: (p) => {
      const since = timeFlag("since", required(p, "since"))
      const out = required(p, "out")
      const slug = str(p, "workspace")
      return withDb(
        dbPath(p),
        Effect.gen(function* () {
          const workspaces = slug === undefined ? yield* listWorkspaces() : [yield* findWorkspace(slug)]
          const fd = openNewPrivateFile(out)
          let entries = 0
          try {
            for (const ws of workspaces) {
              entries += yield* exportAudit(ws.id, since, (chunk) =>
                Effect.sync(() => {
                  const bytes = Buffer.from(chunk.map((e) => `${JSON.stringify(e)}\n`).join(""))
                  let written = 0
                  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written)
                })
              )
            }
            fsyncSync(fd)
          } finally {
            closeSync(fd)
          }
          return { out, entries }
        })
      )
    }
  },
  "retention set": {
    spec: {
      usage: "encounterd retention set --workspace SLUG [--raw-request-days N|keep] [--audit-days N] [--db FILE]",
      summary: "How long a workspace keeps raw requests (default keep) and audit entries (default 6 years, at least 1). Prints the retention.",
      options: {
        workspace: workspaceOption,
        "raw-request-days": { type: "string", help: "Days raw requests (bodies as received) are kept, or keep" },
        "audit-days": { type: "string", help: "Days audit entries are kept (366 or more)" },
        db: dbOption
      }
    },
    run: (p) => {
      const raw = str(p, "raw-request-days")
      const rawDays = raw === undefined ? undefined : raw === "keep" ? null : int(p, "raw-request-days", 1)
      const auditDays = int(p, "audit-days", 366)
      return withDb(
        dbPath(p),
        Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => setRetention(ws.id, { raw_request_days: rawDays, audit_days: auditDays }))
      )
    }
  },
  "retention show": {
    spec: { usage: "encounterd retention show --workspace SLUG [--db FILE]", summary: "A workspace's retention as JSON.", options: { workspace: workspaceOption, db: dbOption } },
    run: (p) => withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => getRetention(ws.id)))
  },
  purge: {
    spec: {
      usage: "encounterd purge --workspace SLUG [--dry-run] [--db FILE]",
      summary: "Remove what the workspace's retention no longer keeps (raw requests past raw_request_days, audit entries past audit_days); --dry-run counts only. Prints a report.",
      options: { workspace: workspaceOption, "dry-run": { type: "boolean", help: "Count, remove nothing" }, db: dbOption }
    },
    run: (p) => withDb(dbPath(p), Effect.flatMap(findWorkspace(required(p, "workspace")), (ws) => purgeWorkspace(ws.id, p.values["dry-run"] === true)))
  }
}
