/**
 * Imports at scale: is a 277CA of 1,000 claims, and then an 835 of the same 1,000 claims, each
 * imported in under 1 s, while the server keeps answering other requests (p99 under 50 ms)?
 *
 *   bun bench/imports.ts [--claims 1000] [--rounds 3] [--readers 8] [--source] [--profile] [--top 15]
 *
 * Each round, on a fresh SQLite file and a fresh server: seeds `claims` insurance encounters
 * through the API, sends their claims as 837P batches (`POST /api/x12/837p-batches`, at most 500
 * claims a batch), reads every claim's CLM01, CLM02 and SV1 lines back from the batch files, and
 * builds a 277CA accepting every claim into adjudication (A2, with a payer claim number) and an
 * 835 paying every claim (80 % of each line, the rest a CO-45 adjustment) with the test suite's
 * writers (test/support/x12-files.ts). Then, while `readers` clients read random seeded
 * encounters back to back, it uploads the 277CA and then the 835 to `POST /api/x12/inbound` and
 * times each from the request's start to its answer's last byte (the import is synchronous: the
 * answer is the file's final outcome). Afterwards (untimed) every claim is read to check that the
 * 277CA acknowledged it and the 835 paid it as sent.
 *
 * The server is the compiled binary, built from this checkout into the temp folder (the flags of
 * `npm run build`); `--source` runs `bun bin/main.ts` instead. `--profile` runs it from source
 * under `bun --cpu-prof`, restarted on the seeded file just before the imports (and stopped right
 * after them), and reports each import's window of the profile by phase and by function
 * (bench/cpu-profile.ts); the profiler slows the server, so those timings are not the requirement's.
 * Prints a Markdown report, appended to bench/results/imports.md; exits 1 when a requirement fails
 * or an import did not do what it should.
 */
import { copyFileSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { parseArgs } from "node:util"
import { buildArgs } from "../scripts/build-args.js"
import { insurancePayload } from "../test/support/payloads.js"
import { make277, make835, type Paid835Claim } from "../test/support/x12-files.js"
import { type Phase, profileWindow, type Segment } from "./cpu-profile.js"
import { cpuMicros, encounterdWriteKey } from "./scenario-data.js"
import { completeLines, createEncounters, fmt, machineLine, percentile, root, scratch } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    claims: { type: "string", default: "1000" },
    rounds: { type: "string", default: "3" },
    readers: { type: "string", default: "8" },
    source: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    top: { type: "string", default: "15" }
  }
})
const claimCount = Number(flags.claims)
const rounds = Number(flags.rounds)
const readers = Number(flags.readers)
const top = Number(flags.top)
for (const [name, v] of Object.entries({ claims: claimCount, rounds, top })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`)
}
if (!Number.isInteger(readers) || readers < 0) throw new Error("--readers must be a non-negative integer")

/** The requirement: each import answered within this, ... */
const IMPORT_LIMIT_MS = 1000
/** ... and the other clients' 99th percentile during the imports within this. */
const P99_LIMIT_MS = 50
/** The product's most claims per 837P batch (MAX_BATCH_CLAIMS in lib/rules/x12-export.ts). */
const BATCH_CLAIMS = 500
/** Reads measured before the first import, as the baseline the import windows compare with. */
const BASELINE_MS = 1000
/** A pause after each import, so the next window starts from a quiet server. */
const SETTLE_MS = 500

const work = scratch("encounterd-imports-")

/** The clearinghouse the test writers answer as (sender SENDER01, receiver CLEARHOUSE). */
const clearinghouseSettings = {
  interchange_sender_id: "SENDER01",
  interchange_receiver_id: "CLEARHOUSE",
  submitter: { name: "Encounterd Billing", id: "SUB123", contact_name: "Ops Desk", contact_phone: "6155550100" },
  receiver: { name: "Example Clearinghouse", id: "CH987" },
  usage: "T"
}

/** An exportable encounter: an insurance claim with a date of service; the server gives its PCN. */
const exportable = (externalId: string): Record<string, unknown> => ({ ...insurancePayload(externalId), date_of_service: "2026-10-01" })

type Json = Record<string, unknown>
const asObject = (x: unknown, what: string): Json => {
  if (typeof x !== "object" || x === null || Array.isArray(x)) throw new Error(`${what}: not a JSON object`)
  return { ...x }
}
const asArray = (x: unknown, what: string): ReadonlyArray<unknown> => {
  if (!Array.isArray(x)) throw new Error(`${what}: not an array`)
  return x
}
const asString = (x: unknown, what: string): string => {
  if (typeof x !== "string") throw new Error(`${what}: not a string`)
  return x
}

const call = async (url: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, text: await res.text() }
}
const expectJson = async (url: string, key: string, method: string, path: string, status: number, body?: unknown): Promise<Json> => {
  const r = await call(url, key, method, path, body)
  if (r.status !== status) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 500)}`)
  return asObject(JSON.parse(r.text), `${method} ${path}`)
}

