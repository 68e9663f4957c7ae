/**
 * What the load bench's later scenarios need from a target before and after a run: a key that may
 * change claim statuses, the claims of the seeded encounters, the request sequence that moves
 * each of them to a new status, the pages of the event feed (to poll by `next_page_token`), and
 * the server's CPU time (to report CPU per request beside req/s).
 */
import { readFileSync } from "node:fs"
import { root } from "./support.js"

/** One request of a cycled sequence: a path and, for a POST, its body; its method when not the scenario's. */
export interface SequencedRequest {
  readonly path: string
  readonly body?: string
  readonly method?: "GET" | "POST"
}

const get = async (url: string, key: string, path: string): Promise<Record<string, unknown>> => {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text}`)
  const body: unknown = JSON.parse(text)
  if (typeof body !== "object" || body === null) throw new Error(`GET ${path}: not a JSON object`)
  return { ...body }
}

const itemsOf = (page: Record<string, unknown>): ReadonlyArray<Record<string, unknown>> =>
  Array.isArray(page.items) ? page.items.filter((i): i is Record<string, unknown> => typeof i === "object" && i !== null) : []

/** The next page's path, or undefined on the last page. */
const nextPath = (base: string, page: Record<string, unknown>): string | undefined =>
  typeof page.next_page_token === "string" ? `${base}&page_token=${encodeURIComponent(page.next_page_token)}` : undefined

/** A `claims:write` key for encounterd's default workspace, made by its own CLI (`encounterd`: the command before its arguments) on the served database. */
export const encounterdWriteKey = (encounterd: ReadonlyArray<string>, db: string): string => {
  const cmd = [...encounterd, "keys", "create", "--workspace", "default", "--scope", "claims:write", "--db", db]
  const r = Bun.spawnSync(cmd, { cwd: root })
  const out = new TextDecoder().decode(r.stdout)
  const start = out.indexOf("{")
  const parsed: unknown = start < 0 ? undefined : JSON.parse(out.slice(start))
  const key = typeof parsed === "object" && parsed !== null && "key" in parsed ? parsed.key : undefined
  if (r.exitCode !== 0 || typeof key !== "string") {
    throw new Error(`keys create failed (${r.exitCode}): ${out}${new TextDecoder().decode(r.stderr)}`)
  }
  return key
}

/** The latest claim of each of the newest `count` encounters, newest first (pages of 100). */
export const latestClaims = async (url: string, key: string, count: number): Promise<string[]> => {
  const base = "/api/encounters?limit=100"
  const claims: string[] = []
  let path: string | undefined = base
  while (path !== undefined && claims.length < count) {
    const page = await get(url, key, path)
    for (const item of itemsOf(page)) if (typeof item.latest_claim_id === "string") claims.push(item.latest_claim_id)
    path = nextPath(base, page)
  }
  return claims.slice(0, count)
}

/** The two statuses a claim alternates between; each is allowed from the other by the transition table. */
export const STATUS_CYCLE = ["missing_information", "draft"] as const

/**
 * Every claim to the first status, then every claim back to the second: a sequence in which each
 * request really changes its claim's status (a claim recurs only after all the others), starting
 * from claims in `draft`. Threads that take every n-th entry each keep to their own claims when
 * the claim count is a multiple of the thread count.
 */
export const statusSequence = (claims: ReadonlyArray<string>): SequencedRequest[] =>
  STATUS_CYCLE.flatMap((status) => claims.map((id) => ({ path: `/api/claims/${id}/status`, body: JSON.stringify({ status }) })))

/** Puts every claim back in `draft` after a run stopped part-way through the sequence (a no-op for those already there). */
export const resetClaims = async (url: string, key: string, claims: ReadonlyArray<string>): Promise<void> => {
  let next = 0
  const worker = async () => {
    while (next < claims.length) {
      const id = claims[next++] ?? ""
      const res = await fetch(`${url}/api/claims/${id}/status`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ status: "draft" })
      })
      const text = await res.text()
      if (res.status !== 200) throw new Error(`reset of claim ${id}: ${res.status} ${text}`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(16, claims.length) }, worker))
}

/** The paths of the event feed's first `pages` pages of `limit`, each reached by the previous page's `next_page_token`. */
export const feedPages = async (url: string, key: string, pages: number, limit = 100): Promise<SequencedRequest[]> => {
  const base = `/api/encounters/compat-version/events?limit=${limit}`
  const out: SequencedRequest[] = []
  let path: string | undefined = base
  while (path !== undefined && out.length < pages) {
    out.push({ path })
    path = nextPath(base, await get(url, key, path))
  }
  return out
}

/** The kernel's clock ticks per second, the unit of utime and stime in /proc/<pid>/stat. */
const TICKS = Number(new TextDecoder().decode(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout).trim()) || 100

/** A process's CPU time so far (user + system), in microseconds. */
export const cpuMicros = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // Fields after the command name (which may hold spaces), closed by the last ')': utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1e6
}

/** The share of each kind of request in the mixed scenario, in percent. */
export const MIX = { read: 60, list: 20, create: 10, move: 5, poll: 5 } as const

/**
 * The mixed workload as one cycled sequence of `length` requests, in a random order: reads of
 * random seeded encounters, list pages, creates of new encounters (a fresh external_id each, made
 * from `createBody`), claim status moves and event polls, in the shares of `MIX`. Each moved claim
 * goes to missing_information and, half a cycle later, back to draft (no claim is moved twice in a
 * row, so every move is allowed); a claim is moved at most once per cycle.
 */
export const mixedSequence = (
  ids: ReadonlyArray<string>,
  claims: ReadonlyArray<string>,
  createBody: (n: number) => string,
  length: number
): SequencedRequest[] => {
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(Math.random() * xs.length)] as A
  const moves = Math.min(Math.floor((length * MIX.move) / 100 / 2), claims.length)
  const kinds: Array<"read" | "list" | "create" | "poll"> = []
  for (const kind of ["read", "list", "create", "poll"] as const) {
    for (let i = 0; i < Math.round((length * MIX[kind]) / 100); i++) kinds.push(kind)
  }
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    const a = kinds[i]!
    kinds[i] = kinds[j]!
    kinds[j] = a
  }
  let created = 0
  const out: SequencedRequest[] = kinds.map((kind) => {
    switch (kind) {
      case "read":
        return { path: `/api/encounters/${pick(ids)}`, method: "GET" }
      case "list":
        return { path: "/api/encounters?limit=100", method: "GET" }
      case "poll":
        return { path: "/api/encounters/compat-version/events?limit=100", method: "GET" }
      case "create":
        return { path: "/api/encounters", method: "POST", body: createBody(created++) }
    }
  })
  // Moves at evenly spread places: claim k forward in the first half, back in the second.
  const half = Math.floor(out.length / 2)
  const claimList = claims.slice(0, moves)
  claimList.forEach((id, k) => {
    const at = Math.floor((k * half) / Math.max(1, moves))
    out.splice(at + k, 0, { path: `/api/claims/${id}/status`, method: "POST", body: JSON.stringify({ status: STATUS_CYCLE[0] }) })
  })
  const middle = Math.floor(out.length / 2)
  claimList.forEach((id, k) => {
    const at = middle + Math.floor((k * (out.length - middle)) / Math.max(1, moves))
    out.splice(Math.min(out.length, at + k), 0, { path: `/api/claims/${id}/status`, method: "POST", body: JSON.stringify({ status: STATUS_CYCLE[1] }) })
  })
  return out
}
