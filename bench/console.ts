/**
 * The operator console at size: how long does the server take for each view on a SQLite
 * workspace of 100,000 encounters (the default)?
 *
 *   bun bench/console.ts [--count 100000] [--runs 20] [--binary]
 *
 * The searches of the Encounters view (Find an encounter) must each answer within 50 ms; the bulk
 * load gives each row varied search columns (`searchValues`).
 *
 * Starts encounterd on a fresh SQLite file (first run: workspace and key) and, through the API as
 * an integration would, creates a template encounter and a refused request, registers a webhook
 * endpoint (to a closed loopback port), and runs a clearinghouse exchange (settings, a batch,
 * a 999, a 277CA, a refused 835). Stops the server and writes `count` encounters straight into the
 * file with bun:sqlite, copies of the template's rows: each with its claim, its Created event, the
 * accepted request it came from and a delivery of its event (1 % of requests rejected, 1 % of
 * deliveries failed, 50 pending for tomorrow); claims spread over every status, and one in ten
 * moved later (a StatusUpdated event recorded after every Created one, so an old encounter's
 * timeline ends at the far end of the feed). Restarts the server, signs in to the console and
 * loads each view `runs` times (the requests its page makes), reading the server's own time from
 * each request's log line (`duration_ms`); a page load's time is the sum of its requests'. Prints a Markdown report, appended to
 * bench/results/console.md.
 */
import { Database, type SQLQueryBindings } from "bun:sqlite"
import { statSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { ClaimStatuses } from "../lib/domain/claim-status.js"
import { uuidv7 } from "../lib/domain/ids.js"
import { seedExchange, sendRejected } from "../test/support/console-seed.js"
import { searchValues } from "../test/support/search-rows.js"
import { completeLines, createEncounters, encounterdCommand, ensureBinary, fmt, machineLine, percentile, type Running, scratch } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    count: { type: "string", default: "100000" },
    runs: { type: "string", default: "20" },
    binary: { type: "boolean", default: false }
  }
})
const count = Number(flags.count)
const runs = Number(flags.runs)
if (!Number.isInteger(count) || count < 1000) throw new Error("--count must be an integer of at least 1000")
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a positive integer")
if (flags.binary) ensureBinary()

const BATCH = 20_000
const WARMUP = 3
/** The requirement: every console view within this many milliseconds of server time. */
const TARGET_MS = 100
/** And every search (Find an encounter) within this many. */
const SEARCH_TARGET_MS = 50
const TEMPLATE_ID = "console-template"

const work = scratch("encounterd-console-")
const file = join(work.dir, "console.sqlite")
const serveArgs = ["serve", "--port", "0", "--db", file, "--rate-limit", "0", "--webhook-allow-private"]
const start = (firstRun: boolean, n: number): Promise<Running> =>
  work.serve(encounterdCommand(flags.binary, serveArgs), `server-${n}.log`, firstRun)

// ---- through the API --------------------------------------------------------------------------

interface Setup {
  readonly key: string
  readonly endpointId: string
  /** The 277CA the exchange imported. */
  readonly fileId: string
}

