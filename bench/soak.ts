/**
 * Soak: does memory stay bounded? Sends 200,000 mixed requests (valid creates, replays, invalid
 * payloads, hostile bodies, reads, refusals) to the compiled binary on loopback and compares the
 * server's peak resident set (VmHWM) after the first 20,000 with its peak at the end. The
 * requirement: the end peak is within 20 % of the 20,000 peak.
 *
 *   bun bench/soak.ts [--requests 200000] [--warmup 20000] [--connections 32] [--max-seconds 900]
 *
 * Builds the binary from this checkout into a temp folder first (the flags of `npm run build`).
 * Prints a Markdown report, appended to bench/results/soak.md; exits 1 when the requirement fails,
 * when any answer is a 5xx, or when the time bound stops the run early.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { buildArgs } from "../scripts/build-args.js"
import { validPayload } from "../test/support/payloads.js"
import { fmt, machineLine, root, scratch } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    requests: { type: "string", default: "200000" },
    warmup: { type: "string", default: "20000" },
    connections: { type: "string", default: "32" },
    "max-seconds": { type: "string", default: "900" }
  }
})
const total = Number(flags.requests)
const warmup = Number(flags.warmup)
const connections = Number(flags.connections)
const maxSeconds = Number(flags["max-seconds"])
for (const [name, v] of Object.entries({ total, warmup, connections, maxSeconds })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`)
}
if (warmup >= total) throw new Error("--warmup must be below --requests")

const LIMIT = 1.2
const work = scratch("encounterd-soak-")

const status = (pid: number, field: "VmRSS" | "VmHWM"): number => {
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
  if (kb === undefined) throw new Error(`no ${field} for ${pid}`)
  return Number(kb) / 1024
}

type Kind = "create" | "replay" | "invalid" | "hostile" | "read" | "refused"
/** Twenty slots: 25 % creates, 15 % replays, 15 % invalid, 10 % hostile, 30 % reads, 5 % refusals. */
const SLOTS: ReadonlyArray<Kind> = [
  ...Array<Kind>(5).fill("create"), ...Array<Kind>(3).fill("replay"), ...Array<Kind>(3).fill("invalid"),
  ...Array<Kind>(2).fill("hostile"), ...Array<Kind>(6).fill("read"), "refused"
]

const invalidPayload = (i: number): unknown => {
  const p = validPayload(`soak-invalid-${i}`)
  switch (i % 4) {
    case 0: return { ...p, billing_provider: { ...(p.billing_provider as object), npi: "1234567890" } }
    case 1: return { ...p, diagnoses: [] }
    case 2: return { ...p, patient: { ...(p.patient as object), date_of_birth: "1984-02-31" } }
    default: return { ...p, service_lines: [{ procedure_code: "99213", quantity: "-1", units: "XX", diagnosis_pointers: [7], charge_amount_cents: -5 }] }
  }
}

const hostileBody = (i: number): { body: string | Blob; type: string } => {
  switch (i % 6) {
    case 0: return { body: "{", type: "application/json" }
    case 1: return { body: "[".repeat(5000) + "]".repeat(5000), type: "application/json" }
    case 2: return { body: JSON.stringify(validPayload(`soak-huge-${i}`, { appointment_type: "x".repeat(60_000) })), type: "application/json" }
    case 3: return { body: new Blob([new Uint8Array(2048).map((_, n) => (n * 131 + i) & 0xff)]), type: "application/json" }
    case 4: return { body: JSON.stringify(validPayload(`soak-type-${i}`)), type: "text/plain" }
    default: return { body: `{"external_id":"soak-${i}","__proto__":{"x":1},"patient":null}`, type: "application/json" }
  }
}

