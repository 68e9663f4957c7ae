/**
 * List latency at depth: is a page far down the encounter list (1,000,000 by default) served
 * within 1.2x the latency of the first page?
 *
 *   bun bench/depth.ts [--count 1000000] [--requests 300] [--binary]
 *
 * Starts encounterd on a fresh SQLite file (first run: workspace and key), creates one encounter
 * through the API as a template and stops the server. Then writes `count + 100` encounters, each
 * with its claim and Created event, straight into the file with bun:sqlite (the migrations'
 * schema, one transaction per 50,000 rows), restarts the server and times, one request at a
 * time on one keep-alive connection, `requests` GETs each of the first page, a page at half the
 * depth and the page right after the `count` newest encounters (a page token built with the
 * library's own encoder). Prints a Markdown report, appended to bench/results/depth.md.
 */
import { Database } from "bun:sqlite"
import { statSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "node:util"
import type { SqliteValue } from "../lib/adapters/sqlite/driver.js"
import { encounterPage } from "../lib/adapters/sql/statements.js"
import { uuidv7 } from "../lib/domain/ids.js"
import { encodeToken, tokenScope } from "../lib/domain/page.js"
import {
  createEncounters,
  encounterdCommand,
  ensureBinary,
  fmt,
  machineLine,
  percentile,
  type Running,
  scratch
} from "./support.js"

const { values: flags } = parseArgs({
  options: {
    count: { type: "string", default: "1000000" },
    requests: { type: "string", default: "300" },
    binary: { type: "boolean", default: false }
  }
})
const count = Number(flags.count)
const requests = Number(flags.requests)
if (!Number.isInteger(count) || count < 200) throw new Error("--count must be an integer of at least 200")
if (!Number.isInteger(requests) || requests < 1) throw new Error("--requests must be a positive integer")
if (flags.binary) ensureBinary()

const PAGE = 100
const BATCH = 50_000
const WARMUP = 10
/** The requirement: a deep page within this factor of the first page's latency. */
const TARGET_RATIO = 1.2
const TEMPLATE_ID = "depth-template"

const work = scratch("encounterd-depth-")
const file = join(work.dir, "depth.sqlite")
const serveArgs = ["serve", "--port", "0", "--db", file, "--rate-limit", "0"]

const start = (firstRun: boolean, n: number): Promise<Running> =>
  work.serve(encounterdCommand(flags.binary, serveArgs), `server-${n}.log`, firstRun)
const stop = (server: Running): Promise<void> => work.stop(server.proc, "the server")

// ---- the template: one encounter created through the API ------------------------------------

interface Template {
  readonly key: string
  readonly workspaceId: string
  readonly createdAtMs: number
  readonly source: string
  readonly status: string
  readonly initialStatus: string
  /** The stored payload around the template's external_id (JSON string included, quotes excluded). */
  readonly payloadHead: string
  readonly payloadTail: string
  readonly eventType: string
  readonly eventPayload: Record<string, unknown>
}

const makeTemplate = async (): Promise<Template> => {
  const server = await start(true, 1)
  const key = server.key
  if (key === undefined) throw new Error("no first-run key")
  await createEncounters(server.url, key, [TEMPLATE_ID], "template create")
  await stop(server)

  const db = new Database(file, { readonly: true })
  try {
    const e = db
      .query<Record<string, string>, [string]>("SELECT * FROM encounters WHERE external_id = ?")
      .get(TEMPLATE_ID)
    const ev = db.query<Record<string, string>, []>("SELECT * FROM events ORDER BY seq LIMIT 1").get()
    if (e === null || ev === null) throw new Error("the template encounter or its event is missing")
    const marker = JSON.stringify(TEMPLATE_ID)
    const at = e.payload?.indexOf(marker) ?? -1
    if (e.payload === undefined || at < 0 || e.payload.indexOf(marker, at + 1) >= 0) {
      throw new Error("the stored payload does not hold the template external_id exactly once")
    }
    return {
      key,
      workspaceId: String(e.workspace_id),
      createdAtMs: Date.parse(String(e.created_at)),
      source: String(e.source),
      status: String(e.latest_claim_status),
      initialStatus: String(e.initial_claim_status),
      payloadHead: e.payload.slice(0, at),
      payloadTail: e.payload.slice(at + marker.length),
      eventType: String(ev.event_type),
      eventPayload: JSON.parse(String(ev.payload)) as Record<string, unknown>
    }
  } finally {
    db.close()
  }
}

// ---- bulk load --------------------------------------------------------------------------------

/**
 * Writes `rows` encounters after the template, one millisecond apart (so newer than it, and the
 * events' created_at follows their sequence), each with a claim and a Created event. Ids are
 * UUIDv7 of the row's millisecond, so they sort by created_at.
 */
const bulkLoad = (t: Template, rows: number): void => {
  const db = new Database(file)
  try {
    db.exec("PRAGMA synchronous = OFF")
    db.exec("PRAGMA foreign_keys = OFF")
    const insertEncounter = db.prepare(`INSERT INTO encounters (id, workspace_id, external_id, created_at, source, payload,
        latest_claim_id, latest_claim_status, initial_claim_status, initial_patient_control_number, last_event_at,
        latest_claim_created_at, latest_claim_status_changed_at, latest_claim_patient_control_number)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    const insertClaim = db.prepare(`INSERT INTO claims (id, workspace_id, encounter_id, created_at, status,
        status_changed_at, patient_control_number)
      VALUES (?, ?, ?, ?, ?, ?, ?)`)
    const insertEvent = db.prepare(`INSERT INTO events (id, workspace_id, event_type, created_at, timestamp, payload)
      VALUES (?, ?, ?, ?, ?, ?)`)
    const random = new Uint8Array(8)
    const id = (ms: number, seq: number) => uuidv7(ms, seq, crypto.getRandomValues(random))
    const ws = t.workspaceId
    const batch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const ms = t.createdAtMs + 1 + i
        const at = new Date(ms).toISOString()
        const encounterId = id(ms, 0)
        const claimId = id(ms, 1)
        const externalId = `depth-${i}`
        // Unique per row, and zero-padded: generated numbers never hold a 0, so none clashes with the template's.
        const pcn = `D${String(i).padStart(11, "0")}`
        insertEncounter.run(encounterId, ws, externalId, at, t.source, `${t.payloadHead}${JSON.stringify(externalId)}${t.payloadTail}`,
          claimId, t.status, t.initialStatus, pcn, at, at, at, pcn)
        insertClaim.run(claimId, ws, encounterId, at, t.status, at, pcn)
        const payload = { ...t.eventPayload, encounter_id: encounterId, external_id: externalId, claim_id: claimId }
        insertEvent.run(id(ms, 2), ws, t.eventType, at, at, JSON.stringify(payload))
      }
    })
    for (let from = 0; from < rows; from += BATCH) {
      batch(from, Math.min(rows, from + BATCH))
      process.stderr.write(`\r  ${Math.min(rows, from + BATCH).toLocaleString("en-US")} / ${rows.toLocaleString("en-US")} rows`)
    }
    process.stderr.write("\n")
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
  } finally {
    db.close()
  }
}

// ---- measurement ------------------------------------------------------------------------------

/** A list query of the SQLite adapter (`encounterPage`): its SQL and parameters. */
type ListQuery = ReturnType<typeof encounterPage>

interface Target {
  readonly name: string
  /** Encounters before the page's first item (newest first). */
  readonly depth: number
  readonly path: string
  /** The page's expected first item. */
  readonly firstId: string
  /** The adapter's query for the page, for the SQL-only timing and the plan. */
  readonly query: ListQuery
}

interface KeyRow {
  readonly created_at: string
  readonly id: string
}

const targets = (db: Database, ws: string): Target[] => {
  const nth = db.query<KeyRow, [string, number]>(
    "SELECT created_at, id FROM encounters WHERE workspace_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?"
  )
  const row = (offset: number): KeyRow => {
    const r = nth.get(ws, offset)
    if (r === null) throw new Error(`no encounter at offset ${offset}`)
    return r
  }
  const scope = tokenScope([ws, "encounters", null, null])
  const at = (name: string, depth: number): Target => {
    if (depth === 0) {
      return { name, depth, path: `/api/encounters?limit=${PAGE}`, firstId: row(0).id, query: encounterPage(ws, { limit: PAGE }) }
    }
    const last = row(depth - 1)
    const position = { dir: "next", key: [last.created_at, last.id] } as const
    return {
      name,
      depth,
      path: `/api/encounters?limit=${PAGE}&page_token=${encodeToken(position, scope)}`,
      firstId: row(depth).id,
      query: encounterPage(ws, { limit: PAGE, position })
    }
  }
  return [at("first page", 0), at("mid depth", Math.round(count / 2 / PAGE) * PAGE), at("deep page", count)]
}

interface Timing {
  readonly target: Target
  readonly http: number[]
  readonly sql: number[]
}

const get = async (url: string, key: string): Promise<{ status: number; body: { items?: Array<{ id?: string }> } }> => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } })
  return { status: res.status, body: (await res.json()) as { items?: Array<{ id?: string }> } }
}

const measure = async (server: Running, key: string, list: readonly Target[]): Promise<Timing[]> => {
  const timings = list.map((target) => ({ target, http: [] as number[], sql: [] as number[] }))
  for (const t of list) {
    const { status, body } = await get(`${server.url}${t.path}`, key)
    const items = body.items ?? []
    if (status !== 200 || items.length !== PAGE || items[0]?.id !== t.firstId) {
      throw new Error(`${t.name}: expected ${PAGE} items from ${t.firstId}, got ${status} with ${items.length} from ${items[0]?.id}`)
    }
  }
  // Warm-up, then the pages in turn, so drift on the machine touches all of them alike.
  for (let i = 0; i < WARMUP; i++) for (const t of list) await (await fetch(`${server.url}${t.path}`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer()
  for (let i = 0; i < requests; i++) {
    for (const timing of timings) {
      const started = performance.now()
      const res = await fetch(`${server.url}${timing.target.path}`, { headers: { authorization: `Bearer ${key}` } })
      await res.arrayBuffer()
      timing.http.push(performance.now() - started)
      if (res.status !== 200) throw new Error(`${timing.target.name}: ${res.status}`)
    }
  }
  return timings
}

/** The same queries straight on the file (its own connection, the server idle): the database's share. */
const measureSql = (db: Database, timings: readonly Timing[]): void => {
  const runs = timings.map((t) => {
    const statement = db.query<unknown, Array<SqliteValue>>(t.target.query.sql)
    return { times: t.sql, once: () => statement.all(...t.target.query.params) }
  })
  for (const r of runs) for (let i = 0; i < WARMUP; i++) r.once()
  for (let i = 0; i < requests; i++) {
    for (const r of runs) {
      const started = performance.now()
      r.once()
      r.times.push(performance.now() - started)
    }
  }
}

const plan = (db: Database, query: ListQuery | undefined): string[] =>
  query === undefined
    ? []
    : db
        .query<{ id: number; parent: number; detail: string }, Array<SqliteValue>>(`EXPLAIN QUERY PLAN ${query.sql}`)
        .all(...query.params)
        .map((r) => `${r.parent === 0 ? "" : "  "}${r.detail}`)

const main = async (): Promise<string> => {
  const started = Date.now()
  console.error(`template encounter on ${file}...`)
  const template = await makeTemplate()
  const rows = count + PAGE
  console.error(`writing ${rows.toLocaleString("en-US")} encounters, claims and events...`)
  const loadStarted = performance.now()
  bulkLoad(template, rows)
  const loadSeconds = (performance.now() - loadStarted) / 1000
  const size = statSync(file).size / 1024 / 1024

  const server = await start(false, 2)
  const db = new Database(file, { readonly: true })
  let report: string
  try {
    const total = db.query<{ n: number }, []>("SELECT count(*) AS n FROM encounters").get()?.n ?? 0
    const list = targets(db, template.workspaceId)
    console.error(`timing ${requests} requests per page on ${server.url}...`)
    const timings = await measure(server, template.key, list)
    measureSql(db, timings)
    const afterPlan = plan(db, list[list.length - 1]?.query)
    const plans = [
      "first page:",
      ...plan(db, list[0]?.query).map((l) => `  ${l}`),
      "page after a position:",
      ...afterPlan.map((l) => `  ${l}`)
    ]
    // A seek shows the position among the index constraints, e.g. `(workspace_id=? AND created_at<?)`.
    const seeks = afterPlan.some((l) => /USING (COVERING )?INDEX encounters_page \(workspace_id=\? AND [^)]*created_at/.test(l))
    const seekLine = seeks
      ? "The page after a position seeks to it in the encounters_page index (the position is an index range)."
      : "The page after a position does not seek to it: the encounters_page index is entered on workspace_id alone, " +
        "and every entry newer than the position is read and skipped, so the cost grows with the depth."

    const stats = timings.map((t) => {
      const http = [...t.http].sort((a, b) => a - b)
      const sql = [...t.sql].sort((a, b) => a - b)
      return { t, p50: percentile(http, 50), p95: percentile(http, 95), sql50: percentile(sql, 50) }
    })
    const base = stats[0]
    const ratio = (a: number, b: number | undefined) => (b === undefined ? "–" : `${fmt(a / b, 2)}x`)
    const table = [
      "| page | encounters before it | p50 ms | p95 ms | p50 vs first | p95 vs first | SQL only p50 ms |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...stats.map(
        (s) =>
          `| ${s.t.target.name} | ${s.t.target.depth.toLocaleString("en-US")} | ${fmt(s.p50, 2)} | ${fmt(s.p95, 2)} | ` +
          `${ratio(s.p50, base?.p50)} | ${ratio(s.p95, base?.p95)} | ${fmt(s.sql50, 3)} |`
      )
    ].join("\n")
    const worst = stats.reduce((m, s) => Math.max(m, base === undefined ? Number.NaN : s.p50 / base.p50), 0)
    const verdict =
      worst <= TARGET_RATIO
        ? `Within ${TARGET_RATIO}x: the slowest page's p50 is ${fmt(worst, 2)}x the first page's.`
        : `Not within ${TARGET_RATIO}x: the slowest page's p50 is ${fmt(worst, 2)}x the first page's.`
    report = [
      `## List depth, ${new Date().toISOString()}`,
      "",
      table,
      "",
      verdict,
      "",
      `${total.toLocaleString("en-US")} encounters in one workspace (1 through the API, ${rows.toLocaleString("en-US")} written directly: ` +
        `${fmt(loadSeconds, 1)} s, database ${fmt(size, 0)} MiB; raw requests not written). ` +
        `${requests} requests per page after ${WARMUP} warm-up, one at a time on one keep-alive connection, pages in turn; ` +
        `limit ${PAGE}. encounterd from ${flags.binary ? "binary (dist/encounterd)" : "source (bun bin/main.ts)"}, synchronous FULL. ` +
        `SQL only: the adapter's list query on a connection of the bench (bun:sqlite), rows not decoded. ` +
        `Machine: ${machineLine()}. Whole run ${fmt((Date.now() - started) / 1000, 0)} s.`,
      "",
      "Query plan (EXPLAIN QUERY PLAN, the SQLite adapter's list query):",
      "",
      "```",
      ...plans,
      "```",
      "",
      seekLine,
      ""
    ].join("\n")
  } finally {
    db.close()
    await stop(server)
  }
  return report
}

await work.run(main, "depth.md")
