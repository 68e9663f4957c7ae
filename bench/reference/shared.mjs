/**
 * What the two reference servers share: the command line, the SQL, the create payload's validator,
 * the normalized encounter and event, page tokens, problem bodies and the work behind each of the
 * five routes. A server brings its SQLite driver (statements, transactions), its id source and its
 * HTTP framework, and turns the `Answer`s of `referenceApi` into responses.
 *
 * Plain ESM with JSDoc, for Node and Bun alike; the types the Bun server checks against are in
 * shared.d.mts.
 */
import { createHash, randomBytes, randomInt } from "node:crypto"
import { mkdirSync, readFileSync } from "node:fs"
import { dirname } from "node:path"
import { parseArgs } from "node:util"

/**
 * encounterd's own compat builder and transition table, bundled by build-compat.ts (the bench and
 * the reference test build it first).
 * @type {typeof import("./compat-entry.ts")}
 */
const encounterd = await import("./compat.gen.mjs").catch((e) => {
  throw new Error(`bench/reference/compat.gen.mjs could not be loaded (build it: bun bench/reference/build-compat.ts): ${e}`)
})

/**
 * @typedef {import("./shared.d.mts").Answer} Answer
 * @typedef {import("./shared.d.mts").Driver} Driver
 * @typedef {import("./shared.d.mts").Flags} Flags
 * @typedef {import("./shared.d.mts").Issue} Issue
 * @typedef {import("./shared.d.mts").Principal} Principal
 * @typedef {import("./shared.d.mts").Problem} Problem
 * @typedef {import("./shared.d.mts").ReferenceApi} ReferenceApi
 * @typedef {Record<string, unknown>} Json
 * @typedef {{ workspaceId: string, rawId: string, externalId: string, payload: string, status: string }} NewEncounter
 */

// ---- command line and database ----------------------------------------------------------------

/**
 * `--port`, `--db` and `--synchronous` (FULL or NORMAL, default NORMAL); throws on a bad value.
 * Creates the folder of the database file.
 * @returns {Flags}
 */
export const readFlags = () => {
  const { values: flags } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      db: { type: "string" },
      synchronous: { type: "string", default: "NORMAL" },
      audit: { type: "string", default: "on" }
    }
  })
  const port = Number(flags.port)
  const dbPath = flags.db
  const synchronous = flags.synchronous.toUpperCase()
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("--port must be an integer from 0 to 65535")
  if (dbPath === undefined || dbPath === "") throw new Error("--db is required")
  if (synchronous !== "FULL" && synchronous !== "NORMAL") throw new Error("--synchronous must be FULL or NORMAL")
  if (flags.audit !== "on" && flags.audit !== "off") throw new Error("--audit must be on or off")
  if (dbPath !== ":memory:") mkdirSync(dirname(dbPath), { recursive: true })
  return { port, dbPath, synchronous, audit: flags.audit === "on" }
}

/**
 * The connection's settings, each to run as `PRAGMA <setting>`.
 * @param {"FULL" | "NORMAL"} synchronous
 * @returns {ReadonlyArray<string>}
 */
export const pragmas = (synchronous) => ["journal_mode = WAL", `synchronous = ${synchronous}`, "busy_timeout = 5000", "foreign_keys = ON"]

/** The tables and indexes (schema.sql), created when missing. */
export const SCHEMA = readFileSync(new URL("./schema.sql", import.meta.url), "utf8")

const ENCOUNTER_SELECT = `SELECT e.id, e.external_id, e.created_at, e.source, e.payload, e.initial_claim_status,
    e.initial_patient_control_number, e.last_event_at, c.id AS c_id, c.created_at AS c_created_at,
    c.status AS c_status, c.status_changed_at AS c_status_changed_at, c.patient_control_number AS c_patient_control_number
  FROM encounters e JOIN claims c ON c.id = e.latest_claim_id`
const EVENT_SELECT = "SELECT seq, id, event_type, created_at, timestamp, payload FROM events"

