/**
 * Reference server for the benchmark: the five benchmarked routes of encounterd written on Fastify
 * and better-sqlite3 under Node, with prepared statements and a hand-written validator.
 *
 *   node bench/reference/fastify-server.mjs --port 0 --db /tmp/ref.sqlite [--synchronous FULL|NORMAL]
 *
 * Prints one JSON line (`listening`, with the URL and a fresh API key) and serves until SIGTERM.
 */
import { createHash, randomBytes, randomInt, randomUUID } from "node:crypto"
import { mkdirSync, readFileSync } from "node:fs"
import { dirname } from "node:path"
import { parseArgs } from "node:util"
import Database from "better-sqlite3"
import Fastify from "fastify"

// ---- command line -----------------------------------------------------------------------------

const { values: flags } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    db: { type: "string" },
    synchronous: { type: "string", default: "NORMAL" }
  }
})
const port = Number(flags.port)
const dbPath = flags.db
const synchronous = flags.synchronous.toUpperCase()
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("--port must be an integer from 0 to 65535")
if (dbPath === undefined || dbPath === "") throw new Error("--db is required")
if (synchronous !== "FULL" && synchronous !== "NORMAL") throw new Error("--synchronous must be FULL or NORMAL")

// ---- ids --------------------------------------------------------------------------------------

