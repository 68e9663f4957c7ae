/**
 * Reference server for the benchmark: the benchmarked routes of encounterd written on Fastify
 * and better-sqlite3 under Node, with prepared statements and a hand-written validator (shared.mjs,
 * in common with the Bun server).
 *
 *   node bench/reference/fastify-server.mjs --port 0 --db /tmp/ref.sqlite [--synchronous FULL|NORMAL]
 *
 * Prints one JSON line (`listening`, with the URL and a fresh API key) and serves until SIGTERM.
 */
import { randomBytes, randomUUID } from "node:crypto"
import Database from "better-sqlite3"
import Fastify from "fastify"
import * as shared from "./shared.mjs"

const { port, dbPath, synchronous, audit } = shared.readFlags()

/** A UUIDv7: 48-bit millisecond time, version and variant bits, the rest random. */
const uuidv7 = () => {
  const b = randomBytes(16)
  b.writeUIntBE(Date.now(), 0, 6)
  b[6] = (b[6] & 0x0f) | 0x70
  b[8] = (b[8] & 0x3f) | 0x80
  const h = b.toString("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

const db = new Database(dbPath)
for (const pragma of shared.pragmas(synchronous)) db.pragma(pragma)
db.exec(shared.SCHEMA)

const api = shared.referenceApi({ prepare: (sql) => db.prepare(sql), transaction: (fn) => db.transaction(fn), newId: uuidv7, audit })

// ---- HTTP -------------------------------------------------------------------------------------

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, genReqId: () => randomUUID() })

const send = (reply, answer) => {
  const requestId = reply.request.id
  return answer.kind === "json"
    ? reply.code(answer.status).header("x-request-id", requestId).send(answer.body)
    : reply.code(answer.status).headers(shared.problemHeaders(answer.status, requestId)).send(shared.problemBody(answer, requestId))
}

/** Answers, after appending the request's audit row (`shared.referenceApi`'s `audit`). */
const sendAudited = (reply, action, type, id, answer, read = true) => {
  const request = reply.request
  api.audit(request.principal, action, type, id, request.ip ?? null, request.id, answer.status, read)
  return send(reply, answer)
}

app.decorateRequest("principal", null)

/** onRequest hook of every API route: the presented key's workspace, else 401. */
const authenticate = (request, reply, done) => {
  const who = api.authenticate(request.headers.authorization)
  if ("kind" in who) {
    send(reply, who)
    return
  }
  request.principal = who
  done()
}

// The create route stores the body exactly as received: JSON bodies reach it as bytes, parsed there.
app.removeAllContentTypeParsers()
app.addContentTypeParser(["application/json", /^application\/[^;]+\+json/i], { parseAs: "buffer" }, (_req, body, done) =>
  done(null, body)
)

app.post("/api/encounters", { onRequest: authenticate }, (request, reply) => {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
  return sendAudited(reply, "encounter.create", "encounter", null, api.create(request.principal, request.headers["content-type"] ?? "", body), false)
})

app.get("/api/encounters", { onRequest: authenticate }, (request, reply) =>
  sendAudited(reply, "encounter.list", "encounter", null, api.list(request.principal.workspaceId, request.query.limit, request.query.page_token))
)

/** Known once listening; routes run only after that. */
let origin = ""
const baseUrl = () => origin

app.get("/api/encounters/compat-version", { onRequest: authenticate }, (request, reply) =>
  sendAudited(reply, "encounter.list", "encounter", null, api.compatList(request.principal.workspaceId, request.query.limit, request.query.page_token, baseUrl()))
)

app.get("/api/encounters/compat-version/:id", { onRequest: authenticate }, (request, reply) =>
  sendAudited(reply, "encounter.read", "encounter", request.params.id, api.compatOne(request.principal.workspaceId, request.params.id, baseUrl()))
)

app.post("/api/claims/:id/status", { onRequest: authenticate }, (request, reply) => {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
  return sendAudited(reply, "claim.status", "claim", request.params.id, api.changeStatus(request.principal, request.params.id, body), false)
})

app.get("/api/encounters/compat-version/events", { onRequest: authenticate }, (request, reply) =>
  sendAudited(reply, "event.list", "event", null, api.events(request.principal.workspaceId, request.query.limit, request.query.page_token))
)

app.get("/api/encounters/:id", { onRequest: authenticate }, (request, reply) =>
  sendAudited(reply, "encounter.read", "encounter", request.params.id, api.one(request.principal.workspaceId, request.params.id))
)

app.setNotFoundHandler((_request, reply) => send(reply, shared.notFound("No such route")))

app.setErrorHandler((error, _request, reply) => {
  const status = typeof error.statusCode === "number" ? error.statusCode : 500
  if (status === 413) return send(reply, shared.problem(413, "payload_too_large", "Payload too large", "The body exceeds 1048576 bytes"))
  if (status === 415) {
    return send(reply, shared.problem(415, "unsupported_media_type", "Unsupported media type", "Expected Content-Type application/json"))
  }
  if (status >= 400 && status < 500) return send(reply, shared.problem(status, "bad_request", "Bad request", error.message))
  return send(reply, shared.internalError())
})

await app.listen({ host: "127.0.0.1", port })
const address = app.server.address()
const boundPort = typeof address === "object" && address !== null ? address.port : port
origin = `http://127.0.0.1:${boundPort}`
shared.announce(boundPort, api.apiKey, synchronous)
shared.exitOnSigterm(async () => {
  await app.close()
  db.close()
})