/** `f` over `items`, 16 at a time, answers in the items' order. */
const mapConcurrent = async <A, B>(items: ReadonlyArray<A>, f: (a: A) => Promise<B>): Promise<B[]> => {
  const out: B[] = new Array<B>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i] as A)
    }
  }
  await Promise.all(Array.from({ length: Math.min(16, items.length) }, worker))
  return out
}

/** Cents from an X12 decimal ("125", "125.5", "125.00"), without floating point. */
const cents = (dollars: string): number => {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(dollars)
  if (m === null) throw new Error(`not an amount: ${dollars}`)
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"))
}

/** A claim as the 837P carried it: CLM01, CLM02 and its SV1 lines. */
interface Billed {
  readonly pcn: string
  readonly charge: number
  readonly lines: ReadonlyArray<{ readonly code: string; readonly charge: number }>
}

/** The claims of an 837P file (delimiters `*`, `:`, `~`, as docs/x12.md says the export writes them). */
const billedClaims = (file: string): Billed[] => {
  const out: Array<{ pcn: string; charge: number; lines: Array<{ code: string; charge: number }> }> = []
  for (const raw of file.split("~")) {
    const e = raw.trim().split("*")
    if (e[0] === "CLM") out.push({ pcn: e[1] ?? "", charge: cents(e[2] ?? ""), lines: [] })
    if (e[0] === "SV1") {
      const claim = out[out.length - 1]
      if (claim === undefined) throw new Error("an SV1 before any CLM")
      claim.lines.push({ code: (e[1] ?? "").split(":")[1] ?? "", charge: cents(e[2] ?? "") })
    }
  }
  return out
}

/** One seeded claim, from its encounter read and its batch's 837P. */
interface Seeded {
  readonly encounter: string
  readonly claim: string
  readonly billed: Billed
  /** The payer's claim control number the 277CA gives it (REF*1K) and the 835 repeats (CLP07). */
  readonly payerControl: string
  /** What the 835 pays, in cents. */
  readonly paid: number
}

/** 80 % of a line, the rest a contractual adjustment (CO-45): a claim that balances. */
const paidOf = (charge: number): number => Math.floor((charge * 8) / 10)

/** A client's request: when it was sent and answered (ms, performance.now()). */
interface Sample {
  readonly start: number
  readonly end: number
}

/**
 * `readers` clients, each reading a random seeded encounter (`GET /api/encounters/{id}`) as soon
 * as its previous answer is in, until `stop`. Any answer but 200 is counted as a failure.
 */
const startReaders = (url: string, key: string, ids: ReadonlyArray<string>) => {
  const samples: Sample[] = []
  let failures = 0
  let running = true
  const reader = async () => {
    while (running) {
      const id = ids[Math.floor(Math.random() * ids.length)] ?? ""
      const start = performance.now()
      try {
        const res = await fetch(`${url}/api/encounters/${id}`, { headers: { authorization: `Bearer ${key}` } })
        await res.arrayBuffer()
        if (res.status === 200) samples.push({ start, end: performance.now() })
        else failures++
      } catch {
        failures++
      }
    }
  }
  const all = Array.from({ length: readers }, reader)
  return {
    samples,
    failures: () => failures,
    stop: async () => {
      running = false
      await Promise.all(all)
    }
  }
}

