import { createHash } from "node:crypto"
import * as apiSource from "./client/api.ts" with { type: "text" }
import * as auditSource from "./client/audit-view.ts" with { type: "text" }
import * as passwordSource from "./client/password-view.ts" with { type: "text" }
import * as claimsSource from "./client/claims-view.ts" with { type: "text" }
import * as clearinghouseSource from "./client/clearinghouse-view.ts" with { type: "text" }
import * as connectionsSource from "./client/connections-view.ts" with { type: "text" }
import * as correctSource from "./client/correct-claim.ts" with { type: "text" }
import * as domSource from "./client/dom.ts" with { type: "text" }
import * as encounterSource from "./client/encounter-view.ts" with { type: "text" }
import * as encountersSource from "./client/encounters-view.ts" with { type: "text" }
import * as eventsSource from "./client/events-view.ts" with { type: "text" }
import * as formatSource from "./client/format.ts" with { type: "text" }
import * as intakeSource from "./client/intake-view.ts" with { type: "text" }
import * as mainSource from "./client/main.ts" with { type: "text" }
import * as moveSource from "./client/move-claim.ts" with { type: "text" }
import * as signInSource from "./client/sign-in-view.ts" with { type: "text" }
import * as statusChecksSource from "./client/status-checks-view.ts" with { type: "text" }
import * as tasksSource from "./client/tasks-view.ts" with { type: "text" }
import * as webhooksSource from "./client/webhooks-view.ts" with { type: "text" }
import * as css from "./console.css" with { type: "text" }
import * as page from "./index.html" with { type: "text" }

/** A text import's content: the module's default export (its type is not the file's own). */
const textOf = (module: unknown): string => {
  if (typeof module === "object" && module !== null && "default" in module && typeof module.default === "string") return module.default
  throw new Error("a console asset was not bundled as text")
}

export interface Asset {
  readonly contentType: string
  readonly body: string
  readonly etag: string
}

const asset = (contentType: string, body: string): Asset => ({
  contentType,
  body,
  etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`
})

// The browser scripts are written in TypeScript (type-checked with the server) and served as
// JavaScript: types are stripped once, on first use; the binary carries only their sources.
const scripts: Record<string, unknown> = {
  "api.js": apiSource,
  "audit-view.js": auditSource,
  "password-view.js": passwordSource,
  "claims-view.js": claimsSource,
  "clearinghouse-view.js": clearinghouseSource,
  "connections-view.js": connectionsSource,
  "dom.js": domSource,
  "encounter-view.js": encounterSource,
  "encounters-view.js": encountersSource,
  "events-view.js": eventsSource,
  "format.js": formatSource,
  "intake-view.js": intakeSource,
  "main.js": mainSource,
  "move-claim.js": moveSource,
  "correct-claim.js": correctSource,
  "sign-in-view.js": signInSource,
  "status-checks-view.js": statusChecksSource,
  "tasks-view.js": tasksSource,
  "webhooks-view.js": webhooksSource
}

let built: ReadonlyMap<string, Asset> | undefined

/** The files under /console/assets/, by name. */
export const assets = (): ReadonlyMap<string, Asset> => {
  if (built !== undefined) return built
  const transpiler = new Bun.Transpiler({ loader: "ts", target: "browser" })
  const map = new Map<string, Asset>([["console.css", asset("text/css; charset=utf-8", textOf(css))]])
  for (const [name, source] of Object.entries(scripts)) {
    map.set(name, asset("text/javascript; charset=utf-8", transpiler.transformSync(textOf(source))))
  }
  built = map
  return map
}

/** The one HTML page: every console path answers it, and the script draws the view for the path. */
export const consolePage = (): string => textOf(page)