/** Every statement of the servers, prepared once at start. */
const SQL = {
  insertWorkspace:
    "INSERT INTO workspaces (id, slug, name, created_at) VALUES (?, 'default', 'Default workspace', ?) ON CONFLICT (slug) DO NOTHING",
  defaultWorkspace: "SELECT id FROM workspaces WHERE slug = 'default'",
  insertKey: "INSERT INTO api_keys (id, workspace_id, hash, prefix, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  findKey: `SELECT k.id AS key_id, k.workspace_id, k.prefix, k.scopes, k.revoked_at
   FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = ?`,
  insertRaw: "INSERT INTO raw_requests (id, workspace_id, key_id, received_at, content_type, body) VALUES (?, ?, ?, ?, ?, ?)",
  setRawOutcome: "UPDATE raw_requests SET outcome = ?, result = ? WHERE id = ?",
  findByExternalId: "SELECT id FROM encounters WHERE workspace_id = ? AND external_id = ?",
  insertEncounter: `INSERT INTO encounters (id, workspace_id, external_id, created_at, source, payload, latest_claim_id,
     latest_claim_status, initial_claim_status, initial_patient_control_number, last_event_at)
   VALUES (?, ?, ?, ?, 'api', ?, ?, ?, ?, ?, ?)
   ON CONFLICT (workspace_id, external_id) DO NOTHING`,
  insertClaim: `INSERT INTO claims (id, workspace_id, encounter_id, created_at, status, status_changed_at, patient_control_number)
   VALUES (?, ?, ?, ?, ?, ?, ?)`,
  insertEvent: "INSERT INTO events (id, workspace_id, event_type, created_at, timestamp, payload) VALUES (?, ?, ?, ?, ?, ?)",
  listFirst: `${ENCOUNTER_SELECT} WHERE e.workspace_id = ? ORDER BY e.created_at DESC, e.id DESC LIMIT ?`,
  listAfter: `${ENCOUNTER_SELECT} WHERE e.workspace_id = ? AND (e.created_at, e.id) < (?, ?) ORDER BY e.created_at DESC, e.id DESC LIMIT ?`,
  getOne: `${ENCOUNTER_SELECT} WHERE e.id = ? AND e.workspace_id = ?`,
  findClaim: `SELECT c.id, c.created_at, c.status, c.status_changed_at, c.patient_control_number, c.encounter_id,
     e.external_id, e.payload
   FROM claims c JOIN encounters e ON e.id = c.encounter_id WHERE c.id = ? AND c.workspace_id = ?`,
  moveClaim: "UPDATE claims SET status = ?, status_changed_at = ? WHERE id = ? AND workspace_id = ? AND status = ?",
  touchEncounter: "UPDATE encounters SET latest_claim_status = ?, last_event_at = ? WHERE id = ? AND latest_claim_id = ?",
  eventsFirst: `${EVENT_SELECT} WHERE workspace_id = ? ORDER BY seq ASC LIMIT ?`,
  eventsAfter: `${EVENT_SELECT} WHERE workspace_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?`,
  insertAudit: `INSERT INTO audit_log (id, workspace_id, at, actor_kind, actor_id, actor_name, action, resource_type, resource_id,
     client_ip, request_id, outcome) VALUES (?, ?, ?, 'key', ?, ?, ?, ?, ?, ?, ?, ?)`
}

// ---- keys and numbers -------------------------------------------------------------------------

const now = () => new Date().toISOString()
/** @param {string} s */
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

// ---- validation -------------------------------------------------------------------------------

/**
 * @param {unknown} u
 * @returns {u is Json}
 */
const isObject = (u) => typeof u === "object" && u !== null && !Array.isArray(u)
/** @param {unknown} u */
const isAbsent = (u) => u === undefined || u === null
/**
 * @param {unknown} u
 * @returns {u is string}
 */
const isNonEmpty = (u) => typeof u === "string" && u.trim() !== ""

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
/** @param {unknown} u */
const isDate = (u) => {
  if (typeof u !== "string") return false
  const m = DATE.exec(u)
  if (m === null) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(Date.UTC(y, mo - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}
/** @param {unknown} u */
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
/** @param {unknown} u */
const isQuantity = (u) =>
  (typeof u === "number" && Number.isFinite(u) && u > 0) || (typeof u === "string" && DECIMAL.test(u) && Number(u) > 0)

const GENDERS = new Set(["male", "female", "other", "not_given", "unknown"])
const BILLABLE = new Set(["BILLABLE", "NOT_BILLABLE"])
const RESPONSIBLE = new Set(["INSURANCE_PAY", "SELF_PAY", "UNKNOWN"])
const DIAGNOSIS_TYPES = new Set(["ABK", "ABF", "ABJ", "APR", "BK", "BF", "BJ", "PR", "DR", "LOI"])
const UNITS = new Set(["UN", "MJ"])

/**
 * Checks the create payload and answers every problem found (an empty list: valid).
 * @param {unknown} p
 * @returns {Array<Issue>}
 */
const validate = (p) => {
  if (!isObject(p)) return [{ path: "$", message: "must be a JSON object" }]
  /** @type {Array<Issue>} */
  const issues = []
  /** @type {(path: string, message: string) => void} */
  const bad = (path, message) => void issues.push({ path, message })
  /** @type {(o: Json, key: string, at: string) => void} */
  const str = (o, key, at) => {
    if (!isNonEmpty(o[key])) bad(`${at}${key}`, "must be a non-empty string")
  }
  /** @param {string} key */
  const bool = (key) => {
    if (typeof p[key] !== "boolean") bad(key, "must be true or false")
  }
  /** @type {(key: string, allowed: ReadonlySet<string>) => void} */
  const oneOf = (key, allowed) => {
    const v = p[key]
    if (typeof v !== "string" || !allowed.has(v)) bad(key, `must be one of ${[...allowed].join(", ")}`)
  }
  /** @type {(a: unknown, at: string, plusFour: boolean) => void} */
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
    diagnoses.forEach(/** @type {(d: unknown, i: number) => void} */ (d, i) => {
      if (!isObject(d)) return bad(`diagnoses[${i}]`, "must be an object")
      if (typeof d.code_type !== "string" || !DIAGNOSIS_TYPES.has(d.code_type)) bad(`diagnoses[${i}].code_type`, "must be a diagnosis code type")
      str(d, "code", `diagnoses[${i}].`)
    })
  }

  const lines = p.service_lines
  if (!Array.isArray(lines) || lines.length === 0) bad("service_lines", "must be a non-empty array")
  else if (lines.length > 200) bad("service_lines", "must have at most 200 entries")
  else {
    lines.forEach(/** @type {(l: unknown, i: number) => void} */ (l, i) => {
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
        /** @type {Set<number>} */
        const seen = new Set()
        pointers.forEach(/** @type {(ptr: unknown, j: number) => void} */ (ptr, j) => {
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

/**
 * @typedef {object} EncounterRow
 * @property {string} id
 * @property {string} external_id
 * @property {string} created_at
 * @property {string} source
 * @property {string} payload
 * @property {string} initial_claim_status
 * @property {string} initial_patient_control_number
 * @property {string} last_event_at
 * @property {string} c_id
 * @property {string} c_created_at
 * @property {string} c_status
 * @property {string} c_status_changed_at
 * @property {string} c_patient_control_number
 */

/**
 * @typedef {object} KeyRow
 * @property {string} key_id
 * @property {string} workspace_id
 * @property {string} scopes
 * @property {string | null} revoked_at
 */

/**
 * @typedef {object} EventRow
 * @property {number} seq
 * @property {string} id
 * @property {string} event_type
 * @property {string} created_at
 * @property {string} timestamp
 * @property {string} payload
 */

/**
 * @typedef {object} ClaimRow
 * @property {string} id
 * @property {string} created_at
 * @property {string} status
 * @property {string} status_changed_at
 * @property {string} patient_control_number
 */

/**
 * The normalized claim, field for field as encounterd answers it.
 * @param {Json} p the stored payload
 * @param {ClaimRow} c
 */
const toClaim = (p, c) => {
  /** @type {Array<Json>} */
  const lines = Array.isArray(p.service_lines) ? p.service_lines : []
  const subscriber = isObject(p.subscriber_primary) ? p.subscriber_primary : undefined
  const card = subscriber !== undefined && isObject(subscriber.insurance_card) ? subscriber.insurance_card : undefined
  return {
    id: c.id,
    created_at: c.created_at,
    status: c.status,
    status_changed_at: c.status_changed_at,
    last_checked_at: null,
    processing_started_at: null,
    processing_ended_at: null,
    patient_control_number: c.patient_control_number,
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
    clearinghouse_transaction_ids: [],
    // Clearinghouse fields: the bench's claims are never exported or paid.
    payer_claim_control_number: null,
    remittances: [],
    more_remittances: false
  }
}

/** @param {EncounterRow} r */
const claimOf = (r) => ({
  id: r.c_id,
  created_at: r.c_created_at,
  status: r.c_status,
  status_changed_at: r.c_status_changed_at,
  patient_control_number: r.c_patient_control_number
})

/**
 * The normalized encounter with its latest claim, field for field as encounterd answers it.
 * @param {EncounterRow} r
 */
const toEncounter = (r) => {
  /** @type {Json} */
  const p = JSON.parse(r.payload)
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
    latest_claim: toClaim(p, claimOf(r))
  }
}

/**
 * The compat (vendor v4) encounter, made by encounterd's own builder from the same row.
 * @param {EncounterRow} r
 * @param {string} baseUrl
 */
const toCompat = (r, baseUrl) =>
  encounterd.toCompatEncounter(
    /** @type {Parameters<typeof encounterd.toCompatEncounter>[0]} */ (
      /** @type {unknown} */ ({
        encounter: { id: r.id, external_id: r.external_id, created_at: r.created_at, payload: JSON.parse(r.payload) },
        claim: { ...claimOf(r), encounter_id: r.id }
      })
    ),
    baseUrl
  )

/** @param {EventRow} r */
const toEvent = (r) => ({
  id: r.id,
  created_at: r.created_at,
  timestamp: r.timestamp,
  event_type: r.event_type,
  schema_version: "service.compat-version.v1",
  /** @type {Json} */
  payload: JSON.parse(r.payload)
})

// ---- answers ----------------------------------------------------------------------------------

/**
 * @param {number} status
 * @param {unknown} body
 * @returns {Answer}
 */
const ok = (status, body) => ({ kind: "json", status, body })

/**
 * A problem answer (RFC 9457), its body made by `problemBody`.
 * @param {number} status
 * @param {string} code
 * @param {string} title
 * @param {string} detail
 * @param {ReadonlyArray<Issue>} [errors]
 * @returns {Problem}
 */
export const problem = (status, code, title, detail, errors) => ({ kind: "problem", status, code, title, detail, errors })

/**
 * @param {Problem} p
 * @param {string} requestId
 */
export const problemBody = (p, requestId) => ({
  type: `https://encounterd.dev/problems/${p.code}`,
  title: p.title,
  status: p.status,
  detail: p.detail,
  code: p.code,
  ...(p.errors !== undefined ? { errors: p.errors } : {}),
  request_id: requestId
})

