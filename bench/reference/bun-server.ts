/**
 * Reference server for the benchmark: the five benchmarked routes of encounterd written directly on
 * Bun.serve and bun:sqlite, with prepared statements and a hand-written validator.
 *
 *   bun bench/reference/bun-server.ts --port 0 --db /tmp/ref.sqlite [--synchronous FULL|NORMAL]
 *
 * Prints one JSON line (`listening`, with the URL and a fresh API key) and serves until SIGTERM.
 */
import { Database } from "bun:sqlite"
import { createHash, randomBytes, randomInt } from "node:crypto"
import { mkdirSync, readFileSync } from "node:fs"
import { dirname } from "node:path"
import { parseArgs } from "node:util"

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

// ---- database ---------------------------------------------------------------------------------

if (dbPath !== ":memory:") mkdirSync(dirname(dbPath), { recursive: true })
const db = new Database(dbPath, { create: true })
db.exec("PRAGMA journal_mode = WAL")
db.exec(`PRAGMA synchronous = ${synchronous}`)
db.exec("PRAGMA busy_timeout = 5000")
db.exec("PRAGMA foreign_keys = ON")
db.exec(readFileSync(new URL("./schema.sql", import.meta.url), "utf8"))

const now = (): string => new Date().toISOString()
const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex")

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const newKey = (): string => {
  let key = "eik_"
  while (key.length < 44) {
    for (const byte of randomBytes(48)) if (byte < 248 && key.length < 44) key += BASE62[byte % 62]
  }
  return key
}

const PCN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
const newPcn = (): string => {
  let s = ""
  for (let i = 0; i < 12; i++) s += PCN_ALPHABET[randomInt(PCN_ALPHABET.length)]
  return s
}

const apiKey = newKey()
{
  const at = now()
  db.prepare("INSERT INTO workspaces (id, slug, name, created_at) VALUES (?, 'default', 'Default workspace', ?) ON CONFLICT (slug) DO NOTHING").run(
    Bun.randomUUIDv7(),
    at
  )
  const ws = db.prepare<{ id: string }, []>("SELECT id FROM workspaces WHERE slug = 'default'").get()
  if (ws === null) throw new Error("the default workspace is missing")
  db.prepare("INSERT INTO api_keys (id, workspace_id, hash, prefix, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
    Bun.randomUUIDv7(),
    ws.id,
    sha256(apiKey),
    apiKey.slice(0, 10),
    JSON.stringify(["encounters"]),
    at
  )
}

interface KeyRow {
  readonly key_id: string
  readonly workspace_id: string
  readonly scopes: string
  readonly revoked_at: string | null
}
interface EncounterRow {
  readonly id: string
  readonly external_id: string
  readonly created_at: string
  readonly source: string
  readonly payload: string
  readonly initial_claim_status: string
  readonly initial_patient_control_number: string
  readonly last_event_at: string
  readonly c_id: string
  readonly c_created_at: string
  readonly c_status: string
  readonly c_status_changed_at: string
  readonly c_patient_control_number: string
}
interface EventRow {
  readonly seq: number
  readonly id: string
  readonly event_type: string
  readonly created_at: string
  readonly timestamp: string
  readonly payload: string
}

const findKey = db.prepare<KeyRow, [string]>(
  `SELECT k.id AS key_id, k.workspace_id, k.scopes, k.revoked_at
   FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = ?`
)
const insertRaw = db.prepare<null, [string, string, string, string, string, Uint8Array]>(
  "INSERT INTO raw_requests (id, workspace_id, key_id, received_at, content_type, body) VALUES (?, ?, ?, ?, ?, ?)"
)
const setRawOutcome = db.prepare<null, [string, string, string]>("UPDATE raw_requests SET outcome = ?, result = ? WHERE id = ?")
const findByExternalId = db.prepare<{ id: string }, [string, string]>(
  "SELECT id FROM encounters WHERE workspace_id = ? AND external_id = ?"
)
const insertEncounter = db.prepare<null, [string, string, string, string, string, string, string, string, string, string]>(
  `INSERT INTO encounters (id, workspace_id, external_id, created_at, source, payload, latest_claim_id,
     latest_claim_status, initial_claim_status, initial_patient_control_number, last_event_at)
   VALUES (?, ?, ?, ?, 'api', ?, ?, ?, ?, ?, ?)
   ON CONFLICT (workspace_id, external_id) DO NOTHING`
)
const insertClaim = db.prepare<null, [string, string, string, string, string, string, string]>(
  `INSERT INTO claims (id, workspace_id, encounter_id, created_at, status, status_changed_at, patient_control_number)
   VALUES (?, ?, ?, ?, ?, ?, ?)`
)
const insertEvent = db.prepare<null, [string, string, string, string, string, string]>(
  "INSERT INTO events (id, workspace_id, event_type, created_at, timestamp, payload) VALUES (?, ?, ?, ?, ?, ?)"
)
const ENCOUNTER_SELECT = `SELECT e.id, e.external_id, e.created_at, e.source, e.payload, e.initial_claim_status,
    e.initial_patient_control_number, e.last_event_at, c.id AS c_id, c.created_at AS c_created_at,
    c.status AS c_status, c.status_changed_at AS c_status_changed_at, c.patient_control_number AS c_patient_control_number
  FROM encounters e JOIN claims c ON c.id = e.latest_claim_id`