const setUp = async (): Promise<Setup> => {
  const server = await start(true, 1)
  const key = server.key
  if (key === undefined) throw new Error("no first-run key")
  await createEncounters(server.url, key, [TEMPLATE_ID], "template create")
  await sendRejected(server.url, key, "console-rejected")
  const endpoint = await fetch(`${server.url}/api/webhooks/endpoints`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: "http://127.0.0.1:9/hook", description: "Billing system" })
  })
  const created: unknown = await endpoint.json()
  const endpointId = typeof created === "object" && created !== null && "id" in created ? String(created.id) : ""
  if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.status} ${JSON.stringify(created)}`)
  const exchange = await seedExchange(server.url, key, "console-x12")
  await work.stop(server.proc, "the server")
  return { key, endpointId, fileId: exchange.fileIds[0] ?? "" }
}

// ---- bulk load --------------------------------------------------------------------------------

type Row = Record<string, SQLQueryBindings>

/** A prepared insert of the given columns. */
const inserter = (db: Database, table: string, columns: ReadonlyArray<string>) => {
  const stmt = db.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
  return (row: Row) => stmt.run(...columns.map((c) => row[c] ?? null))
}

/** A stored JSON object's fields. */
const jsonObject = (text: string): Record<string, unknown> => {
  const value: unknown = JSON.parse(text)
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`not a JSON object: ${text.slice(0, 80)}`)
  return Object.fromEntries(Object.entries(value))
}

/** The template's row of a table. */
const templateRow = (db: Database, sql: string, ...params: Array<SQLQueryBindings>): Row => {
  const row = db.query<Row, Array<SQLQueryBindings>>(sql).get(...params)
  if (row === null) throw new Error(`no template row: ${sql}`)
  return row
}

const bulkLoad = (endpointId: string): { readonly oldest: string; readonly newest: string; readonly moved: string } => {
  const db = new Database(file)
  try {
    db.exec("PRAGMA synchronous = OFF")
    const encounter = templateRow(db, "SELECT * FROM encounters WHERE external_id = ?", TEMPLATE_ID)
    const ws = String(encounter.workspace_id)
    const claim = templateRow(db, "SELECT * FROM claims WHERE encounter_id = ?", String(encounter.id))
    // Without the columns the database fills: seq, and encounter_id (generated from the payload).
    const { seq: _seq, encounter_id: _generated, ...event } = templateRow(
      db,
      "SELECT * FROM events WHERE event_type = 'ExternalApi.Encounter.Created' ORDER BY seq LIMIT 1"
    )
    const accepted = templateRow(db, "SELECT * FROM raw_requests WHERE outcome = 'accepted' ORDER BY received_at LIMIT 1")
    const rejected = templateRow(db, "SELECT * FROM raw_requests WHERE outcome = 'rejected' LIMIT 1")
    const delivery: Row = {
      workspace_id: ws,
      endpoint_id: endpointId,
      event_type: "ExternalApi.Encounter.Created",
      lease_owner: null,
      lease_expires_at: null
    }
    const last = db.query<{ t: string }, []>("SELECT max(created_at) AS t FROM events").get()?.t ?? new Date().toISOString()
    const t0 = Date.parse(last) + 1000
    const payloadText = String(encounter.payload)
    const marker = JSON.stringify(TEMPLATE_ID)
    const eventPayload = jsonObject(String(event.payload))
    const result = jsonObject(String(accepted.result))
    const put = {
      encounter: inserter(db, "encounters", Object.keys(encounter)),
      claim: inserter(db, "claims", Object.keys(claim)),
      event: inserter(db, "events", Object.keys(event)),
      request: inserter(db, "raw_requests", Object.keys(accepted)),
      delivery: inserter(db, "webhook_deliveries", [
        "id", "workspace_id", "endpoint_id", "event_id", "event_type", "status", "attempts", "last_attempt_at",
        "last_response_status", "last_error", "next_attempt_at", "created_at", "lease_owner", "lease_expires_at"
      ])
    }
    const random = new Uint8Array(8)
    const id = (ms: number, n: number) => uuidv7(ms, n, crypto.getRandomValues(random))
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString()
    const deliver = (ms: number, eventId: string, eventType: string, i: number) => {
      const at = new Date(ms).toISOString()
      const failed = i % 100 === 7
      const pending = i % 2000 === 11
      put.delivery({
        ...delivery,
        id: id(ms, 9),
        event_id: eventId,
        event_type: eventType,
        status: pending ? "pending" : failed ? "failed" : "succeeded",
        attempts: pending ? 1 : failed ? 8 : 1,
        last_attempt_at: at,
        last_response_status: failed || pending ? 503 : 200,
        last_error: failed || pending ? "HTTP 503" : null,
        next_attempt_at: pending ? tomorrow : null,
        created_at: at
      })
    }
    // Encounter i is created at t0 + i ms; moved ones (i % 10 === 3) are moved after all creations.
    const moved: Array<{ readonly i: number; readonly encounterId: string; readonly claimId: string }> = []
    const keys: Array<string> = []
    const write = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const ms = t0 + i
        const at = new Date(ms).toISOString()
        const encounterId = id(ms, 0)
        const claimId = id(ms, 1)
        const externalId = `console-${i}`
        const pcn = `C${String(i).padStart(11, "0")}`
        const isMoved = i % 10 === 3
        const status = isMoved ? ClaimStatuses[(i / 10) % ClaimStatuses.length | 0] ?? "coded" : "draft"
        const movedAt = new Date(t0 + count + moved.length + 1).toISOString()
        if (Math.random() < 0.01) put.request({ ...rejected, id: id(ms - 1, 7), received_at: new Date(ms - 1).toISOString(), external_id: `${externalId}-bad` })
        put.request({
          ...accepted,
          id: id(ms, 3),
          received_at: at,
          external_id: externalId,
          result: JSON.stringify({ ...result, encounter_id: encounterId })
        })
        put.encounter({
          ...encounter,
          id: encounterId,
          external_id: externalId,
          created_at: at,
          payload: payloadText.replace(marker, JSON.stringify(externalId)),
          latest_claim_id: claimId,
          latest_claim_status: isMoved ? status : "draft",
          initial_patient_control_number: pcn,
          last_event_at: isMoved ? movedAt : at,
          latest_claim_created_at: at,
          latest_claim_status_changed_at: isMoved ? movedAt : at,
          latest_claim_patient_control_number: pcn,
          // Varied search columns (the payload stays the template's: the searches read the columns).
          ...searchValues(i, ms)
        })
        put.claim({ ...claim, id: claimId, encounter_id: encounterId, created_at: at, status: isMoved ? status : "draft", status_changed_at: isMoved ? movedAt : at, patient_control_number: pcn })
        const eventId = id(ms, 2)
        put.event({
          ...event,
          id: eventId,
          created_at: at,
          timestamp: at,
          payload: JSON.stringify({ ...eventPayload, encounter_id: encounterId, external_id: externalId, claim_id: claimId, status: "draft" })
        })
        deliver(ms, eventId, "ExternalApi.Encounter.Created", i)
        if (isMoved) moved.push({ i, encounterId, claimId })
        keys.push(encounterId)
      }
    })
    for (let from = 0; from < count; from += BATCH) {
      write(from, Math.min(count, from + BATCH))
      process.stderr.write(`\r  ${Math.min(count, from + BATCH).toLocaleString("en-US")} / ${count.toLocaleString("en-US")} encounters`)
    }
    process.stderr.write("\n")
    const moves = db.transaction(() => {
      moved.forEach((m, n) => {
        const ms = t0 + count + n + 1
        const at = new Date(ms).toISOString()
        const eventId = id(ms, 4)
        const status = ClaimStatuses[(m.i / 10) % ClaimStatuses.length | 0] ?? "coded"
        put.event({
          ...event,
          id: eventId,
          event_type: "ExternalApi.Encounter.StatusUpdated",
          created_at: at,
          timestamp: at,
          payload: JSON.stringify({ encounter_id: m.encounterId, external_id: `console-${m.i}`, claim_id: m.claimId, previous_status: "draft", status, note: "moved" })
        })
        deliver(ms, eventId, "ExternalApi.Encounter.StatusUpdated", m.i)
      })
    })
    moves()
    db.exec("ANALYZE")
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
    return { oldest: keys[3] ?? "", newest: keys[keys.length - 1] ?? "", moved: moved[Math.floor(moved.length / 2)]?.encounterId ?? "" }
  } finally {
    db.close()
  }
}

// ---- measurement ------------------------------------------------------------------------------

/** One page load of a view: the requests the page makes (after the session read every page makes). */
interface Probe {
  readonly view: string
  readonly what: string
  readonly paths: ReadonlyArray<string>
}

const probes = (ids: { readonly oldest: string; readonly newest: string; readonly moved: string }, endpointId: string, fileId: string, today: string): Probe[] => {
  const endpoint = `/console/api/webhooks/endpoints/${endpointId}`
  return [
    { view: "Encounters", what: "first page (50)", paths: ["/console/api/encounters?limit=50"] },
    { view: "Encounters", what: "status filter", paths: ["/console/api/encounters?limit=50&claim_status=paid"] },
    { view: "Encounters", what: "external id", paths: ["/console/api/encounters?limit=50&external_id=console-50000"] },
    { view: "Encounters", what: "created range", paths: [`/console/api/encounters?limit=50&created_from=${today}&created_to=${today}`] },
    ...searches(today).map(([what, query]) => ({ view: "Find an encounter", what, paths: [`/console/api/encounters?limit=50&${query}`] })),
    { view: "One encounter", what: "oldest, moved at the feed's end", paths: [`/console/api/encounters/${ids.oldest}`] },
    { view: "One encounter", what: "middle, moved", paths: [`/console/api/encounters/${ids.moved}`] },
    { view: "One encounter", what: "newest", paths: [`/console/api/encounters/${ids.newest}`] },
    { view: "Intake log", what: "rejected (default)", paths: ["/console/api/intake-requests?limit=25&outcome=rejected"] },
    { view: "Intake log", what: "all outcomes", paths: ["/console/api/intake-requests?limit=25"] },
    { view: "Claims by status", what: "counts", paths: ["/console/api/claims/counts"] },
    { view: "Claims by status", what: "counts and a status's claims by age (25)", paths: ["/console/api/claims/counts", "/console/api/claims/work?limit=25&status=coded"] },
    { view: "Claims by status", what: "counts and a status's claims by amount (25)", paths: ["/console/api/claims/counts", "/console/api/claims/work?limit=25&status=coded&sort=amount"] },
    { view: "Events", what: "first page (50)", paths: ["/console/api/events?limit=50"] },
    { view: "Events", what: "StatusUpdated", paths: ["/console/api/events?limit=50&event_type=ExternalApi.Encounter.StatusUpdated"] },
    { view: "Events", what: "created range (today)", paths: [`/console/api/events?limit=50&created_after=${today}T00:00:00.000Z&created_before=${today}T23:59:59.999Z`] },
    { view: "Webhooks", what: "endpoints", paths: ["/console/api/webhooks/endpoints?limit=25"] },
    { view: "Webhook endpoint", what: "all deliveries (25)", paths: [endpoint, `${endpoint}/deliveries?limit=25`] },
    { view: "Webhook endpoint", what: "failed deliveries", paths: [endpoint, `${endpoint}/deliveries?limit=25&status=failed`] },
    { view: "Webhook endpoint", what: "pending deliveries", paths: [endpoint, `${endpoint}/deliveries?limit=25&status=pending`] },
    { view: "Clearinghouse", what: "batches and files", paths: ["/console/api/x12/batches?limit=25", "/console/api/x12/files?limit=25"] },
    { view: "Clearinghouse file", what: "one file", paths: [`/console/api/x12/files/${fileId}`] }
  ].map((p) => ({ ...p, paths: ["/console/api/session", ...p.paths] }))
}

/** The searches, on the values `searchValues` gave the rows (their creation is today, their dates of service the two weeks before). */
const searches = (today: string): ReadonlyArray<readonly [string, string]> => {
  const name = searchValues(4242, 0).patient_last_name_lower
  const birth = searchValues(777, 0).patient_date_of_birth
  const daysAgo = (n: number) => new Date(Date.parse(`${today}T00:00:00.000Z`) - n * 86_400_000).toISOString().slice(0, 10)
  return [
    ["last name, 3 letters", `patient_last_name=${name.slice(0, 3).toUpperCase()}`],
    ["last name, 1 letter", `patient_last_name=${name.slice(0, 1)}`],
    ["last name, whole", `patient_last_name=${name}`],
    ["date of birth", `patient_date_of_birth=${birth}`],
    ["date of service, one day", `date_of_service_from=${daysAgo(3)}&date_of_service_to=${daysAgo(3)}`],
    ["date of service, every day", `date_of_service_from=${daysAgo(30)}&date_of_service_to=${today}`],
    ["external id prefix, 11 matches", "external_id_prefix=console-5000"],
    ["external id prefix, every row", "external_id_prefix=console-"],
    ["payer", "payer_id=MCR01"],
    ["last name and date of birth", `patient_last_name=${name.slice(0, 2)}&patient_date_of_birth=${birth}`],
    ["payer, a day of service, a name", `payer_id=MCR01&date_of_service_from=${daysAgo(3)}&date_of_service_to=${daysAgo(3)}&patient_last_name=${name.slice(0, 1)}`],
    ["status and last name", `claim_status=paid&patient_last_name=${name.slice(0, 2)}`]
  ]
}

const signIn = async (url: string, key: string): Promise<string> => {
  const res = await fetch(`${url}/console/api/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: key }) })
  if (res.status !== 200) throw new Error(`console sign-in: ${res.status}`)
  return (res.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
}

