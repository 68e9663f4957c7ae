/**
 * Start-up time on an existing database: is the binary ready to serve within 150 ms of start?
 *
 *   bun bench/startup.ts [--runs 10] [--encounters 1000]
 *
 * Builds dist/encounterd if missing, prepares a SQLite file (first run, then `encounters` creates
 * through the API) and then, `runs` times each, alternating, starts `dist/encounterd serve` and
 * `bun bin/main.ts serve` on it and polls `GET /readyz` (ready: the database answers) every 2 ms
 * until it answers 200. The time is from just before the spawn to that first 200. Each server is
 * stopped with SIGTERM and must exit 0. Prints a Markdown report, appended to bench/results/startup.md.
 */
import { join } from "node:path"
import { parseArgs } from "node:util"
import { createEncounters, encounterdCommand, ensureBinary, fmt, machineLine, percentile, root, scratch, stopServer } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    runs: { type: "string", default: "10" },
    encounters: { type: "string", default: "1000" }
  }
})
const runs = Number(flags.runs)
const encounters = Number(flags.encounters)
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a positive integer")
if (!Number.isInteger(encounters) || encounters < 0) throw new Error("--encounters must be a non-negative integer")

/** The requirement for the binary. */
const TARGET_MS = 150
const POLL_MS = 2
const GIVE_UP_MS = 30_000

ensureBinary()
const work = scratch("encounterd-startup-")
const file = join(work.dir, "startup.sqlite")

/** An existing database: the first run's workspace and key, and `encounters` encounters. */
const prepare = async (): Promise<void> => {
  const server = await work.serve(encounterdCommand(true, ["serve", "--port", "0", "--db", file, "--rate-limit", "0"]), "setup.log", true)
  const key = server.key
  if (key === undefined) throw new Error("no first-run key")
  await createEncounters(server.url, key, Array.from({ length: encounters }, (_, n) => `startup-${n}`), "create")
  await work.stop(server.proc, "the setup server")
}

/** A port free right now (bound and released). */
const freePort = (): number => {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) })
  const port = probe.port
  void probe.stop(true)
  if (port === undefined) throw new Error("no free port")
  return port
}

interface Variant {
  readonly label: string
  readonly binary: boolean
  readonly times: number[]
}

/** One start: milliseconds from just before the spawn to the first 200 from /readyz. */
const startOnce = async (variant: Variant, counted: boolean): Promise<void> => {
  const port = freePort()
  const cmd = encounterdCommand(variant.binary, ["serve", "--port", String(port), "--db", file])
  const url = `http://127.0.0.1:${port}/readyz`
  const started = performance.now()
  const proc = Bun.spawn(cmd, { cwd: root, stdout: "ignore", stderr: "pipe" })
  work.running.add(proc)
  try {
    let elapsed: number | undefined
    while (elapsed === undefined) {
      const attempt = performance.now()
      if (attempt - started > GIVE_UP_MS) throw new Error(`${variant.label}: not ready within ${GIVE_UP_MS / 1000} s`)
      if (proc.exitCode !== null) throw new Error(`${variant.label} exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`)
      try {
        const res = await fetch(url)
        await res.arrayBuffer()
        if (res.status === 200) elapsed = performance.now() - started
      } catch {
        // Not listening yet.
      }
      const wait = POLL_MS - (performance.now() - attempt)
      if (elapsed === undefined && wait > 0) await Bun.sleep(wait)
    }
    if (counted) variant.times.push(elapsed)
  } finally {
    const code = await stopServer(proc)
    work.running.delete(proc)
    if (code !== 0) throw new Error(`${variant.label} did not exit 0 on SIGTERM (${code}): ${await new Response(proc.stderr).text()}`)
  }
}

const main = async (): Promise<string> => {
  console.error(`preparing ${file} with ${encounters} encounters...`)
  await prepare()
  const variants: Variant[] = [
    { label: "binary (dist/encounterd)", binary: true, times: [] },
    { label: "source (bun bin/main.ts)", binary: false, times: [] }
  ]
  // One start each not counted (file caches), then the variants in turn.
  for (const v of variants) await startOnce(v, false)
  for (let i = 0; i < runs; i++) {
    for (const v of variants) await startOnce(v, true)
    console.error(`  run ${i + 1}/${runs}: ${variants.map((v) => `${v.label} ${fmt(v.times.at(-1) ?? Number.NaN, 1)} ms`).join(", ")}`)
  }
  const rows = variants.map((v) => {
    const sorted = [...v.times].sort((a, b) => a - b)
    const min = sorted[0] ?? Number.NaN
    const median = percentile(sorted, 50)
    const max = sorted[sorted.length - 1] ?? Number.NaN
    const within = `${median <= TARGET_MS ? "yes" : "no"} / ${max <= TARGET_MS ? "yes" : "no"}`
    return `| ${v.label} | ${v.times.length} | ${fmt(min, 1)} | ${fmt(median, 1)} | ${fmt(max, 1)} | ${within} |`
  })
  return [
    `## Start-up, ${new Date().toISOString()}`,
    "",
    `| server | starts | min ms | median ms | max ms | within ${TARGET_MS} ms (median / max) |`,
    "|---|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    `From just before the spawn to the first 200 from GET /readyz (polled every ${POLL_MS} ms), on an existing SQLite ` +
      `database of ${encounters.toLocaleString("en-US")} encounters; one uncounted start of each first, then the two in turn; ` +
      `every server stopped with SIGTERM and exited 0. The ${TARGET_MS} ms requirement is the binary's. Machine: ${machineLine()}.`,
    ""
  ].join("\n")
}

await work.run(main, "startup.md")
