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
import { removeTemps, startBinary, tempDb } from "../test/support/binary.js"
import { bombPcn, filesAtLimit, prepareBombTarget, unknownPcn } from "../test/support/x12-bomb-target.js"
import { bomb835, bomb999Ik4, bomb999Sets, importsUnderLoad, type UnderLoad } from "../test/support/x12-bombs.js"
import { appendResult, fmt, machineLine } from "./support.js"

const { values: flags } = parseArgs({ options: { rounds: { type: "string", default: "1" } } })
const rounds = Number(flags.rounds)
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer")

const ANSWER_MS = 2000
const P99_MS = 250

const db = tempDb("x12-bombs-bench")
const server = await startBinary({ db, args: ["--rate-limit", "0"] })
try {
  const { key, group } = await prepareBombTarget(server.url, db, 100, "bench-bombs")
  const atLimit = filesAtLimit()
  const kinds: ReadonlyArray<readonly [string, () => string]> = [
    ["999 of 80,000+ IK4s", atLimit((c, n) => bomb999Ik4(c, group, n))],
    ["999 acknowledging one batch over and over", atLimit((c, n) => bomb999Sets(c, group, n))],
    ["835 repeating one claim's CLP (refused)", atLimit((c, n) => bomb835(c, n, () => bombPcn(0)))],
    ["835 naming 130,000 claims no one has", atLimit((c, n) => bomb835(c, n, unknownPcn))]
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
