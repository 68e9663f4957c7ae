/**
 * Reference server for the benchmark: the benchmarked routes of encounterd written directly on
 * Bun.serve and bun:sqlite, with prepared statements and a hand-written validator (shared.mjs, in
 * common with the Fastify server).
 *
 *   bun bench/reference/bun-server.ts --port 0 --db /tmp/ref.sqlite [--synchronous FULL|NORMAL]
 *
 * Prints one JSON line (`listening`, with the URL and a fresh API key) and serves until SIGTERM.
 */
import { Database } from "bun:sqlite"
import * as shared from "./shared.mjs"

const { port, dbPath, synchronous, audit } = shared.readFlags()

const db = new Database(dbPath, { create: true })
for (const pragma of shared.pragmas(synchronous)) db.exec(`PRAGMA ${pragma}`)
db.exec(shared.SCHEMA)

const api = shared.referenceApi({
  prepare: (sql) => db.prepare<unknown, Array<shared.SqlValue>>(sql),
  transaction: (fn) => db.transaction(fn),
  newId: () => Bun.randomUUIDv7(),
  audit
})

// ---- HTTP -------------------------------------------------------------------------------------

/** Answers, after appending the request's audit row (`shared.referenceApi`'s `audit`). */
const sendAudited = (req: Request, who: shared.Principal, action: string, type: string, id: string | null, answer: shared.Answer, read = true): Response => {
  const requestId = crypto.randomUUID()
  api.audit(who, action, type, id, server.requestIP(req)?.address ?? null, requestId, answer.status, read)
  return send(answer, requestId)
}

const send = (answer: shared.Answer, requestId: string = crypto.randomUUID()): Response => {
  return answer.kind === "json"
    ? new Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { "content-type": "application/json", "x-request-id": requestId }
      })
    : new Response(JSON.stringify(shared.problemBody(answer, requestId)), {
        status: answer.status,
        headers: shared.problemHeaders(answer.status, requestId)
      })
}

const isJsonType = (value: string | null): boolean => {
  const type = (value ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

const create = async (req: Request): Promise<Response> => {
  const who = api.authenticate(req.headers.get("authorization"))
  if ("kind" in who) return send(who)
  const contentType = req.headers.get("content-type")
  if (!isJsonType(contentType)) {
    const detail = `Expected Content-Type application/json, received ${contentType ?? "none"}`
    return send(shared.problem(415, "unsupported_media_type", "Unsupported media type", detail))
  }
  return sendAudited(req, who, "encounter.create", "encounter", null, api.create(who, contentType ?? "", new Uint8Array(await req.arrayBuffer())), false)
}

const list = (req: Request): Response => {
  const who = api.authenticate(req.headers.get("authorization"))
  if ("kind" in who) return send(who)
  const { searchParams } = new URL(req.url)
  return sendAudited(req, who, "encounter.list", "encounter", null, api.list(who.workspaceId, searchParams.get("limit"), searchParams.get("page_token")))
}

const getEncounter = (req: Bun.BunRequest<"/api/encounters/:id">): Response => {
  const who = api.authenticate(req.headers.get("authorization"))
  if ("kind" in who) return send(who)
  return sendAudited(req, who, "encounter.read", "encounter", req.params.id, api.one(who.workspaceId, req.params.id))
}

const baseUrl = (): string => `http://127.0.0.1:${server.port ?? port}`

const compatList = (req: Request): Response => {
  const who = api.authenticate(req.headers.get("authorization"))
  if ("kind" in who) return send(who)
  const { searchParams } = new URL(req.url)
  return sendAudited(req, who, "encounter.list", "encounter", null, api.compatList(who.workspaceId, searchParams.get("limit"), searchParams.get("page_token"), baseUrl()))
}

const compatOne = (req: Bun.BunRequest<"/api/encounters/compat-version/:id">): Response => {
  const who = api.authenticate(req.headers.get("authorization"))
  if ("kind" in who) return send(who)
  return sendAudited(req, who, "encounter.read", "encounter", req.params.id, api.compatOne(who.workspaceId, req.params.id, baseUrl()))
}

const changeStatus = async (req: Bun.BunRequest<"/api/claims/:id/status">): Promise<Response> => {
  const who = api.authenticate(req.headers.get("authorization"))
  if ("kind" in who) return send(who)
  const contentType = req.headers.get("content-type")
  if (!isJsonType(contentType)) {
    const detail = `Expected Content-Type application/json, received ${contentType ?? "none"}`
    return send(shared.problem(415, "unsupported_media_type", "Unsupported media type", detail))
  }
  return sendAudited(req, who, "claim.status", "claim", req.params.id, api.changeStatus(who, req.params.id, new Uint8Array(await req.arrayBuffer())), false)
}

const events = (req: Request): Response => {
  const who = api.authenticate(req.headers.get("authorization"))
  if ("kind" in who) return send(who)
  const { searchParams } = new URL(req.url)
  return sendAudited(req, who, "event.list", "event", null, api.events(who.workspaceId, searchParams.get("limit"), searchParams.get("page_token")))
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  maxRequestBodySize: 1024 * 1024,
  routes: {
    "/api/encounters": { GET: list, POST: create },
    "/api/encounters/compat-version": { GET: compatList },
    "/api/encounters/compat-version/events": { GET: events },
    "/api/encounters/compat-version/:id": { GET: compatOne },
    "/api/encounters/:id": { GET: getEncounter },
    "/api/claims/:id/status": { POST: changeStatus }
  },
  fetch: () => send(shared.notFound("No such route")),
  error: () => send(shared.internalError())
})

shared.announce(server.port ?? port, api.apiKey, synchronous)
shared.exitOnSigterm(async () => {
  await server.stop()
  db.close()
})
