/**
 * What walking a whole list costs, page by page: every page read once, none of them kept (the
 * list holds far more encounters than the 256 renders kept), the case where nothing a page holds
 * helps and only what it costs to find out shows. Beside it, the first page read over and over,
 * where the kept renders are held. With `--baseline REV` each run alternates with REV's build.
 *
 *   bun bench/list-walk.ts [--encounters 10000] [--walkers 4] [--rounds 3] [--repeats 400] [--baseline REV] [--binary]
 *
 * Each build runs as one server on its own fresh SQLite file with `--encounters` encounters made
 * through its API. A round, for each of the normalized and the compat list: `--walkers` clients at
 * once each follow `next_page_token` from the first page to the last (pages of 100), then the same
 * clients read the first page `--repeats` times in all; the server's CPU time (`/proc`, utime +
 * stime) over each part, divided by the pages answered. `--binary` runs `dist/encounterd` (and
 * REV's own binary, built in its worktree); otherwise both run from source. Appends a Markdown
 * report to bench/results/list-walk.md.
 */
import { join } from "node:path"
import { parseArgs } from "node:util"
import { baselineSource, buildBaselineBinary, createEncounters, encounterdCommand, ensureBinary, fmt, machineLine, scratch } from "./support.js"
import { cpuMicros } from "./scenario-data.js"

const { values: flags } = parseArgs({
  options: {
    encounters: { type: "string", default: "10000" },
    walkers: { type: "string", default: "4" },
    rounds: { type: "string", default: "3" },
    repeats: { type: "string", default: "400" },
    baseline: { type: "string" },
    binary: { type: "boolean", default: false }
  }
})
const count = Number(flags.encounters)
const walkers = Number(flags.walkers)
const rounds = Number(flags.rounds)
const repeats = Number(flags.repeats)
for (const [name, value] of [["--encounters", count], ["--walkers", walkers], ["--rounds", rounds], ["--repeats", repeats]] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`)
}

const LISTS = [
  ["normalized", "/api/encounters"],
  ["compat", "/api/encounters/compat-version"]
] as const

interface Target {
  readonly label: string
  readonly url: string
  readonly key: string
  readonly proc: Bun.Subprocess
}

/** Pages read, following the tokens from `token` (the first page when null) to the end. */
const walk = async (t: Target, path: string): Promise<number> => {
  let token: string | null = null
  let pages = 0
  do {
    const query: string = token === null ? "" : `&page_token=${encodeURIComponent(token)}`
    const res = await fetch(`${t.url}${path}?limit=100${query}`, { headers: { authorization: `Bearer ${t.key}` } })
    const body = (await res.json()) as { readonly next_page_token?: string | null; readonly items?: ReadonlyArray<unknown> }
    if (res.status !== 200 || body.items === undefined || body.items.length === 0) throw new Error(`${t.label}: ${path} answered ${res.status}`)
    token = body.next_page_token ?? null
    pages++
  } while (token !== null)
  return pages
}

/** The first page, `times` reads shared between the walkers. */
const firstPages = async (t: Target, path: string, times: number): Promise<number> => {
  let left = times
  const reader = async () => {
    while (left-- > 0) {
      const res = await fetch(`${t.url}${path}?limit=100`, { headers: { authorization: `Bearer ${t.key}` } })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`${t.label}: ${path} answered ${res.status}`)
    }
  }
  await Promise.all(Array.from({ length: walkers }, reader))
  return times
}

/** CPU µs a page of `work` on `t`. */
const measure = async (t: Target, load: () => Promise<number>): Promise<number> => {
  const before = cpuMicros(t.proc.pid)
  const pages = await load()
  return (cpuMicros(t.proc.pid) - before) / pages
}

const work = scratch("encounterd-list-walk-")
await work.run(async () => {
  if (flags.binary) ensureBinary()
  const baseline = flags.baseline === undefined ? undefined : baselineSource(work.dir, flags.baseline)
  try {
    const commands: Array<readonly [string, (args: ReadonlyArray<string>) => Array<string>]> = [["this checkout", (args) => encounterdCommand(flags.binary, args)]]
    if (baseline !== undefined) {
      const binary = flags.binary ? buildBaselineBinary(baseline.root) : undefined
      commands.push([`encounterd@${flags.baseline}`, (args) => (binary !== undefined ? [binary, ...args] : [process.execPath, join(baseline.root, "bin/main.ts"), ...args])])
    }
    const targets: Array<Target> = []
    for (const [i, [label, command]] of commands.entries()) {
      const server = await work.serve(command(["serve", "--port", "0", "--db", join(work.dir, `walk-${i}.sqlite`), "--rate-limit", "0"]), `server-${i}.log`, true)
      await createEncounters(server.url, server.key ?? "", Array.from({ length: count }, (_, n) => `walk-${n}`), `${label}: seed`)
      targets.push({ label, url: server.url, key: server.key ?? "", proc: server.proc })
    }
    const results = new Map<string, { walk: Array<number>; first: Array<number> }>()
    for (let round = 0; round < rounds; round++) {
      for (const [list, path] of LISTS) {
        // Each round starts one build further along, so none always runs first.
        for (let k = 0; k < targets.length; k++) {
          const t = targets[(k + round) % targets.length]!
          console.error(`round ${round + 1}: ${t.label}, ${list} ...`)
          const entry = results.get(`${t.label} ${list}`) ?? { walk: [], first: [] }
          entry.walk.push(await measure(t, async () => (await Promise.all(Array.from({ length: walkers }, () => walk(t, path)))).reduce((a, b) => a + b, 0)))
          entry.first.push(await measure(t, () => firstPages(t, path, repeats)))
          results.set(`${t.label} ${list}`, entry)
        }
      }
    }
    for (const t of targets) await work.stop(t.proc, t.label)
    const pagesWalked = walkers * Math.ceil(count / 100)
    return [
      `## A whole list walked, and its first page over and over, ${new Date().toISOString()}`,
      "",
      `${machineLine()}; ${flags.binary ? "binaries" : "from source"}; ${count} encounters per server; ${walkers} clients at once walking every page of 100 (${pagesWalked} pages a walk), then reading the first page ${repeats} times; ${rounds} round(s), the builds alternated.`,
      "",
      "| build | list | CPU µs a page, every page once (each round) | CPU µs a page, the first page again (each round) |",
      "|---|---|---|---|",
      ...[...results.entries()].map(([name, r]) => {
        const [build, list] = [name.slice(0, name.lastIndexOf(" ")), name.slice(name.lastIndexOf(" ") + 1)]
        return `| ${build} | ${list} | ${r.walk.map((v) => fmt(v, 0)).join(", ")} | ${r.first.map((v) => fmt(v, 0)).join(", ")} |`
      }),
      "",
      "CPU: the server's (utime + stime from /proc, 10 ms ticks) over the part, divided by the pages it answered.",
      ""
    ].join("\n")
  } finally {
    baseline?.remove()
  }
}, "list-walk.md")