const measure = async (): Promise<string> => {
  const binary = join(work.dir, "encounterd")
  console.error("building the binary ...")
  const built = Bun.spawnSync([process.execPath, ...buildArgs({ outfile: binary })], { cwd: root, stdout: "pipe", stderr: "pipe" })
  if (built.exitCode !== 0) throw new Error(`build failed: ${built.stderr.toString()}`)
  const db = join(work.dir, "soak.sqlite")
  const server = await work.serve([binary, "serve", "--port", "0", "--db", db, "--rate-limit", "0"], "serve.log", true)
  const key = server.key
  if (key === undefined) throw new Error("no first-run key")
  const auth = { authorization: `Bearer ${key}` }

  const created: Array<{ id: string; externalId: string }> = []
  const statuses = new Map<number, number>()
  const byKind = new Map<Kind, number>()
  let next = 0
  let done = 0
  let failures = 0
  let peakRss = 0
  let atWarmup: { hwm: number; rss: number; seconds: number } | undefined
  const started = performance.now()
  const deadline = started + maxSeconds * 1000
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, status(server.pid, "VmRSS"))
  }, 250)

  const one = async (i: number): Promise<number> => {
    const kind = SLOTS[i % SLOTS.length]!
    // Which variant of its kind: the round, so that every variant comes up.
    const j = Math.floor(i / SLOTS.length)
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1)
    const post = (body: BodyInit, type = "application/json") =>
      fetch(`${server.url}/api/encounters`, { method: "POST", headers: { ...auth, "content-type": type }, body })
    const pick = () => created[(i * 7919) % Math.max(1, created.length)]
    switch (kind) {
      case "create": {
        const externalId = `soak-${i}`
        const r = await post(JSON.stringify(validPayload(externalId)))
        const text = await r.text()
        if (r.status === 202) created.push({ id: JSON.parse(text).encounter_id, externalId })
        return r.status
      }
      case "replay": {
        const c = pick()
        const r = await post(JSON.stringify(validPayload(c?.externalId ?? `soak-early-${i}`)))
        await r.arrayBuffer()
        return r.status
      }
      case "invalid": {
        const r = await post(JSON.stringify(invalidPayload(j)))
        await r.arrayBuffer()
        return r.status
      }
      case "hostile": {
        const h = hostileBody(j)
        const r = await post(h.body, h.type)
        await r.arrayBuffer()
        return r.status
      }
      case "read": {
        const c = pick()
        const paths = [`/encounters/${c?.id ?? "none"}`, "/encounters?limit=20", "/api/encounters/compat-version/events?limit=20",
          `/api/encounters/compat-version/${c?.id ?? "none"}`, `/encounters?external_id=${c?.externalId ?? "none"}`, "/api/workspace"]
        const r = await fetch(`${server.url}${paths[(i + j) % paths.length]}`, { headers: auth })
        await r.arrayBuffer()
        return r.status
      }
      case "refused": {
        const refusals: Array<[string, RequestInit]> = [["/api/workspace", { headers: { authorization: "Bearer eik_wrong" } }],
          ["/no/such/route", { headers: auth }], ["/encounters?page_token=%%%", { headers: auth }], ["/healthz", { method: "DELETE" }]]
        const [path, init] = refusals[j % refusals.length]!
        const r = await fetch(`${server.url}${path}`, init)
        await r.arrayBuffer()
        return r.status
      }
    }
  }

  const worker = async () => {
    while (next < total && performance.now() < deadline) {
      const i = next++
      try {
        const s = await one(i)
        statuses.set(s, (statuses.get(s) ?? 0) + 1)
      } catch {
        failures++
      }
      done++
      if (done === warmup) {
        atWarmup = { hwm: status(server.pid, "VmHWM"), rss: status(server.pid, "VmRSS"), seconds: (performance.now() - started) / 1000 }
        console.error(`${warmup} requests: VmHWM ${fmt(atWarmup.hwm)} MiB`)
      }
      if (done % 20_000 === 0) console.error(`${done} requests, VmRSS ${fmt(status(server.pid, "VmRSS"))} MiB`)
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  clearInterval(sampler)
  const seconds = (performance.now() - started) / 1000
  const end = { hwm: status(server.pid, "VmHWM"), rss: status(server.pid, "VmRSS") }
  await work.stop(server.proc, "the server")

  if (atWarmup === undefined) throw new Error(`stopped by --max-seconds before ${warmup} requests`)
  const ratio = end.hwm / atWarmup.hwm
  const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0)
  const complete = done >= total
  const ok = complete && ratio <= LIMIT && fivexx === 0 && failures === 0
  if (!ok) process.exitCode = 1
  const statusList = [...statuses].sort(([a], [b]) => a - b).map(([s, c]) => `${s}: ${c.toLocaleString("en-US")}`).join(", ")
  const kinds = [...byKind].map(([k, c]) => `${k} ${c.toLocaleString("en-US")}`).join(", ")
  return [
    `## Soak ${new Date().toISOString()}`,
    "",
    `${machineLine()}; ${connections} connections; the compiled binary, SQLite FULL, rate limit off.`,
    "",
    "| requests | seconds | peak RSS after the first " + warmup.toLocaleString("en-US") + " (MiB) | peak RSS at the end (MiB) | ratio | requirement | RSS at the end (MiB) |",
    "|---:|---:|---:|---:|---:|---|---:|",
    `| ${done.toLocaleString("en-US")} | ${fmt(seconds)} | ${fmt(atWarmup.hwm)} | ${fmt(end.hwm)} | ${fmt(ratio, 3)} | ≤ ${LIMIT}: ${ratio <= LIMIT ? "met" : "NOT met"} | ${fmt(end.rss)} |`,
    "",
    `Mix: ${kinds}. Answers: ${statusList}; 5xx: ${fivexx}; transport failures: ${failures}; highest VmRSS sampled every 250 ms: ${fmt(peakRss)} MiB.` +
      (complete ? "" : ` Stopped by --max-seconds after ${done} requests.`),
    ""
  ].join("\n")
}

await work.run(measure, "soak.md")
