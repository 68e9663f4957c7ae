/**
 * Hostile X12 files at the 10 MiB body limit against the compiled binary: is each answered (done
 * or refused) within 2 s, again and again, while two other clients' `/healthz` answer within
 * 250 ms at the 99th percentile? The four files of `test/binary/x12-bounds.test.ts` (which checks
 * what they store and answer, not how fast): a 999 of 80,000+ IK4s, a 999 acknowledging one batch
 * over and over, an 835 repeating one claim's CLP (refused), an 835 naming 130,000 claims no one
 * has. Each kind is imported at least 3 times (a fresh ISA13 each), until 200 `/healthz` requests
 * were measured during imports or 10 were sent.
 *
 *   bun bench/x12-bombs.ts [--rounds 1]
 *
 * Builds the binary the test suites use (the flags of `npm run build`) when missing, serves it on
 * a fresh SQLite file with 100 claims sent in one 837P batch, and appends a Markdown report to
 * bench/results/x12-bombs.md. Exits 1 when an answer took 2 s or more or a p99 exceeded 250 ms.
 */
import { parseArgs } from "node:util"
import { clearinghouseSettingsInput, exportablePayload } from "../test/contract/clearinghouse.contract.js"
import { api, removeTemps, runCli, startBinary, tempDb } from "../test/support/binary.js"
import { bomb835, bomb999Ik4, bomb999Sets, importsUnderLoad, repetitionsUnder, type UnderLoad } from "../test/support/x12-bombs.js"
import { appendResult, fmt, machineLine } from "./support.js"

const { values: flags } = parseArgs({ options: { rounds: { type: "string", default: "1" } } })
const rounds = Number(flags.rounds)
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer")

const LIMIT = 10 * 1024 * 1024
const CLAIMS = 100
const ANSWER_MS = 2000
const P99_MS = 250
const pcn = (i: number) => `PCN${String(i).padStart(7, "0")}`

const db = tempDb("x12-bombs-bench")
const server = await startBinary({ db, args: ["--rate-limit", "0"] })
try {
  const made = await runCli(["keys", "create", "--workspace", "default", "--scope", "claims:write"], { db })
  if (made.code !== 0) throw new Error(`keys create exited ${made.code}`)
  const key: string = made.json.key
  if ((await api(server.url, key, "/api/workspace/clearinghouse", { method: "PUT", body: clearinghouseSettingsInput })).status !== 200) {
    throw new Error("the clearinghouse settings were refused")
  }
  const claimIds: Array<string> = []
  for (let i = 0; i < CLAIMS; i++) {
    const created = await api(server.url, key, "/api/encounters", { body: exportablePayload(`bench-bombs-${i}`, pcn(i)) })
    const read = await api(server.url, key, `/api/encounters/${created.body.encounter_id}`)
    claimIds.push(read.body.latest_claim_id)
  }
  const batch = await api(server.url, key, "/api/x12/837p-batches", { body: { claim_ids: claimIds } })
  if (batch.status !== 201) throw new Error(`the 837P batch answered ${batch.status}`)
  const group: number = batch.body.group_control_number

  let icn = 700
  const atLimit = (make: (icn: number, n: number) => string) => () => {
    const control = ++icn
    return make(control, repetitionsUnder(LIMIT, (n) => make(control, n)))
  }
  const unknown = (i: number) => `UNK${String(i).padStart(7, "0")}`
  const kinds: ReadonlyArray<readonly [string, () => string]> = [
    ["999 of 80,000+ IK4s", atLimit((c, n) => bomb999Ik4(c, group, n))],
    ["999 acknowledging one batch over and over", atLimit((c, n) => bomb999Sets(c, group, n))],
    ["835 repeating one claim's CLP (refused)", atLimit((c, n) => bomb835(c, n, () => pcn(0)))],
    ["835 naming 130,000 claims no one has", atLimit((c, n) => bomb835(c, n, unknown))]
  ]

  const rows: Array<string> = []
  let failed = false
  for (let round = 1; round <= rounds; round++) {
    for (const [label, next] of kinds) {
      console.error(`${label}, round ${round}/${rounds} ...`)
      const r: UnderLoad = await importsUnderLoad(server.url, key, next)
      const times = r.answers.map((a) => a.ms)
      const slowest = Math.max(...times)
      const ok = slowest < ANSWER_MS && r.p99 <= P99_MS && r.latencies.length >= 100
      failed ||= !ok
      rows.push(
        `| ${label} | ${round} | ${[...new Set(r.answers.map((a) => a.status))].join(", ")} | ${times.map((t) => fmt(t, 0)).join(", ")} | ${fmt(slowest, 0)} | ${fmt(r.p99)} | ${r.latencies.length} | ${ok ? "PASS" : "FAIL"} |`
      )
    }
  }
  const report = [
    `## Hostile X12 files at the 10 MiB limit, ${new Date().toISOString()}`,
    "",
    `${machineLine()}; the compiled binary on a SQLite file (FULL), rate limit off; ${rounds} round${rounds === 1 ? "" : "s"}.`,
    "",
    `| file | round | answered | each import (ms) | slowest (ms, < ${ANSWER_MS}) | /healthz p99 ms (≤ ${P99_MS}) | /healthz requests measured (≥ 100) | result |`,
    "|---|---:|---|---|---:|---:|---:|---|",
    ...rows
  ].join("\n")
  console.log(report)
  console.error(`appended to ${appendResult("x12-bombs.md", report)}`)
  if (failed) process.exitCode = 1
} finally {
  await server.stop()
  removeTemps()
}
