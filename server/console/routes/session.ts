import { Effect, Either, Schema } from "effect"
import { ClaimStatuses, NOTE_MAX_LENGTH } from "../../../lib/domain/claim-status.js"
import { TaskCategories } from "../../../lib/domain/code-meanings.js"
import { EventTypes } from "../../../lib/domain/event.js"
import { TaskStatuses, TaskTypes } from "../../../lib/domain/task.js"
import { parseJsonBody } from "../../../lib/domain/json.js"
import { authenticate, hashKey } from "../../../lib/rules/workspaces.js"
import { readBody, requireJson } from "../../body.js"
import { ConsoleSessionsFull, InvalidBody } from "../../problem.js"
import { json, NoQuery, type Reply } from "../../route.js"
import { clearedCookie, readSessionToken, sessionCookie } from "../cookies.js"
import { type ConsoleCaller, requireSameOrigin } from "../guard.js"
import { privateHeaders } from "../headers.js"
import { consoleRoute, sessionRoute } from "../route.js"

const SignIn = Schema.Struct({ api_key: Schema.String })
const decodeSignIn = Schema.decodeUnknownEither(SignIn, { onExcessProperty: "ignore" })

/** What the page needs to act: the workspace, the key's scopes, and the CSRF token for writes. */
const describe = (caller: Pick<ConsoleCaller, "principal" | "session">) => ({
  workspace: caller.principal.workspace,
  scopes: caller.principal.scopes,
  csrf_token: caller.session.csrf,
  claim_statuses: ClaimStatuses,
  event_types: EventTypes,
  note_max_length: NOTE_MAX_LENGTH,
  task_types: TaskTypes,
  task_categories: TaskCategories,
  task_statuses: TaskStatuses
})

/**
 * Sign-in: the key is checked like a Bearer key; the session keeps its hash, never the key. Every
 * attempt, whatever its outcome, counts against the client address's and the presented key's
 * sign-in limits before the key is looked up.
 */
export const signInRoute = consoleRoute(
  { method: "POST", path: "/console/api/session", summary: "Sign in with an API key" },
  ({ request, config, server }) =>
    Effect.gen(function* () {
      // JSON only: a cross-site form cannot send it without the browser asking first.
      yield* requireSameOrigin(request, config)
      yield* requireJson(request)
      const raw = yield* parseJsonBody(yield* readBody(request, 4096))
      const decoded = decodeSignIn(raw)
      if (Either.isLeft(decoded)) return yield* new InvalidBody({ errors: [{ path: "api_key", message: "is required" }] })
      const key = decoded.right.api_key.trim()
      const hash = hashKey(key)
      const refused = server.console.admitSignIn(hash, server.clientAddress(request))
      if (refused !== undefined) {
        server.rateLimited()
        return yield* refused
      }
      const principal = yield* authenticate(key)
      const sessions = server.console.sessions
      const previous = readSessionToken(request, config)
      if (previous !== undefined) sessions.remove(previous)
      const created = sessions.create({ hash, id: principal.keyId })
      if (created._tag === "Full") return yield* new ConsoleSessionsFull({ limit: config.console.maxSessions })
      const reply: Reply = json(200, describe({ principal, session: created.session }), {
        ...privateHeaders,
        "set-cookie": sessionCookie(config, created.token)
      })
      return reply
    })
)

export const sessionInfoRoute = sessionRoute(
  { method: "GET", path: "/console/api/session", summary: "The signed-in workspace, scopes and CSRF token", query: NoQuery },
  ({ principal: caller }) => Effect.succeed(json(200, describe(caller)))
)

export const signOutRoute = sessionRoute(
  { method: "POST", path: "/console/api/sign-out", summary: "End this session", query: NoQuery },
  ({ principal: caller, config, server }) =>
    Effect.sync(() => {
      server.console.sessions.remove(caller.token)
      return json(204, null, { "set-cookie": clearedCookie(config) })
    })
)
