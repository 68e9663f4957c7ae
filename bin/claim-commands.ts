import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Effect } from "effect"
import { CorrectionActions, type CorrectionAction } from "../lib/domain/encounter.js"
import { correctClaim } from "../lib/rules/correct-claim.js"
import { listEncounterClaims } from "../lib/rules/encounter-claims.js"
import { findWorkspace } from "../lib/rules/workspaces.js"
import { required, str, UsageError } from "./args.js"
import { type Command, dbOption, dbPath, withDb } from "./db-command.js"

const isAction = (s: string): s is CorrectionAction => (CorrectionActions as ReadonlyArray<string>).includes(s)

/** The corrected content of `--payload FILE`: a create payload as JSON. */
const readPayload = (file: string | undefined): unknown => {
  if (file === undefined) return undefined
  const path = resolve(file)
  if (!existsSync(path)) throw new UsageError(`${path} does not exist`)
  try {
    return JSON.parse(readFileSync(path, "utf8"))
  } catch {
    throw new UsageError(`${path} is not JSON`)
  }
}

export const claimCommands: Record<string, Command> = {
  "claims correct": {
    spec: {
      usage: "encounterd claims correct CLAIM_ID --action resubmit|replace|void|secondary --workspace SLUG [--payload FILE] [--note TEXT] [--db FILE]",
      summary:
        "Make a new claim from the encounter's latest claim (resubmit a rejected one; replace, void or bill the secondary payer for an adjudicated one). Prints the new claim.",
      options: {
        workspace: { type: "string", help: "Workspace slug" },
        action: { type: "string", help: "resubmit, replace, void or secondary" },
        payload: { type: "string", help: "The corrected content: a create payload (JSON) with the encounter's external_id" },
        note: { type: "string", help: "Why (kept on the event)" },
        db: dbOption
      },
      positionals: ["CLAIM_ID"]
    },
    run: (p) => {
      const action = required(p, "action")
      if (!isAction(action)) throw new UsageError(`unknown action ${action}; known: ${CorrectionActions.join(", ")}`)
      const slug = required(p, "workspace")
      const encounter = readPayload(str(p, "payload"))
      const note = str(p, "note")
      return withDb(
        dbPath(p),
        Effect.gen(function* () {
          const ws = yield* findWorkspace(slug)
          return (yield* correctClaim(ws.id, p.positionals[0]!, { action, encounter, note })).claim
        })
      )
    }
  },
  "claims list": {
    spec: {
      usage: "encounterd claims list ENCOUNTER_ID --workspace SLUG [--db FILE]",
      summary: "An encounter's claims, oldest first (the last is its latest). Prints them.",
      options: { workspace: { type: "string", help: "Workspace slug" }, db: dbOption },
      positionals: ["ENCOUNTER_ID"]
    },
    run: (p) => {
      const slug = required(p, "workspace")
      return withDb(dbPath(p), Effect.flatMap(findWorkspace(slug), (ws) => listEncounterClaims(ws.id, p.positionals[0]!)))
    }
  }
}