const main = async (): Promise<string> => {
  const started = Date.now()
  console.error(`setting up through the API on ${file}...`)
  const setup = await setUp()
  console.error(`writing ${count.toLocaleString("en-US")} encounters with their claims, events, requests and deliveries...`)
  const loadStarted = performance.now()
  const ids = bulkLoad(setup.endpointId)
  const loadSeconds = (performance.now() - loadStarted) / 1000
  const size = statSync(file).size / 1024 / 1024

  const server = await start(false, 2)
  const logPath = join(work.dir, "server-2.log")
  const cookie = await signIn(server.url, setup.key)
  const today = new Date().toISOString().slice(0, 10)
  const list = probes(ids, setup.endpointId, setup.fileId, today)
  let n = 0
  // The request ids of each run of each page load.
  const sent = new Map<string, { readonly probe: Probe; readonly run: number }>()
  const load = async (probe: Probe, run: number | undefined) => {
    for (const path of probe.paths) {
      const requestId = `bench-${n++}`
      const res = await fetch(`${server.url}${path}`, { headers: { cookie, "x-request-id": requestId } })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`${probe.view} ${probe.what} ${path}: ${res.status}`)
      if (run !== undefined) sent.set(requestId, { probe, run })
    }
  }
  console.error(`timing ${runs} runs of ${list.length} console page loads on ${server.url}...`)
  for (let i = 0; i < WARMUP; i++) for (const p of list) await load(p, undefined)
  for (let i = 0; i < runs; i++) for (const p of list) await load(p, i)
  await Bun.sleep(200)
  // Server time of a page load: the sum of its requests' (the page makes them one after another, at most).
  const totals = new Map<Probe, number[]>(list.map((p) => [p, Array.from({ length: runs }, () => 0)]))
  let lines = 0
  for (const line of completeLines(logPath)) {
    const at = typeof line.request_id === "string" ? sent.get(line.request_id) : undefined
    if (at === undefined || typeof line.duration_ms !== "number") continue
    const runsOf = totals.get(at.probe)
    if (runsOf !== undefined) runsOf[at.run] = (runsOf[at.run] ?? 0) + line.duration_ms
    lines++
  }
  if (lines !== sent.size) throw new Error(`${lines} log lines for ${sent.size} requests`)
  await work.stop(server.proc, "the server")

  const rows = list.map((p) => {
    const sorted = [...(totals.get(p) ?? [])].sort((a, b) => a - b)
    return { p, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? Number.NaN }
  })
  const views = [...new Set(list.map((p) => p.view))].map((view) => ({
    view,
    max: Math.max(...rows.filter((r) => r.p.view === view).map((r) => r.max))
  }))
  const worst = Math.max(...rows.map((r) => r.max))
  const worstSearch = Math.max(...rows.filter((r) => r.p.view === "Find an encounter").map((r) => r.max))
  return [
    `## Console views at ${count.toLocaleString("en-US")} encounters, ${new Date().toISOString()}`,
    "",
    `SQLite file, ${flags.binary ? "compiled binary" : "bin/main.ts under bun"}; the server time of a page load is the sum of its ` +
      `requests' (the session read, then the view's), each from its log line (duration_ms); ${runs} runs after ${WARMUP} warm-up runs.`,
    "",
    "| view | page load | p50 ms | p95 ms | max ms |",
    "|---|---|---:|---:|---:|",
    ...rows.map((r) => `| ${r.p.view} | ${r.p.what} | ${fmt(r.p50, 2)} | ${fmt(r.p95, 2)} | ${fmt(r.max, 2)} |`),
    "",
    `Slowest page load of each view (max ms): ${views.map((v) => `${v.view} ${fmt(v.max, 2)}`).join("; ")}.`,
    "",
    worst < TARGET_MS
      ? `Every console page load under ${TARGET_MS} ms of server time (slowest: ${fmt(worst, 2)} ms).`
      : `NOT every console page load under ${TARGET_MS} ms of server time (slowest: ${fmt(worst, 2)} ms).`,
    worstSearch < SEARCH_TARGET_MS
      ? `Every search under ${SEARCH_TARGET_MS} ms of server time (slowest: ${fmt(worstSearch, 2)} ms).`
      : `NOT every search under ${SEARCH_TARGET_MS} ms of server time (slowest: ${fmt(worstSearch, 2)} ms).`,
    "",
    `Database ${fmt(size, 0)} MiB; bulk load ${fmt(loadSeconds, 1)} s. Whole run: ${fmt((Date.now() - started) / 1000, 0)} s. Machine: ${machineLine()}.`,
    ""
  ].join("\n")
}

await work.run(main, "console.md")