/** The latencies (ms, ascending) of requests in flight at any moment of [from, to]. */
const during = (samples: ReadonlyArray<Sample>, from: number, to: number): number[] =>
  samples.filter((s) => s.start <= to && s.end >= from).map((s) => s.end - s.start).sort((a, b) => a - b)

interface Latency {
  readonly count: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  /**
   * The longest time in the window in which no read was answered: with every reader sending its
   * next read at once, answers come a fraction of a millisecond apart unless the server's event
   * loop is held, so this is the longest stretch the server answered nothing.
   */
  readonly stall: number
}
const latency = (samples: ReadonlyArray<Sample>, from: number, to: number): Latency => {
  const sorted = during(samples, from, to)
  const ends = samples.map((s) => s.end).sort((a, b) => a - b)
  let stall = 0
  for (let i = 1; i < ends.length; i++) {
    const [a, b] = [ends[i - 1] ?? 0, ends[i] ?? 0]
    if (b >= from && a <= to) stall = Math.max(stall, Math.min(b, to) - Math.max(a, from))
  }
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    stall: sorted.length === 0 ? Number.NaN : stall
  }
}

interface Imported {
  readonly kind: "277CA" | "835"
  readonly bytes: number
  readonly ms: number
  /** The server's own duration_ms for the request (its log line). */
  readonly serverMs: number
  /** The server process's CPU time (user + system) over the import's window. */
  readonly cpuMs: number
  readonly summary: Json
  readonly reads: Latency
}

interface Round {
  readonly baseline: Latency
  readonly imports: ReadonlyArray<Imported>
  readonly failures: number
  readonly problems: ReadonlyArray<string>
  readonly seedSeconds: number
  /** With --profile: where the server's CPU went during each import. */
  readonly profile?: string
}

/** `encounterd` as a command prefix: the built binary, or bin/main.ts (under the profiler with --profile). */
const commands = (binary: string | undefined) => {
  const cli = binary === undefined ? [process.execPath, join(root, "bin/main.ts")] : [binary]
  return { cli, serve: (args: ReadonlyArray<string>) => [...cli, "serve", ...args] }
}

