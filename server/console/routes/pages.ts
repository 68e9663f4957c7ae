import { Effect } from "effect"
import { RouteNotFound } from "../../problem.js"
import { text } from "../../route.js"
import { assets, consolePage } from "../assets.js"
import { consoleHeaders } from "../headers.js"
import { consoleRoute } from "../route.js"

/** The paths the page draws a view for; each answers the same page (a reload keeps the view). */
const pagePaths = [
  "/console",
  "/console/encounters",
  "/console/encounters/{id}",
  "/console/claims",
  "/console/intake",
  "/console/audit",
  "/console/intake/{id}",
  "/console/events",
  "/console/webhooks",
  "/console/webhooks/{id}",
  "/console/clearinghouse",
  "/console/clearinghouse/files/{id}",
  "/console/work-queue",
  "/console/work-queue/{id}"
]

export const pageRoutes = pagePaths.map((path) =>
  consoleRoute({ method: "GET", path, summary: "The operator console" }, () =>
    Effect.succeed(text(200, consolePage(), "text/html; charset=utf-8", { ...consoleHeaders, "cache-control": "no-cache" }))
  )
)

/** Scripts and the stylesheet, with an ETag so a revisit costs a 304. */
export const assetRoute = consoleRoute(
  { method: "GET", path: "/console/assets/{name}", summary: "The console's scripts and stylesheet" },
  ({ params, request }) =>
    Effect.gen(function* () {
      const name = params.name ?? ""
      const found = assets().get(name)
      if (found === undefined) return yield* new RouteNotFound({ path: `/console/assets/${name}` })
      const headers = { ...consoleHeaders, "cache-control": "no-cache", etag: found.etag }
      if (request.headers.get("if-none-match") === found.etag) return text(304, "", found.contentType, headers)
      return text(200, found.body, found.contentType, headers)
    })
)

/**
 * `GET /` sends a browser to the console. Nothing of the API lives at `/` (it answered 404 before),
 * so API clients lose nothing.
 */
export const rootRoute = consoleRoute({ method: "GET", path: "/", summary: "To the operator console" }, () =>
  Effect.succeed(text(302, "", "text/plain; charset=utf-8", { location: "/console", "cache-control": "no-cache" }))
)