/**
 * The headers of a problem answer; a 401 names the scheme.
 * @param {number} status
 * @param {string} requestId
 * @returns {Record<string, string>}
 */
export const problemHeaders = (status, requestId) => {
  /** @type {Record<string, string>} */
  const headers = { "content-type": "application/problem+json", "x-request-id": requestId }
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="encounterd"'
  return headers
}

/** @param {string} detail */
export const notFound = (detail) => problem(404, "not_found", "Not found", detail)
/** The answer of a request that failed on the server. */
export const internalError = () => problem(500, "internal", "Internal error", "The request failed on the server")
/**
 * @param {string} path
 * @param {string} message
 */
const badParameter = (path, message) => problem(400, "invalid_parameter", "Invalid parameter", `${path}: ${message}`, [{ path, message }])

// ---- pages ------------------------------------------------------------------------------------

/** @param {ReadonlyArray<string | number>} key */
const encodeToken = (key) => Buffer.from(JSON.stringify(key)).toString("base64url")
/**
 * The position of a `page_token` (a string; absent is handled before), or undefined when it is no token.
 * @param {unknown} token
 * @returns {Array<unknown> | undefined}
 */
const decodeToken = (token) => {
  if (typeof token !== "string") return undefined
  try {
    /** @type {unknown} */
    const key = JSON.parse(Buffer.from(token, "base64url").toString("utf8"))
    return Array.isArray(key) ? key : undefined
  } catch {
    return undefined
  }
}