const listFirst = db.prepare<EncounterRow, [string, number]>(
  `${ENCOUNTER_SELECT} WHERE e.workspace_id = ? ORDER BY e.created_at DESC, e.id DESC LIMIT ?`
)
const listAfter = db.prepare<EncounterRow, [string, string, string, number]>(
  `${ENCOUNTER_SELECT} WHERE e.workspace_id = ? AND (e.created_at, e.id) < (?, ?) ORDER BY e.created_at DESC, e.id DESC LIMIT ?`
)
const getOne = db.prepare<EncounterRow, [string, string]>(`${ENCOUNTER_SELECT} WHERE e.id = ? AND e.workspace_id = ?`)
const eventsFirst = db.prepare<EventRow, [string, number]>(
  "SELECT seq, id, event_type, created_at, timestamp, payload FROM events WHERE workspace_id = ? ORDER BY seq ASC LIMIT ?"
)
const eventsAfter = db.prepare<EventRow, [string, number, number]>(
  "SELECT seq, id, event_type, created_at, timestamp, payload FROM events WHERE workspace_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?"
)

interface NewEncounter {
  readonly workspaceId: string
  readonly rawId: string
  readonly externalId: string
  readonly payload: string
  readonly status: string
}

/** Encounter, claim, Created event and the raw request's outcome in one transaction; a known external_id answers the existing id. */
const createEncounter = db.transaction((n: NewEncounter): { id: string; duplicate: boolean } => {
  const at = now()
  const id = Bun.randomUUIDv7()
  const claimId = Bun.randomUUIDv7()
  const pcn = newPcn()
  const inserted = insertEncounter.run(id, n.workspaceId, n.externalId, at, n.payload, claimId, n.status, n.status, pcn, at)
  if (inserted.changes === 0) {
    const existing = findByExternalId.get(n.workspaceId, n.externalId)
    if (existing === null) throw new Error("encounter conflict without a row")
    setRawOutcome.run("duplicate", JSON.stringify({ outcome: "duplicate", encounter_id: existing.id }), n.rawId)
    return { id: existing.id, duplicate: true }
  }
  insertClaim.run(claimId, n.workspaceId, id, at, n.status, at, pcn)
  const event = { encounter_id: id, external_id: n.externalId, claim_id: claimId, status: n.status }
  insertEvent.run(Bun.randomUUIDv7(), n.workspaceId, "ExternalApi.Encounter.Created", at, at, JSON.stringify(event))
  setRawOutcome.run("accepted", JSON.stringify({ outcome: "accepted", encounter_id: id }), n.rawId)
  return { id, duplicate: false }
})

// ---- validation -------------------------------------------------------------------------------