/** A UUIDv7: 48-bit millisecond time, version and variant bits, the rest random. */
const uuidv7 = () => {
  const b = randomBytes(16)
  b.writeUIntBE(Date.now(), 0, 6)
  b[6] = (b[6] & 0x0f) | 0x70
  b[8] = (b[8] & 0x3f) | 0x80
  const h = b.toString("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

const now = () => new Date().toISOString()
const sha256 = (s) => createHash("sha256").update(s).digest("hex")

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const newKey = () => {
  let key = "eik_"
  while (key.length < 44) {
    for (const byte of randomBytes(48)) if (byte < 248 && key.length < 44) key += BASE62[byte % 62]
  }
  return key
}

const PCN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
const newPcn = () => {
  let s = ""
  for (let i = 0; i < 12; i++) s += PCN_ALPHABET[randomInt(PCN_ALPHABET.length)]
  return s
}

// ---- database ---------------------------------------------------------------------------------

if (dbPath !== ":memory:") mkdirSync(dirname(dbPath), { recursive: true })
const db = new Database(dbPath)
db.pragma("journal_mode = WAL")
db.pragma(`synchronous = ${synchronous}`)
db.pragma("busy_timeout = 5000")
db.pragma("foreign_keys = ON")
db.exec(readFileSync(new URL("./schema.sql", import.meta.url), "utf8"))

const apiKey = newKey()
{
  const at = now()
  db.prepare(
    "INSERT INTO workspaces (id, slug, name, created_at) VALUES (?, 'default', 'Default workspace', ?) ON CONFLICT (slug) DO NOTHING"
  ).run(uuidv7(), at)
  const ws = db.prepare("SELECT id FROM workspaces WHERE slug = 'default'").get()
  db.prepare("INSERT INTO api_keys (id, workspace_id, hash, prefix, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
    uuidv7(),
    ws.id,
    sha256(apiKey),
    apiKey.slice(0, 10),
    JSON.stringify(["encounters"]),
    at
  )
}

const findKey = db.prepare(
  `SELECT k.id AS key_id, k.workspace_id, k.scopes, k.revoked_at
   FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = ?`
)
const insertRaw = db.prepare(
  "INSERT INTO raw_requests (id, workspace_id, key_id, received_at, content_type, body) VALUES (?, ?, ?, ?, ?, ?)"
)
const setRawOutcome = db.prepare("UPDATE raw_requests SET outcome = ?, result = ? WHERE id = ?")
const findByExternalId = db.prepare("SELECT id FROM encounters WHERE workspace_id = ? AND external_id = ?")
const insertEncounter = db.prepare(
  `INSERT INTO encounters (id, workspace_id, external_id, created_at, source, payload, latest_claim_id,
     latest_claim_status, initial_claim_status, initial_patient_control_number, last_event_at)
   VALUES (?, ?, ?, ?, 'api', ?, ?, ?, ?, ?, ?)
   ON CONFLICT (workspace_id, external_id) DO NOTHING`
)
const insertClaim = db.prepare(
  `INSERT INTO claims (id, workspace_id, encounter_id, created_at, status, status_changed_at, patient_control_number)
   VALUES (?, ?, ?, ?, ?, ?, ?)`
)
const insertEvent = db.prepare(
  "INSERT INTO events (id, workspace_id, event_type, created_at, timestamp, payload) VALUES (?, ?, ?, ?, ?, ?)"
)
const ENCOUNTER_SELECT = `SELECT e.id, e.external_id, e.created_at, e.source, e.payload, e.initial_claim_status,
    e.initial_patient_control_number, e.last_event_at, c.id AS c_id, c.created_at AS c_created_at,
    c.status AS c_status, c.status_changed_at AS c_status_changed_at, c.patient_control_number AS c_patient_control_number
  FROM encounters e JOIN claims c ON c.id = e.latest_claim_id`
const listFirst = db.prepare(`${ENCOUNTER_SELECT} WHERE e.workspace_id = ? ORDER BY e.created_at DESC, e.id DESC LIMIT ?`)
const listAfter = db.prepare(
  `${ENCOUNTER_SELECT} WHERE e.workspace_id = ? AND (e.created_at, e.id) < (?, ?) ORDER BY e.created_at DESC, e.id DESC LIMIT ?`
)
const getOne = db.prepare(`${ENCOUNTER_SELECT} WHERE e.id = ? AND e.workspace_id = ?`)
const eventsFirst = db.prepare(
  "SELECT seq, id, event_type, created_at, timestamp, payload FROM events WHERE workspace_id = ? ORDER BY seq ASC LIMIT ?"
)
const eventsAfter = db.prepare(
  "SELECT seq, id, event_type, created_at, timestamp, payload FROM events WHERE workspace_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?"
)

/** Encounter, claim, Created event and the raw request's outcome in one transaction; a known external_id answers the existing id. */
const createEncounter = db.transaction((n) => {
  const at = now()
  const id = uuidv7()
  const claimId = uuidv7()
  const pcn = newPcn()
  const inserted = insertEncounter.run(id, n.workspaceId, n.externalId, at, n.payload, claimId, n.status, n.status, pcn, at)
  if (inserted.changes === 0) {
    const existing = findByExternalId.get(n.workspaceId, n.externalId)
    if (existing === undefined) throw new Error("encounter conflict without a row")
    setRawOutcome.run("duplicate", JSON.stringify({ outcome: "duplicate", encounter_id: existing.id }), n.rawId)
    return { id: existing.id, duplicate: true }
  }
  insertClaim.run(claimId, n.workspaceId, id, at, n.status, at, pcn)
  const event = { encounter_id: id, external_id: n.externalId, claim_id: claimId, status: n.status }
  insertEvent.run(uuidv7(), n.workspaceId, "ExternalApi.Encounter.Created", at, at, JSON.stringify(event))
  setRawOutcome.run("accepted", JSON.stringify({ outcome: "accepted", encounter_id: id }), n.rawId)
  return { id, duplicate: false }
})

// ---- validation -------------------------------------------------------------------------------

const isObject = (u) => typeof u === "object" && u !== null && !Array.isArray(u)
const isAbsent = (u) => u === undefined || u === null
const isNonEmpty = (u) => typeof u === "string" && u.trim() !== ""

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const isDate = (u) => {
  if (typeof u !== "string") return false
  const m = DATE.exec(u)
  if (m === null) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(Date.UTC(y, mo - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}
const isNpi = (u) => {
  if (typeof u !== "string" || !/^\d{10}$/.test(u)) return false
  const digits = `80840${u.slice(0, 9)}`
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 0) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return (10 - (sum % 10)) % 10 === Number(u[9])
}
const DECIMAL = /^\d{1,9}(\.\d{1,3})?$/
const isQuantity = (u) =>
  (typeof u === "number" && Number.isFinite(u) && u > 0) || (typeof u === "string" && DECIMAL.test(u) && Number(u) > 0)

const GENDERS = new Set(["male", "female", "other", "not_given", "unknown"])
const BILLABLE = new Set(["BILLABLE", "NOT_BILLABLE"])
const RESPONSIBLE = new Set(["INSURANCE_PAY", "SELF_PAY", "UNKNOWN"])
const DIAGNOSIS_TYPES = new Set(["ABK", "ABF", "ABJ", "APR", "BK", "BF", "BJ", "PR", "DR", "LOI"])
const UNITS = new Set(["UN", "MJ"])

/** Checks the create payload and answers every problem found (an empty list: valid). */
const validate = (p) => {
  if (!isObject(p)) return [{ path: "$", message: "must be a JSON object" }]
  const issues = []
  const bad = (path, message) => issues.push({ path, message })
  const str = (o, key, at) => {
    if (!isNonEmpty(o[key])) bad(`${at}${key}`, "must be a non-empty string")
  }
  const bool = (key) => {
    if (typeof p[key] !== "boolean") bad(key, "must be true or false")
  }
  const oneOf = (key, allowed) => {
    const v = p[key]
    if (typeof v !== "string" || !allowed.has(v)) bad(key, `must be one of ${[...allowed].join(", ")}`)
  }
  const address = (a, at, plusFour) => {
    if (!isObject(a)) return bad(at, "must be an object")
    str(a, "address1", `${at}.`)
    str(a, "city", `${at}.`)
    if (typeof a.state !== "string" || !/^[A-Z]{2}$/.test(a.state)) bad(`${at}.state`, "must be a two-letter state code")
    if (typeof a.zip_code !== "string" || !/^\d{5}$/.test(a.zip_code)) bad(`${at}.zip_code`, "must be 5 digits")
    const z4 = a.zip_plus_four_code
    if (plusFour || !isAbsent(z4)) {
      if (typeof z4 !== "string" || !/^\d{4}$/.test(z4)) bad(`${at}.zip_plus_four_code`, "must be 4 digits")
    }
  }

  if (!isNonEmpty(p.external_id)) bad("external_id", "must be a non-empty string")
  else if (p.external_id.length > 255) bad("external_id", "must be at most 255 characters")
  bool("patient_authorized_release")
  bool("benefits_assigned_to_provider")
  bool("provider_accepts_assignment")
  oneOf("billable_status", BILLABLE)
  oneOf("responsible_party", RESPONSIBLE)
  if (typeof p.place_of_service_code !== "string" || !/^\d{2}$/.test(p.place_of_service_code)) {
    bad("place_of_service_code", "must be a two-digit place of service code")
  }
  if (!isAbsent(p.date_of_service) && !isDate(p.date_of_service)) bad("date_of_service", "must be a calendar date YYYY-MM-DD")

  const patient = p.patient
  if (!isObject(patient)) bad("patient", "must be an object")
  else {
    for (const k of ["external_id", "first_name", "last_name"]) str(patient, k, "patient.")
    if (typeof patient.gender !== "string" || !GENDERS.has(patient.gender)) bad("patient.gender", `must be one of ${[...GENDERS].join(", ")}`)
    if (!isDate(patient.date_of_birth)) bad("patient.date_of_birth", "must be a calendar date YYYY-MM-DD")
    address(patient.address, "patient.address", false)
  }

  const billing = p.billing_provider
  if (!isObject(billing)) bad("billing_provider", "must be an object")
  else {
    if (!isNpi(billing.npi)) bad("billing_provider.npi", "must be a 10-digit NPI with a valid check digit")
    if (typeof billing.tax_id !== "string" || !/^\d{9}$/.test(billing.tax_id)) bad("billing_provider.tax_id", "must be 9 digits")
    address(billing.address, "billing_provider.address", true)
  }
  const rendering = p.rendering_provider
  if (!isObject(rendering)) bad("rendering_provider", "must be an object")
  else if (!isNpi(rendering.npi)) bad("rendering_provider.npi", "must be a 10-digit NPI with a valid check digit")

  if (p.responsible_party === "INSURANCE_PAY") {
    const sub = p.subscriber_primary
    if (!isObject(sub)) bad("subscriber_primary", "is required when responsible_party is INSURANCE_PAY")
    else if (!isObject(sub.insurance_card)) bad("subscriber_primary.insurance_card", "must be an object")
    else for (const k of ["member_id", "payer_name", "payer_id"]) str(sub.insurance_card, k, "subscriber_primary.insurance_card.")
  }

  const diagnoses = p.diagnoses
  const diagnosisCount = Array.isArray(diagnoses) ? diagnoses.length : 0
  if (!Array.isArray(diagnoses) || diagnoses.length === 0) bad("diagnoses", "must be a non-empty array")
  else if (diagnoses.length > 50) bad("diagnoses", "must have at most 50 entries")
  else {
    diagnoses.forEach((d, i) => {
      if (!isObject(d)) return bad(`diagnoses[${i}]`, "must be an object")
      if (typeof d.code_type !== "string" || !DIAGNOSIS_TYPES.has(d.code_type)) bad(`diagnoses[${i}].code_type`, "must be a diagnosis code type")
      str(d, "code", `diagnoses[${i}].`)
    })
  }

  const lines = p.service_lines
  if (!Array.isArray(lines) || lines.length === 0) bad("service_lines", "must be a non-empty array")
  else if (lines.length > 200) bad("service_lines", "must have at most 200 entries")
  else {
    lines.forEach((l, i) => {
      const at = `service_lines[${i}]`
      if (!isObject(l)) return bad(at, "must be an object")
      str(l, "procedure_code", `${at}.`)
      if (!isQuantity(l.quantity)) bad(`${at}.quantity`, "must be a positive number or decimal string with at most 3 decimals")
      if (typeof l.units !== "string" || !UNITS.has(l.units)) bad(`${at}.units`, "must be one of UN, MJ")
      const cents = l.charge_amount_cents
      if (typeof cents !== "number" || !Number.isSafeInteger(cents) || cents < 0) {
        bad(`${at}.charge_amount_cents`, "must be a non-negative integer (cents)")
      }
      if (!isAbsent(l.date_of_service) && !isDate(l.date_of_service)) bad(`${at}.date_of_service`, "must be a calendar date YYYY-MM-DD")
      const pointers = l.diagnosis_pointers
      if (!Array.isArray(pointers) || pointers.length < 1 || pointers.length > 4) {
        bad(`${at}.diagnosis_pointers`, "must be an array of 1 to 4 diagnosis indexes")
      } else {
        const seen = new Set()
        pointers.forEach((ptr, j) => {
          if (typeof ptr !== "number" || !Number.isInteger(ptr) || ptr < 0 || ptr >= diagnosisCount) {
            bad(`${at}.diagnosis_pointers[${j}]`, `must be a zero-based index into diagnoses (0 to ${diagnosisCount - 1})`)
          } else if (seen.has(ptr)) bad(`${at}.diagnosis_pointers[${j}]`, "repeats an earlier pointer")
          else seen.add(ptr)
        })
      }
    })
  }
  return issues
}

// ---- views ------------------------------------------------------------------------------------

/** The normalized encounter with its latest claim, field for field as encounterd answers it. */
const toEncounter = (r) => {
  const p = JSON.parse(r.payload)
  const lines = Array.isArray(p.service_lines) ? p.service_lines : []
  const subscriber = isObject(p.subscriber_primary) ? p.subscriber_primary : undefined
  const card = subscriber !== undefined && isObject(subscriber.insurance_card) ? subscriber.insurance_card : undefined
  return {
    id: r.id,
    external_id: r.external_id,
    created_at: r.created_at,
    source: r.source,
    metadata: p.metadata ?? null,
    schema_instances: p.schema_instances ?? [],
    patient_id: null,
    service_facility_id: null,
    latest_claim_id: r.c_id,
    initial_claim_status: r.initial_claim_status,
    initial_patient_control_number: r.initial_patient_control_number,
    last_event_at: r.last_event_at,
    latest_claim: {
      id: r.c_id,
      created_at: r.c_created_at,
      status: r.c_status,
      status_changed_at: r.c_status_changed_at,
      last_checked_at: null,
      processing_started_at: null,
      processing_ended_at: null,
      patient_control_number: r.c_patient_control_number,
      patient: p.patient,
      billing_provider: p.billing_provider,
      rendering_provider: p.rendering_provider,
      diagnoses: p.diagnoses,
      service_lines: lines.map((l) => ({ ...l, quantity: Number(l.quantity) })),
      service_facility: p.service_facility ?? null,
      subscriber_primary: subscriber ?? null,
      payer_id: card?.payer_id ?? null,
      payer_name: card?.payer_name ?? null,
      patient_authorized_release: p.patient_authorized_release,
      benefits_assigned_to_provider: p.benefits_assigned_to_provider,
      provider_accepts_assignment: p.provider_accepts_assignment,
      billable_status: p.billable_status,
      responsible_party: p.responsible_party,
      place_of_service_code: p.place_of_service_code,
      date_of_service: p.date_of_service ?? lines[0]?.date_of_service ?? null,
      resubmission_original_claim_id: null,
      resubmission_action: null,
      original_payer_claim_control_number: null,
      clearinghouse_transaction_ids: []
    }
  }
}

const toEvent = (r) => ({
  id: r.id,
  created_at: r.created_at,
  timestamp: r.timestamp,
  event_type: r.event_type,
  schema_version: "service.compat-version.v1",
  payload: JSON.parse(r.payload)
})

const encodeToken = (key) => Buffer.from(JSON.stringify(key)).toString("base64url")
const decodeToken = (token) => {
  try {
    const key = JSON.parse(Buffer.from(token, "base64url").toString("utf8"))
    return Array.isArray(key) ? key : undefined
  } catch {
    return undefined
  }
}

// ---- HTTP -------------------------------------------------------------------------------------

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, genReqId: () => randomUUID() })

const problem = (reply, status, code, title, detail, errors) => {
  if (status === 401) reply.header("www-authenticate", 'Bearer realm="encounterd"')
  return reply
    .code(status)
    .header("x-request-id", reply.request.id)
    .type("application/problem+json")
    .send({
      type: `https://encounterd.dev/problems/${code}`,
      title,
      status,
      detail,
      code,
      ...(errors !== undefined ? { errors } : {}),
      request_id: reply.request.id
    })
}
const ok = (reply, status, body) => reply.code(status).header("x-request-id", reply.request.id).send(body)
const badParameter = (reply, path, message) =>
  problem(reply, 400, "invalid_parameter", "Invalid parameter", `${path}: ${message}`, [{ path, message }])

const BEARER = /^Bearer\s+(\S+)\s*$/i
const KEY_SHAPE = /^eik_[0-9A-Za-z]{32,128}$/

app.decorateRequest("principal", null)

/** onRequest hook of every API route: the presented key's workspace, else 401. */
const authenticate = (request, reply, done) => {
  const presented = BEARER.exec(request.headers.authorization ?? "")?.[1]
  if (presented === undefined || !KEY_SHAPE.test(presented)) {
    problem(reply, 401, "unauthorized", "Unauthorized", "An API key is required")
    return
  }
  const row = findKey.get(sha256(presented))
  if (row === undefined || row.revoked_at !== null || !JSON.parse(row.scopes).includes("encounters")) {
    problem(reply, 401, "unauthorized", "Unauthorized", "The API key is not valid")
    return
  }
  request.principal = { workspaceId: row.workspace_id, keyId: row.key_id }
  done()
}

/** `limit`: 1 to 100, default 100; undefined when invalid. */
const readLimit = (query) => {
  const raw = query.limit
  if (raw === undefined) return 100
  const n = Number(raw)
  return typeof raw === "string" && raw.trim() !== "" && Number.isInteger(n) && n >= 1 && n <= 100 ? n : undefined
}

// The create route stores the body exactly as received: JSON bodies reach it as bytes, parsed there.
app.removeAllContentTypeParsers()
app.addContentTypeParser(["application/json", /^application\/[^;]+\+json/i], { parseAs: "buffer" }, (_req, body, done) =>
  done(null, body)
)

const utf8 = new TextDecoder("utf-8", { fatal: true })

app.post("/api/encounters", { onRequest: authenticate }, (request, reply) => {
  const who = request.principal
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
  const rawId = uuidv7()
  insertRaw.run(rawId, who.workspaceId, who.keyId, now(), request.headers["content-type"] ?? "", body)
  let parsed
  try {
    parsed = JSON.parse(utf8.decode(body))
  } catch (e) {
    const detail = e instanceof Error ? e.message : "unreadable body"
    setRawOutcome.run("rejected", JSON.stringify({ outcome: "rejected", errors: [{ path: "$", message: detail }] }), rawId)
    return problem(reply, 400, "invalid_json", "Malformed JSON", detail)
  }
  const issues = validate(parsed)
  if (issues.length > 0) {
    setRawOutcome.run("rejected", JSON.stringify({ outcome: "rejected", errors: issues }), rawId)
    return problem(reply, 422, "validation_failed", "Validation failed", `${issues.length} problem(s) in the request body`, issues)
  }
  const known = findByExternalId.get(who.workspaceId, parsed.external_id)
  if (known !== undefined) {
    setRawOutcome.run("duplicate", JSON.stringify({ outcome: "duplicate", encounter_id: known.id }), rawId)
    return ok(reply, 200, { encounter_id: known.id, encounterId: known.id, duplicate: true })
  }
  const result = createEncounter({
    workspaceId: who.workspaceId,
    rawId,
    externalId: parsed.external_id,
    payload: JSON.stringify(parsed),
    status: parsed.billable_status === "NOT_BILLABLE" ? "not_billable" : "draft"
  })
  return result.duplicate
    ? ok(reply, 200, { encounter_id: result.id, encounterId: result.id, duplicate: true })
    : ok(reply, 202, { encounter_id: result.id, encounterId: result.id })
})

app.get("/api/encounters", { onRequest: authenticate }, (request, reply) => {
  const ws = request.principal.workspaceId
  const limit = readLimit(request.query)
  if (limit === undefined) return badParameter(reply, "limit", "must be an integer from 1 to 100")
  const token = request.query.page_token
  let rows
  if (token === undefined) rows = listFirst.all(ws, limit + 1)
  else {
    const [createdAt, id] = (typeof token === "string" ? decodeToken(token) : undefined) ?? []
    if (typeof createdAt !== "string" || typeof id !== "string") return badParameter(reply, "page_token", "is not a valid page token")
    rows = listAfter.all(ws, createdAt, id, limit + 1)
  }
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return ok(reply, 200, {
    items: page.map(toEncounter),
    next_page_token: rows.length > limit && last !== undefined ? encodeToken([last.created_at, last.id]) : null,
    prev_page_token: null
  })
})

app.get("/api/encounters/compat-version/events", { onRequest: authenticate }, (request, reply) => {
  const ws = request.principal.workspaceId
  const limit = readLimit(request.query)
  if (limit === undefined) return badParameter(reply, "limit", "must be an integer from 1 to 100")
  const token = request.query.page_token
  let rows
  if (token === undefined) rows = eventsFirst.all(ws, limit + 1)
  else {
    const [seq] = (typeof token === "string" ? decodeToken(token) : undefined) ?? []
    if (typeof seq !== "number") return badParameter(reply, "page_token", "is not a valid page token")
    rows = eventsAfter.all(ws, seq, limit + 1)
  }
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return ok(reply, 200, {
    items: page.map(toEvent),
    next_page_token: rows.length > limit && last !== undefined ? encodeToken([last.seq]) : null,
    prev_page_token: null
  })
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

app.get("/api/encounters/:id", { onRequest: authenticate }, (request, reply) => {
  const id = request.params.id
  const row = UUID.test(id) ? getOne.get(id, request.principal.workspaceId) : undefined
  return row === undefined
    ? problem(reply, 404, "not_found", "Not found", "No such encounter in this workspace")
    : ok(reply, 200, toEncounter(row))
})

app.setNotFoundHandler((_request, reply) => problem(reply, 404, "not_found", "Not found", "No such route"))

app.setErrorHandler((error, _request, reply) => {
  const status = typeof error.statusCode === "number" ? error.statusCode : 500
  if (status === 413) return problem(reply, 413, "payload_too_large", "Payload too large", "The body exceeds 1048576 bytes")
  if (status === 415) {
    return problem(reply, 415, "unsupported_media_type", "Unsupported media type", "Expected Content-Type application/json")
  }
  if (status >= 400 && status < 500) return problem(reply, status, "bad_request", "Bad request", error.message)
  return problem(reply, 500, "internal", "Internal error", "The request failed on the server")
})

await app.listen({ host: "127.0.0.1", port })
const address = app.server.address()
const bound = typeof address === "object" && address !== null ? address.port : port
process.stdout.write(`${JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${bound}`, key: apiKey, pid: process.pid, synchronous })}\n`)

let stopping = false
process.on("SIGTERM", () => {
  if (stopping) return
  stopping = true
  app.close().then(() => {
    db.close()
    process.exit(0)
  })
})