/**
 * `limit`: 1 to 100, default 100 (absent: undefined or null); undefined when invalid.
 * @param {unknown} raw
 * @returns {number | undefined}
 */
const readLimit = (raw) => {
  if (raw === undefined || raw === null) return 100
  const n = Number(raw)
  return typeof raw === "string" && raw.trim() !== "" && Number.isInteger(n) && n >= 1 && n <= 100 ? n : undefined
}

/**
 * A page of a list in key order. `read` fetches `count` rows from the start (no position) or after
 * the position of the page token, undefined when that position is not one of this list's; the
 * page shows `limit` of them (through `view`) and, when one more came, the next page's token
 * (the last item's `keyOf`).
 * @template R
 * @param {unknown} limitParam
 * @param {unknown} tokenParam
 * @param {(r: R) => unknown} view
 * @param {(r: R) => ReadonlyArray<string | number>} keyOf
 * @param {(count: number, position: Array<unknown> | undefined) => Array<unknown> | undefined} read
 * @returns {Answer}
 */
const page = (limitParam, tokenParam, view, keyOf, read) => {
  const limit = readLimit(limitParam)
  if (limit === undefined) return badParameter("limit", "must be an integer from 1 to 100")
  const position = tokenParam === undefined || tokenParam === null ? undefined : (decodeToken(tokenParam) ?? [])
  const fetched = read(limit + 1, position)
  if (fetched === undefined) return badParameter("page_token", "is not a valid page token")
  const rows = /** @type {Array<R>} */ (fetched)
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  const body = {
    items: items.map(view),
    next_page_token: rows.length > limit && last !== undefined ? encodeToken(keyOf(last)) : null,
    prev_page_token: null
  }
  return ok(200, body)
}