interface Issue {
  readonly path: string
  readonly message: string
}
type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const isAbsent = (u: unknown): boolean => u === undefined || u === null
const isNonEmpty = (u: unknown): u is string => typeof u === "string" && u.trim() !== ""

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const isDate = (u: unknown): boolean => {
  if (typeof u !== "string") return false
  const m = DATE.exec(u)
  if (m === null) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(Date.UTC(y, mo - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}
const isNpi = (u: unknown): boolean => {
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
const isQuantity = (u: unknown): boolean =>
  (typeof u === "number" && Number.isFinite(u) && u > 0) || (typeof u === "string" && DECIMAL.test(u) && Number(u) > 0)

const GENDERS = new Set(["male", "female", "other", "not_given", "unknown"])
const BILLABLE = new Set(["BILLABLE", "NOT_BILLABLE"])
const RESPONSIBLE = new Set(["INSURANCE_PAY", "SELF_PAY", "UNKNOWN"])
const DIAGNOSIS_TYPES = new Set(["ABK", "ABF", "ABJ", "APR", "BK", "BF", "BJ", "PR", "DR", "LOI"])
const UNITS = new Set(["UN", "MJ"])

/** Checks the create payload and answers every problem found (an empty list: valid). */
const validate = (p: unknown): Array<Issue> => {
  if (!isObject(p)) return [{ path: "$", message: "must be a JSON object" }]
  const issues: Array<Issue> = []
  const bad = (path: string, message: string) => issues.push({ path, message })
  const str = (o: Json, key: string, at: string) => {
    if (!isNonEmpty(o[key])) bad(`${at}${key}`, "must be a non-empty string")
  }
  const bool = (key: string) => {
    if (typeof p[key] !== "boolean") bad(key, "must be true or false")
  }
  const oneOf = (key: string, allowed: ReadonlySet<string>) => {
    const v = p[key]
    if (typeof v !== "string" || !allowed.has(v)) bad(key, `must be one of ${[...allowed].join(", ")}`)
  }
  const address = (a: unknown, at: string, plusFour: boolean) => {
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
    diagnoses.forEach((d: unknown, i) => {
      if (!isObject(d)) return bad(`diagnoses[${i}]`, "must be an object")
      if (typeof d.code_type !== "string" || !DIAGNOSIS_TYPES.has(d.code_type)) bad(`diagnoses[${i}].code_type`, "must be a diagnosis code type")
      str(d, "code", `diagnoses[${i}].`)
    })
  }

  const lines = p.service_lines
  if (!Array.isArray(lines) || lines.length === 0) bad("service_lines", "must be a non-empty array")
  else if (lines.length > 200) bad("service_lines", "must have at most 200 entries")
  else {
    lines.forEach((l: unknown, i) => {
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
        const seen = new Set<number>()
        pointers.forEach((ptr: unknown, j) => {
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
const toEncounter = (r: EncounterRow) => {
  const p = JSON.parse(r.payload) as Json
  const lines = Array.isArray(p.service_lines) ? (p.service_lines as Array<Json>) : []
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

const toEvent = (r: EventRow) => ({
  id: r.id,
  created_at: r.created_at,
  timestamp: r.timestamp,
  event_type: r.event_type,
  schema_version: "service.compat-version.v1",
  payload: JSON.parse(r.payload) as Json
})

const encodeToken = (key: ReadonlyArray<string | number>): string => Buffer.from(JSON.stringify(key)).toString("base64url")
const decodeToken = (token: string): Array<unknown> | undefined => {
  try {
    const key: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"))
    return Array.isArray(key) ? key : undefined
  } catch {
    return undefined
  }
}

// ---- HTTP -------------------------------------------------------------------------------------

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-request-id": crypto.randomUUID() }
  })

const problem = (status: number, code: string, title: string, detail: string, errors?: ReadonlyArray<Issue>): Response => {
  const requestId = crypto.randomUUID()
  const headers: Record<string, string> = { "content-type": "application/problem+json", "x-request-id": requestId }
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="encounterd"'
  const body = {
    type: `https://encounterd.dev/problems/${code}`,
    title,
    status,
    detail,
    code,
    ...(errors !== undefined ? { errors } : {}),
    request_id: requestId
  }
  return new Response(JSON.stringify(body), { status, headers })
}
const notFound = (detail: string) => problem(404, "not_found", "Not found", detail)
const badParameter = (path: string, message: string) =>
  problem(400, "invalid_parameter", "Invalid parameter", `${path}: ${message}`, [{ path, message }])

interface Principal {
  readonly workspaceId: string
  readonly keyId: string
}

const BEARER = /^Bearer\s+(\S+)\s*$/i
const KEY_SHAPE = /^eik_[0-9A-Za-z]{32,128}$/

/** The workspace of the presented key, or the 401 to answer. */
const authenticate = (req: Request): Principal | Response => {
  const presented = BEARER.exec(req.headers.get("authorization") ?? "")?.[1]
  if (presented === undefined || !KEY_SHAPE.test(presented)) return problem(401, "unauthorized", "Unauthorized", "An API key is required")
  const row = findKey.get(sha256(presented))
  if (row === null || row.revoked_at !== null || !(JSON.parse(row.scopes) as Array<string>).includes("encounters")) {
    return problem(401, "unauthorized", "Unauthorized", "The API key is not valid")
  }
  return { workspaceId: row.workspace_id, keyId: row.key_id }
}

/** `limit`: 1 to 100, default 100; undefined when invalid. */
const readLimit = (url: URL): number | undefined => {
  const raw = url.searchParams.get("limit")
  if (raw === null) return 100
  const n = Number(raw)
  return raw.trim() !== "" && Number.isInteger(n) && n >= 1 && n <= 100 ? n : undefined
}

const isJsonType = (value: string | null): boolean => {
  const type = (value ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

const create = async (req: Request): Promise<Response> => {
  const who = authenticate(req)
  if (who instanceof Response) return who
  const contentType = req.headers.get("content-type")
  if (!isJsonType(contentType)) {
    return problem(415, "unsupported_media_type", "Unsupported media type", `Expected Content-Type application/json, received ${contentType ?? "none"}`)
  }
  const body = new Uint8Array(await req.arrayBuffer())
  const rawId = Bun.randomUUIDv7()
  insertRaw.run(rawId, who.workspaceId, who.keyId, now(), contentType ?? "", body)
  let parsed: unknown
  try {
    parsed = JSON.parse(utf8.decode(body))
  } catch (e) {
    const detail = e instanceof Error ? e.message : "unreadable body"
    setRawOutcome.run("rejected", JSON.stringify({ outcome: "rejected", errors: [{ path: "$", message: detail }] }), rawId)
    return problem(400, "invalid_json", "Malformed JSON", detail)
  }
  const issues = validate(parsed)
  if (issues.length > 0 || !isObject(parsed)) {
    setRawOutcome.run("rejected", JSON.stringify({ outcome: "rejected", errors: issues }), rawId)
    return problem(422, "validation_failed", "Validation failed", `${issues.length} problem(s) in the request body`, issues)
  }
  const externalId = String(parsed.external_id)
  const known = findByExternalId.get(who.workspaceId, externalId)
  if (known !== null) {
    setRawOutcome.run("duplicate", JSON.stringify({ outcome: "duplicate", encounter_id: known.id }), rawId)
    return json(200, { encounter_id: known.id, encounterId: known.id, duplicate: true })
  }
  const result = createEncounter({
    workspaceId: who.workspaceId,
    rawId,
    externalId,
    payload: JSON.stringify(parsed),
    status: parsed.billable_status === "NOT_BILLABLE" ? "not_billable" : "draft"
  })
  return result.duplicate
    ? json(200, { encounter_id: result.id, encounterId: result.id, duplicate: true })
    : json(202, { encounter_id: result.id, encounterId: result.id })
}

const list = (req: Request): Response => {
  const who = authenticate(req)
  if (who instanceof Response) return who
  const url = new URL(req.url)
  const limit = readLimit(url)
  if (limit === undefined) return badParameter("limit", "must be an integer from 1 to 100")
  const token = url.searchParams.get("page_token")
  let rows: Array<EncounterRow>
  if (token === null) rows = listFirst.all(who.workspaceId, limit + 1)
  else {
    const key = decodeToken(token)
    const [createdAt, id] = key ?? []
    if (typeof createdAt !== "string" || typeof id !== "string") return badParameter("page_token", "is not a valid page token")
    rows = listAfter.all(who.workspaceId, createdAt, id, limit + 1)
  }
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return json(200, {
    items: page.map(toEncounter),
    next_page_token: rows.length > limit && last !== undefined ? encodeToken([last.created_at, last.id]) : null,
    prev_page_token: null
  })
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const getEncounter = (req: Bun.BunRequest<"/api/encounters/:id">): Response => {
  const who = authenticate(req)
  if (who instanceof Response) return who
  const id = req.params.id
  const row = UUID.test(id) ? getOne.get(id, who.workspaceId) : null
  return row === null ? notFound("No such encounter in this workspace") : json(200, toEncounter(row))
}

const events = (req: Request): Response => {
  const who = authenticate(req)
  if (who instanceof Response) return who
  const url = new URL(req.url)
  const limit = readLimit(url)
  if (limit === undefined) return badParameter("limit", "must be an integer from 1 to 100")
  const token = url.searchParams.get("page_token")
  let rows: Array<EventRow>
  if (token === null) rows = eventsFirst.all(who.workspaceId, limit + 1)
  else {
    const [seq] = decodeToken(token) ?? []
    if (typeof seq !== "number") return badParameter("page_token", "is not a valid page token")
    rows = eventsAfter.all(who.workspaceId, seq, limit + 1)
  }
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return json(200, {
    items: page.map(toEvent),
    next_page_token: rows.length > limit && last !== undefined ? encodeToken([last.seq]) : null,
    prev_page_token: null
  })
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  maxRequestBodySize: 1024 * 1024,
  routes: {
    "/api/encounters": { GET: list, POST: create },
    "/api/encounters/compat-version/events": { GET: events },
    "/api/encounters/:id": { GET: getEncounter }
  },
  fetch: () => notFound("No such route"),
  error: () => problem(500, "internal", "Internal error", "The request failed on the server")
})

process.stdout.write(
  `${JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${server.port}`, key: apiKey, pid: process.pid, synchronous })}\n`
)

let stopping = false
process.on("SIGTERM", () => {
  if (stopping) return
  stopping = true
  void server.stop().then(() => {
    db.close()
    process.exit(0)
  })
})