const runRound = async (round: number, binary: string | undefined): Promise<Round> => {
  const { cli, serve } = commands(binary)
  const db = join(work.dir, `imports-${round}.sqlite`)
  const serveArgs = ["--port", "0", "--db", db, "--rate-limit", "0"]
  let server = await work.serve(serve(serveArgs), `seed-${round}.log`, true)
  const key = server.key
  if (key === undefined) throw new Error("no first-run key")
  const writer = encounterdWriteKey(cli, db)

  console.error(`round ${round}: seeding ${claimCount} encounters ...`)
  const seedStart = performance.now()
  await expectJson(server.url, writer, "PUT", "/api/workspace/clearinghouse", 200, clearinghouseSettings)
  const encounters = await createEncounters(server.url, key, Array.from({ length: claimCount }, (_, i) => `imports-${round}-${i}`), "seed", exportable)
  const reads = await mapConcurrent(encounters, async (id) => {
    const e = await expectJson(server.url, key, "GET", `/api/encounters/${id}`, 200)
    const claim = asObject(e.latest_claim, "latest_claim")
    return { encounter: id, claim: asString(claim.id, "latest_claim.id"), pcn: asString(claim.patient_control_number, "patient_control_number") }
  })
  const billedByPcn = new Map<string, Billed>()
  for (let at = 0; at < reads.length; at += BATCH_CLAIMS) {
    const batch = await expectJson(server.url, writer, "POST", "/api/x12/837p-batches", 201, { claim_ids: reads.slice(at, at + BATCH_CLAIMS).map((r) => r.claim) })
    const file = await call(server.url, key, "GET", `/api/x12/837p-batches/${asString(batch.id, "batch id")}/file`)
    if (file.status !== 200) throw new Error(`batch file: ${file.status}`)
    for (const b of billedClaims(file.text)) billedByPcn.set(b.pcn, b)
  }
  const seeded: Seeded[] = reads.map((r, i) => {
    const billed = billedByPcn.get(r.pcn)
    if (billed === undefined) throw new Error(`claim ${r.claim} (PCN ${r.pcn}) is in no 837P batch`)
    return { encounter: r.encounter, claim: r.claim, billed, payerControl: `PAYER${round}X${i}`, paid: billed.lines.reduce((s, l) => s + paidOf(l.charge), 0) }
  })
  if (billedByPcn.size !== claimCount) throw new Error(`the 837P batches carry ${billedByPcn.size} claims, not ${claimCount}`)
  const seedSeconds = (performance.now() - seedStart) / 1000

  const profDir = join(work.dir, `prof-${round}`)
  if (flags.profile) {
    // The profile should hold the import phase alone: restart the server on the seeded file under the profiler.
    await work.stop(server.proc, "the seeding server")
    server = await work.serve(
      [process.execPath, "--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${profDir}`, join(root, "bin/main.ts"), "serve", ...serveArgs],
      `profile-${round}.log`,
      false
    )
  }

  // The files, made before any timing. Control numbers are per round (each round has its own database).
  const files: ReadonlyArray<{ kind: "277CA" | "835"; text: string }> = [
    {
      kind: "277CA",
      text: make277(
        1000 + round,
        seeded.map((s, i) => ({ pcn: s.billed.pcn, category: "A2", payerControl: s.payerControl, trace: `TRACE${round}X${i}` }))
      )
    },
    {
      kind: "835",
      text: make835(
        2000 + round,
        `EFT${round}`,
        "20261130",
        seeded.map((s): Paid835Claim => ({
          pcn: s.billed.pcn,
          charge: s.billed.charge,
          paid: s.paid,
          payerControl: s.payerControl,
          lines: s.billed.lines.map((l) => ({ code: l.code, charge: l.charge, paid: paidOf(l.charge), adjustments: [["CO", "45", l.charge - paidOf(l.charge)]] }))
        }))
      )
    }
  ]

  console.error(`round ${round}: importing with ${readers} concurrent readers ...`)
  const load = startReaders(server.url, key, encounters)
  const baselineStart = performance.now()
  await Bun.sleep(BASELINE_MS)
  const baseline = latency(load.samples, baselineStart, performance.now())
  const windows: Array<{ kind: "277CA" | "835"; bytes: number; from: number; to: number; cpuMs: number; requestId: string; answer: Json }> = []
  const problems: string[] = []
  for (const f of files) {
    const requestId = `bench-import-${round}-${f.kind}`
    const cpuBefore = cpuMicros(server.pid)
    const from = performance.now()
    const res = await fetch(`${server.url}/api/x12/inbound`, {
      method: "POST",
      headers: { authorization: `Bearer ${writer}`, "content-type": "application/edi-x12", "x-request-id": requestId },
      body: f.text
    })
    const text = await res.text()
    const to = performance.now()
    const cpuMs = (cpuMicros(server.pid) - cpuBefore) / 1000
    if (res.status !== 200) throw new Error(`${f.kind} import: ${res.status} ${text.slice(0, 500)}`)
    windows.push({ kind: f.kind, bytes: Buffer.byteLength(f.text), from, to, cpuMs, requestId, answer: asObject(JSON.parse(text), `${f.kind} answer`) })
    console.error(`round ${round}: ${f.kind} imported in ${fmt(to - from)} ms`)
    await Bun.sleep(SETTLE_MS)
  }
  await load.stop()
  const logPath = join(work.dir, flags.profile ? `profile-${round}.log` : `seed-${round}.log`)
  if (flags.profile) {
    // The profile ends with the imports: the checks below run on an unprofiled server.
    await work.stop(server.proc, "the profiled server")
    server = await work.serve(serve(serveArgs), `check-${round}.log`, false)
  }

  // Did each import do what it should? Its answer, then (untimed) every claim read back.
  for (const w of windows) {
    const summary = asObject(w.answer.summary, "summary")
    const want = w.kind === "277CA" ? { kind: "277CA", changed: 0, unchanged: claimCount } : { kind: "835", changed: claimCount, unchanged: 0 }
    const got: Json = { kind: w.answer.kind, duplicate: w.answer.duplicate, ...summary }
    const expected: Json = { kind: want.kind, duplicate: false, total: claimCount, status_changed: want.changed, unchanged: want.unchanged, unmatched: 0, conflict: 0 }
    for (const [field, value] of Object.entries(expected)) {
      if (got[field] !== value) problems.push(`${w.kind}: ${field} is ${String(got[field])}, expected ${String(value)}`)
    }
    const listed = asArray(w.answer.claims, "claims").map((c) => asObject(c, "outcome"))
    const status = w.kind === "277CA" ? "submitted_to_payer" : "paid"
    const off = listed.filter((c) => c.status !== status || c.previous_status !== "submitted_to_payer")
    if (off.length > 0) problems.push(`${w.kind}: ${off.length} listed outcomes are not ${status}, e.g. ${JSON.stringify(off[0]).slice(0, 300)}`)
  }
  const checked = await mapConcurrent(seeded, async (s) => {
    const claim = asObject((await expectJson(server.url, key, "GET", `/api/encounters/${s.encounter}`, 200)).latest_claim, "latest_claim")
    const remits = asArray(claim.remittances, "remittances").map((r) => asObject(r, "remittance"))
    const wrong: string[] = []
    if (claim.id !== s.claim) wrong.push(`latest claim ${String(claim.id)}`)
    if (claim.status !== "paid") wrong.push(`status ${String(claim.status)}`)
    if (typeof claim.processing_started_at !== "string") wrong.push("no processing_started_at (277CA A2)")
    if (claim.payer_claim_control_number !== s.payerControl) wrong.push(`payer claim number ${String(claim.payer_claim_control_number)}`)
    const remit = remits[0]
    if (remits.length !== 1 || remit === undefined) wrong.push(`${remits.length} remittances`)
    else {
      if (remit.paid_amount_cents !== s.paid) wrong.push(`paid ${String(remit.paid_amount_cents)}, expected ${s.paid}`)
      if (asArray(remit.discrepancies, "discrepancies").length > 0) wrong.push(`discrepancies ${JSON.stringify(remit.discrepancies)}`)
    }
    return wrong.length === 0 ? undefined : `claim ${s.claim}: ${wrong.join(", ")}`
  })
  const bad = checked.filter((c): c is string => c !== undefined)
  if (bad.length > 0) problems.push(`${bad.length} of ${claimCount} claims not acknowledged and paid as sent, e.g. ${bad[0]}`)

  await work.stop(server.proc, "the server")
  const logLines = completeLines(logPath)
  const serverMsOf = (requestId: string): number => {
    const line = logLines.find((l) => l.request_id === requestId)
    return typeof line?.duration_ms === "number" ? line.duration_ms : Number.NaN
  }
  const imports = windows.map(
    (w): Imported => ({
      kind: w.kind,
      bytes: w.bytes,
      ms: w.to - w.from,
      serverMs: serverMsOf(w.requestId),
      cpuMs: w.cpuMs,
      summary: asObject(w.answer.summary, "summary"),
      reads: latency(load.samples, w.from, w.to)
    })
  )
  // With readers, the baseline second too: what the server does when only reads come in.
  const profiled = readers === 0 ? windows : [{ kind: "baseline (reads only)", from: baselineStart, to: baselineStart + BASELINE_MS }, ...windows]
  const profile = flags.profile ? profileReport(profDir, round, profiled) : undefined
  return { baseline, imports, failures: load.failures(), problems, seedSeconds, ...(profile === undefined ? {} : { profile }) }
}

/** A window's phases are listed in time order up to this many segments (an import's are a few dozen; a second of reads, thousands). */
const TIMELINE_SEGMENTS = 60

/**
 * The import's phases, told apart by a frame on the sampled stack (the first match wins): the write
 * runs in its own turn of the event loop (the group-commit queue's flush), so its stack holds
 * none of the import's frames.
 */
const PHASES: ReadonlyArray<Phase> = [
  ["the write (one SQLite transaction)", /^flush lib\/adapters\/sqlite\/write-queue\.ts/],
  ["reading the file", /^parsePaced lib\/rules\/x12-import-read\.ts/],
  ["work-queue tasks and webhook deliveries of the write", / lib\/rules\/(commit|task-steps|webhook-outbox)\.ts/],
  ["SQLite reads (claims, payloads) and their decoding", /lib\/adapters\/(sql|sqlite)\//],
  ["planning: decisions and the write's steps", /lib\/rules\/(x12-import|status-check-answers)/]
]

/**
 * Each import's share of the profile (`bench/cpu-profile.ts`): the functions by self time and the
 * project's own functions by total time, `top` of each. The whole profile (also as Markdown, call
 * tree included) is copied to the system's temp folder.
 */
const profileReport = (dir: string, round: number, windows: ReadonlyArray<{ kind: string; from: number; to: number }>): string => {
  const files = readdirSync(dir)
  const json = files.find((f) => f.endsWith(".cpuprofile"))
  if (json === undefined) throw new Error("no profile written")
  for (const f of files) {
    const kept = join(tmpdir(), `encounterd-imports-round-${round}${f.endsWith(".md") ? ".md" : ".cpuprofile"}`)
    copyFileSync(join(dir, f), kept)
    console.error(`the whole profile: ${kept}`)
  }
  const table = (rows: ReadonlyArray<readonly [string, number]>, total: number) => [
    "| ms | share | function |",
    "|---:|---:|---|",
    ...rows.slice(0, top).map(([name, ms]) => `| ${fmt(ms)} | ${fmt((100 * ms) / total, 0)} % | \`${name}\` |`)
  ]
  const segments = (list: ReadonlyArray<Segment>) => list.map((t) => `${t.label.split(" ")[0]} ${fmt(t.from, 0)}–${fmt(t.to, 0)}`).join(", ")
  return windows
    .flatMap((w) => {
      // Epoch milliseconds, the profile's clock.
      const p = profileWindow(join(dir, json), performance.timeOrigin + w.from, performance.timeOrigin + w.to, root, PHASES)
      return [
        `#### ${w.kind}: a window of ${fmt(w.to - w.from)} ms at the client, ${fmt(p.sampledMs)} ms sampled on the server (${p.samples} samples)`,
        "",
        "| phase | ms | share | its functions by self time (ms) |",
        "|---|---:|---:|---|",
        ...p.phases.map(
          (ph) => `| ${ph.label} | ${fmt(ph.ms)} | ${fmt((100 * ph.ms) / p.sampledMs, 0)} % | ${ph.self.slice(0, 5).map(([f, ms]) => `\`${f}\` ${fmt(ms)}`).join(", ")} |`
        ),
        "",
        p.timeline.length <= TIMELINE_SEGMENTS
          ? `In time order (ms from the window's start; each phase by its first word; "gap": more than 10 ms without a sample, the server waiting or not scheduled): ` +
            segments(p.timeline) + "."
          : `The longest of its ${p.timeline.length} segments of one phase (ms from the window's start): ` +
            segments([...p.timeline].sort((a, b) => b.to - b.from - (a.to - a.from)).slice(0, 8)) + ".",
        "",
        "By self time:",
        "",
        ...table(p.self, p.sampledMs),
        "",
        "The project's functions by total time (on the stack when sampled):",
        "",
        ...table(p.total, p.sampledMs),
        ""
      ]
    })
    .join("\n")
}

const measure = async (): Promise<string> => {
  let binary: string | undefined
  if (!flags.source && !flags.profile) {
    binary = join(work.dir, "encounterd")
    console.error("building the binary ...")
    const built = Bun.spawnSync([process.execPath, ...buildArgs({ outfile: binary })], { cwd: root, stdout: "pipe", stderr: "pipe" })
    if (built.exitCode !== 0) throw new Error(`build failed: ${built.stderr.toString()}`)
  }
  const results: Round[] = []
  for (let r = 1; r <= rounds; r++) results.push(await runRound(r, binary))

  const all = results.flatMap((r) => r.imports)
  const slowest = (kind: string) => Math.max(...all.filter((i) => i.kind === kind).map((i) => i.ms))
  const worstP99 = Math.max(...all.map((i) => i.reads.p99))
  const fewest = Math.min(...all.map((i) => i.reads.count))
  const problems = results.flatMap((r, i) => r.problems.map((p) => `round ${i + 1}: ${p}`))
  const failures = results.reduce((n, r) => n + r.failures, 0)
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL")
  const importsOk = ["277CA", "835"].map((k) => ({ kind: k, ms: slowest(k), ok: slowest(k) < IMPORT_LIMIT_MS }))
  // With no readers there is nothing to measure: the latency requirement is not judged.
  const readsOk = readers === 0 || (worstP99 < P99_LIMIT_MS && fewest > 0)
  const ok = importsOk.every((i) => i.ok) && readsOk && problems.length === 0 && failures === 0
  if (!ok) process.exitCode = 1

  const server = flags.profile ? "bun bin/main.ts under --cpu-prof (restarted after seeding; the profiler slows it, so its times are not the requirement's)" : flags.source ? "bun bin/main.ts" : "the compiled binary (built from this checkout)"
  const ms = (n: number) => (Number.isNaN(n) ? "–" : fmt(n, 2))
  const row = (r: number, label: string, i: Imported | undefined, l: Latency) => {
    const file = i === undefined ? ["", "", "", "", ""] : [fmt(i.bytes / 1024), fmt(i.ms), fmt(i.serverMs), fmt(i.cpuMs, 0), `${String(i.summary.status_changed)} / ${String(i.summary.unchanged)}`]
    return `| ${r} | ${label} | ${file.join(" | ")} | ${l.count.toLocaleString("en-US")} | ${ms(l.p50)} | ${ms(l.p99)} | ${ms(l.max)} | ${ms(l.stall)} |`
  }
  return [
    `## Imports ${new Date().toISOString()}`,
    "",
    `${machineLine()}; ${server}, SQLite FULL, rate limit off; ${claimCount.toLocaleString("en-US")} claims a file, ${rounds} round(s), each on a fresh database and server; ` +
      `${readers} concurrent readers of \`GET /api/encounters/{id}\` (random seeded ids, back to back, from the bench process).`,
    "",
    "| round | file | KiB | import ms | server ms | server CPU ms | moved / acknowledged | reads during | read p50 ms | read p99 ms | read max ms | longest without an answer ms |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.flatMap((r, n) => [
      row(n + 1, `none (${BASELINE_MS / 1000} s before)`, undefined, r.baseline),
      ...r.imports.map((i) => row(n + 1, i.kind, i, i.reads))
    ]),
    "",
    `**import ms**: from the request's start to its answer's last byte, at the client; **server ms**: the request's own log line (\`duration_ms\`); ` +
      "**server CPU ms**: the server process's user + system time over the import (the concurrent reads' included); " +
      "**moved / acknowledged**: the answer's `summary.status_changed` / `summary.unchanged` (277CA A2: acknowledged, status unchanged; 835: moved to `paid`); " +
      "**reads during**: the readers' requests in flight at any moment of the import; " +
      "**longest without an answer**: the longest time within the window in which no read was answered (the readers send back to back, so this is how long the server's event loop was held at a stretch). " +
      `Seeding (creates, reads, 837P batches of at most ${BATCH_CLAIMS}) took ${results.map((r) => fmt(r.seedSeconds)).join(", ")} s.`,
    "",
    `- Import < ${IMPORT_LIMIT_MS} ms each: ${importsOk.map((i) => `${i.kind} slowest ${fmt(i.ms)} ms ${verdict(i.ok)}`).join("; ")}`,
    readers === 0
      ? "- Concurrent reads p99 < 50 ms: not measured (--readers 0)"
      : `- Concurrent reads p99 < ${P99_LIMIT_MS} ms during the imports: worst ${fmt(worstP99, 2)} ms over at least ${fewest} reads ${verdict(readsOk)}`,
    `- Every claim acknowledged (A2, payer claim number) and paid as sent, reads all 200: ${verdict(problems.length === 0 && failures === 0)}` +
      (failures > 0 ? ` (${failures} reads failed)` : ""),
    ...problems.map((p) => `  - ${p}`),
    ...results.flatMap((r, n) => (r.profile === undefined ? [] : ["", `### Round ${n + 1}: where the server's CPU went during each import`, "", r.profile])),
    ""
  ].join("\n")
}

await work.run(measure, "imports.md")