// ---- the routes -------------------------------------------------------------------------------

const BEARER = /^Bearer\s+(\S+)\s*$/i
const KEY_SHAPE = /^eik_[0-9A-Za-z]{32,128}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * The five routes on a fresh default workspace with a fresh key: the statements prepared, the key
 * stored, and what each route answers.
 * @param {Driver} driver
 * @returns {ReferenceApi}
 */
export const referenceApi = ({ prepare, transaction, newId, audit = true }) => {
  const s = {
    insertWorkspace: prepare(SQL.insertWorkspace),
    defaultWorkspace: prepare(SQL.defaultWorkspace),
    insertKey: prepare(SQL.insertKey),
    findKey: prepare(SQL.findKey),
    insertRaw: prepare(SQL.insertRaw),
    setRawOutcome: prepare(SQL.setRawOutcome),
    findByExternalId: prepare(SQL.findByExternalId),
    insertEncounter: prepare(SQL.insertEncounter),
    insertClaim: prepare(SQL.insertClaim),
    insertEvent: prepare(SQL.insertEvent),
    listFirst: prepare(SQL.listFirst),
    listAfter: prepare(SQL.listAfter),
    getOne: prepare(SQL.getOne),
    findClaim: prepare(SQL.findClaim),
    moveClaim: prepare(SQL.moveClaim),
    touchEncounter: prepare(SQL.touchEncounter),
    eventsFirst: prepare(SQL.eventsFirst),
    eventsAfter: prepare(SQL.eventsAfter),
    insertAudit: prepare(SQL.insertAudit)
  }

  /**
   * The audit log encounterd keeps (one row per read or change of patient data, the same table and
   * indexes), written the way encounterd writes it: a change's row before its answer, reads' rows
   * gathered over one turn of the event loop and inserted in one transaction. Off with `--audit off`.
   * @type {Array<ReadonlyArray<string | null>>}
   */
  let gathered = []
  const insertAll = transaction(/** @param {Array<ReadonlyArray<string | null>>} rows */ (rows) => {
    for (const row of rows) s.insertAudit.run(...row)
  })
  const writeGathered = () => {
    const rows = gathered
    gathered = []
    insertAll(rows)
  }

  const apiKey = newKey()
  {
    const at = now()
    s.insertWorkspace.run(newId(), at)
    const ws = /** @type {{ id: string } | null | undefined} */ (s.defaultWorkspace.get())
    if (ws === null || ws === undefined) throw new Error("the default workspace is missing")
    s.insertKey.run(newId(), ws.id, sha256(apiKey), apiKey.slice(0, 10), JSON.stringify(["encounters", "claims:write"]), at)
  }

  /**
   * The id of the encounter with this external_id in the workspace, if any.
   * @param {string} workspaceId
   * @param {string} externalId
   * @returns {string | undefined}
   */
  const knownId = (workspaceId, externalId) => {
    const row = /** @type {{ id: string } | null | undefined} */ (s.findByExternalId.get(workspaceId, externalId))
    return row === null || row === undefined ? undefined : row.id
  }
  /**
   * @param {string} rawId
   * @param {Json & { outcome: string }} result
   */
  const setOutcome = (rawId, result) => s.setRawOutcome.run(result.outcome, JSON.stringify(result), rawId)

  /** Encounter, claim, Created event and the raw request's outcome in one transaction; a known external_id answers the existing id. */
  const createEncounter = transaction(
    /** @type {(n: NewEncounter) => { id: string, duplicate: boolean }} */ (n) => {
      const at = now()
      const id = newId()
      const claimId = newId()
      const pcn = newPcn()
      const inserted = s.insertEncounter.run(id, n.workspaceId, n.externalId, at, n.payload, claimId, n.status, n.status, pcn, at)
      if (inserted.changes === 0) {
        const existing = knownId(n.workspaceId, n.externalId)
        if (existing === undefined) throw new Error("encounter conflict without a row")
        setOutcome(n.rawId, { outcome: "duplicate", encounter_id: existing })
        return { id: existing, duplicate: true }
      }
      s.insertClaim.run(claimId, n.workspaceId, id, at, n.status, at, pcn)
      const event = { encounter_id: id, external_id: n.externalId, claim_id: claimId, status: n.status }
      s.insertEvent.run(newId(), n.workspaceId, "ExternalApi.Encounter.Created", at, at, JSON.stringify(event))
      setOutcome(n.rawId, { outcome: "accepted", encounter_id: id })
      return { id, duplicate: false }
    }
  )

  /** The claim's move and its StatusUpdated event in one transaction; null when another move came first. */
  const moveClaim = transaction(
    /** @type {(m: { workspaceId: string, claim: ClaimRow & { encounter_id: string, external_id: string }, status: string, note: unknown }) => string | null} */ (
      m
    ) => {
      const at = now()
      const moved = s.moveClaim.run(m.status, at, m.claim.id, m.workspaceId, m.claim.status)
      if (moved.changes === 0) return null
      const event = {
        encounter_id: m.claim.encounter_id,
        external_id: m.claim.external_id,
        claim_id: m.claim.id,
        previous_status: m.claim.status,
        status: m.status,
        ...(typeof m.note === "string" ? { note: m.note } : {})
      }
      s.insertEvent.run(newId(), m.workspaceId, "ExternalApi.Encounter.StatusUpdated", at, at, JSON.stringify(event))
      s.touchEncounter.run(m.status, at, m.claim.encounter_id, m.claim.id)
      return at
    }
  )

  /**
   * @param {string} workspaceId
   * @param {unknown} limitParam
   * @param {unknown} tokenParam
   * @param {(r: EncounterRow) => unknown} view
   */
  const encounterPage = (workspaceId, limitParam, tokenParam, view) =>
    page(limitParam, tokenParam, view, (r) => [r.created_at, r.id], (count, position) => {
      if (position === undefined) return s.listFirst.all(workspaceId, count)
      const [createdAt, id] = position
      return typeof createdAt === "string" && typeof id === "string" ? s.listAfter.all(workspaceId, createdAt, id, count) : undefined
    })
  /** @type {(workspaceId: string, id: string) => EncounterRow | undefined} */
  const oneRow = (workspaceId, id) => (UUID.test(id) ? /** @type {EncounterRow | null | undefined} */ (s.getOne.get(id, workspaceId)) ?? undefined : undefined)

  return {
    apiKey,

    /**
     * Appends the audit row of an answered request (a no-op with `--audit off`).
     * @param {{ workspaceId: string, keyId: string, prefix: string }} who
     * @param {string} action
     * @param {string} resourceType
     * @param {string | null} resourceId
     * @param {string | null} clientIp
     * @param {string} requestId
     * @param {number} status
     * @param {boolean} read
     */
    audit: (who, action, resourceType, resourceId, clientIp, requestId, status, read) => {
      if (!audit) return
      const row = [newId(), who.workspaceId, now(), who.keyId, who.prefix, action, resourceType, resourceId, clientIp, requestId, status < 400 ? "ok" : status === 404 ? "not_found" : "failed"]
      if (!read) return void s.insertAudit.run(...row)
      if (gathered.length === 0) setImmediate(writeGathered)
      gathered.push(row)
    },

    authenticate: (authorization) => {
      const presented = BEARER.exec(authorization ?? "")?.[1]
      if (presented === undefined || !KEY_SHAPE.test(presented)) return problem(401, "unauthorized", "Unauthorized", "An API key is required")
      const row = /** @type {KeyRow | null | undefined} */ (s.findKey.get(sha256(presented)))
      /** @type {Array<string>} */
      const scopes = row === null || row === undefined ? [] : JSON.parse(row.scopes)
      if (row === null || row === undefined || row.revoked_at !== null || !scopes.includes("encounters")) {
        return problem(401, "unauthorized", "Unauthorized", "The API key is not valid")
      }
      return { workspaceId: row.workspace_id, keyId: row.key_id, prefix: row.prefix, scopes }
    },

    create: (who, contentType, body) => {
      const rawId = newId()
      s.insertRaw.run(rawId, who.workspaceId, who.keyId, now(), contentType, body)
      /** @type {unknown} */
      let parsed
      try {
        parsed = JSON.parse(utf8.decode(body))
      } catch (e) {
        const detail = e instanceof Error ? e.message : "unreadable body"
        setOutcome(rawId, { outcome: "rejected", errors: [{ path: "$", message: detail }] })
        return problem(400, "invalid_json", "Malformed JSON", detail)
      }
      const issues = validate(parsed)
      if (issues.length > 0 || !isObject(parsed)) {
        setOutcome(rawId, { outcome: "rejected", errors: issues })
        return problem(422, "validation_failed", "Validation failed", `${issues.length} problem(s) in the request body`, issues)
      }
      const externalId = String(parsed.external_id)
      const known = knownId(who.workspaceId, externalId)
      if (known !== undefined) {
        setOutcome(rawId, { outcome: "duplicate", encounter_id: known })
        return ok(200, { encounter_id: known, encounterId: known, duplicate: true })
      }
      const result = createEncounter({
        workspaceId: who.workspaceId,
        rawId,
        externalId,
        payload: JSON.stringify(parsed),
        status: parsed.billable_status === "NOT_BILLABLE" ? "not_billable" : "draft"
      })
      return result.duplicate
        ? ok(200, { encounter_id: result.id, encounterId: result.id, duplicate: true })
        : ok(202, { encounter_id: result.id, encounterId: result.id })
    },

    list: (workspaceId, limitParam, tokenParam) => encounterPage(workspaceId, limitParam, tokenParam, toEncounter),

    one: (workspaceId, id) => {
      const row = oneRow(workspaceId, id)
      return row === undefined ? notFound("No such encounter in this workspace") : ok(200, toEncounter(row))
    },

    compatList: (workspaceId, limitParam, tokenParam, baseUrl) =>
      encounterPage(workspaceId, limitParam, tokenParam, (r) => toCompat(r, baseUrl)),

    compatOne: (workspaceId, id, baseUrl) => {
      const row = oneRow(workspaceId, id)
      return row === undefined ? notFound("No such encounter in this workspace") : ok(200, toCompat(row, baseUrl))
    },

    changeStatus: (who, claimId, body) => {
      if (!who.scopes.includes("claims:write")) return problem(403, "forbidden", "Forbidden", "This API key lacks the claims:write scope")
      /** @type {unknown} */
      let parsed
      try {
        parsed = JSON.parse(utf8.decode(body))
      } catch (e) {
        return problem(400, "invalid_json", "Malformed JSON", e instanceof Error ? e.message : "unreadable body")
      }
      const status = isObject(parsed) ? parsed.status : undefined
      const note = isObject(parsed) ? parsed.note : undefined
      /** @type {Array<Issue>} */
      const issues = []
      if (typeof status !== "string" || !encounterd.isClaimStatus(status)) issues.push({ path: "status", message: "must be a claim status" })
      if (note !== undefined && (typeof note !== "string" || note.length > 2000)) issues.push({ path: "note", message: "must be a string of at most 2000 characters" })
      if (issues.length > 0 || typeof status !== "string") {
        return problem(422, "validation_failed", "Validation failed", `${issues.length} problem(s) in the request body`, issues)
      }
      for (;;) {
        const row = UUID.test(claimId)
          ? /** @type {(ClaimRow & { encounter_id: string, external_id: string, payload: string }) | null | undefined} */ (s.findClaim.get(claimId, who.workspaceId))
          : undefined
        if (row === null || row === undefined) return notFound("No such claim in this workspace")
        if (row.status === status) return ok(200, toClaim(JSON.parse(row.payload), row))
        const allowed = encounterd.allowedTransitions(row.status)
        if (!allowed.some((a) => a === status)) {
          return problem(409, "invalid_transition", "Invalid transition", `A claim in ${row.status} cannot move to ${status}`)
        }
        const at = moveClaim({ workspaceId: who.workspaceId, claim: row, status, note })
        if (at !== null) return ok(200, toClaim(JSON.parse(row.payload), { ...row, status, status_changed_at: at }))
      }
    },

    events: (workspaceId, limitParam, tokenParam) =>
      page(limitParam, tokenParam, toEvent, (r) => [r.seq], (count, position) => {
        if (position === undefined) return s.eventsFirst.all(workspaceId, count)
        const [seq] = position
        return typeof seq === "number" ? s.eventsAfter.all(workspaceId, seq, count) : undefined
      })
  }
}

// ---- process ----------------------------------------------------------------------------------

/**
 * The one `listening` line on stdout.
 * @param {number} port
 * @param {string} key
 * @param {string} synchronous
 */
export const announce = (port, key, synchronous) =>
  void process.stdout.write(`${JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${port}`, key, pid: process.pid, synchronous })}\n`)

/**
 * On the first SIGTERM: `stop` (close the server, then the database), then exit 0.
 * @param {() => Promise<unknown>} stop
 */
export const exitOnSigterm = (stop) => {
  let stopping = false
  process.on("SIGTERM", () => {
    if (stopping) return
    stopping = true
    void stop().then(() => process.exit(0))
  })
}
