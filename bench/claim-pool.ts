/**
 * The claims the load bench's work queue and correction scenarios need: encounters of their own,
 * created through the API, whose claims are moved `draft -> submitted_to_payer -> rejected` with the
 * status API (`POST /api/claims/{id}/status`), as a payer's rejection moves them. Each rejected
 * claim is the encounter's latest and has an open `rejection_resolution` task (the rows of the task
 * list), and takes a `resubmit` correction (the correction scenario's requests). A correction makes
 * a new `draft` claim the encounter's latest and closes the old claim's task; `refillPool` moves
 * that new claim to `rejected` in turn, which opens its task, so the next run finds a whole pool.
 */
import { validPayload } from "../test/support/payloads.js"
import type { SequencedRequest } from "./scenario-data.js"

export interface ClaimPool {
  /** The pool's encounters, in the order they were made. */
  readonly encounters: string[]
  /** The latest claim of each (same order), rejected and not corrected yet. */
  readonly claims: string[]
}

/** The statuses a pool claim is moved through from `draft`: sent to the payer, then rejected (a task opens). */
export const REJECTION = ["submitted_to_payer", "rejected"] as const

/** Requests in flight during setup: enough that encounterd's grouped commits (one fsync for many) keep up. */
const WIDTH = 32

type Json = Record<string, unknown>

const call = async (url: string, key: string, method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; json: Json; text: string }> => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await res.text()
  let json: Json = {}
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === "object" && parsed !== null) json = { ...parsed }
  } catch {
    // Not JSON: the caller reports the status and the text.
  }
  return { status: res.status, json, text }
}

/** Runs `work` for every index below `count`, `WIDTH` at a time; the first failure stops the rest. */
const forEachIndex = async (count: number, work: (i: number) => Promise<void>): Promise<void> => {
  let next = 0
  let failed = false
  const worker = async () => {
    while (!failed && next < count) {
      const i = next++
      try {
        await work(i)
      } catch (e) {
        failed = true
        throw e
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(WIDTH, count) }, worker))
}

/** Moves a draft claim through `REJECTION` (the key needs `claims:write`). */
const reject = async (url: string, writeKey: string, claimId: string): Promise<void> => {
  for (const status of REJECTION) {
    const r = await call(url, writeKey, "POST", `/api/claims/${claimId}/status`, { status })
    if (r.status !== 200) throw new Error(`claim ${claimId} to ${status}: ${r.status} ${r.text}`)
  }
}

interface LatestClaim {
  readonly id: string
  readonly status: string
}

/**
 * The latest claim of every encounter whose external id starts with `prefix`, by encounter id: the
 * encounter list filtered by `external_id_prefix`, pages of 100 (one request per 100 encounters).
 */
const latestClaims = async (url: string, key: string, prefix: string): Promise<Map<string, LatestClaim>> => {
  const base = `/api/encounters?limit=100&external_id_prefix=${encodeURIComponent(prefix)}`
  const out = new Map<string, LatestClaim>()
  let path: string | undefined = base
  while (path !== undefined) {
    const r = await call(url, key, "GET", path)
    if (r.status !== 200 || !Array.isArray(r.json.items)) throw new Error(`GET ${path}: ${r.status} ${r.text.slice(0, 300)}`)
    for (const item of r.json.items) {
      const latest: unknown = typeof item === "object" && item !== null && "latest_claim" in item ? item.latest_claim : undefined
      const encounterId: unknown = typeof item === "object" && item !== null && "id" in item ? item.id : undefined
      const id = typeof latest === "object" && latest !== null && "id" in latest ? latest.id : undefined
      const status = typeof latest === "object" && latest !== null && "status" in latest ? latest.status : undefined
      if (typeof encounterId !== "string" || typeof id !== "string" || typeof status !== "string") throw new Error(`GET ${path}: an item without its latest claim`)
      out.set(encounterId, { id, status })
    }
    const next = r.json.next_page_token
    path = typeof next === "string" ? `${base}&page_token=${encodeURIComponent(next)}` : undefined
  }
  return out
}

/**
 * Grows `pool` to `size` claims: a new encounter per missing claim (external id `prefix` + n, made
 * with `key`), whose claim is then moved to `rejected` with `writeKey`. `prefix` must be the pool's
 * alone: the claims are read back by it.
 */
export const growPool = async (url: string, key: string, writeKey: string, pool: ClaimPool, size: number, prefix: string): Promise<void> => {
  const from = pool.encounters.length
  if (size <= from) return
  await forEachIndex(size - from, async (k) => {
    const n = from + k
    const created = await call(url, key, "POST", "/api/encounters", validPayload(`${prefix}${n}`))
    const id = created.json.encounter_id
    if (created.status !== 202 || typeof id !== "string") throw new Error(`pool encounter ${prefix}${n}: ${created.status} ${created.text}`)
    pool.encounters[n] = id
  })
  const claims = await latestClaims(url, key, prefix)
  await forEachIndex(size - from, async (k) => {
    const n = from + k
    const claim = claims.get(pool.encounters[n] ?? "")
    if (claim === undefined || claim.status !== "draft") throw new Error(`pool encounter ${pool.encounters[n]}: latest claim ${JSON.stringify(claim)}, not a draft`)
    await reject(url, writeKey, claim.id)
    pool.claims[n] = claim.id
  })
}

/**
 * After a correction run: every encounter whose latest claim is no longer the pool's (a correction
 * made a new `draft` one) has that claim moved to `rejected` and put in the pool in its place.
 * Answers how many had been corrected; a latest claim in any other state stops the bench.
 */
export const refillPool = async (url: string, key: string, writeKey: string, pool: ClaimPool, prefix: string): Promise<number> => {
  const claims = await latestClaims(url, key, prefix)
  let corrected = 0
  await forEachIndex(pool.encounters.length, async (i) => {
    const latest = claims.get(pool.encounters[i] ?? "")
    if (latest === undefined) throw new Error(`pool encounter ${pool.encounters[i]} is not listed under ${prefix}`)
    if (latest.id === pool.claims[i]) {
      if (latest.status !== "rejected") throw new Error(`pool claim ${latest.id} is ${latest.status}, not rejected`)
      return
    }
    if (latest.status !== "draft") throw new Error(`claim ${latest.id}, made by a correction, is ${latest.status}, not draft`)
    await reject(url, writeKey, latest.id)
    pool.claims[i] = latest.id
    corrected++
  })
  return corrected
}

/** One `resubmit` correction of each pool claim, in pool order: each request a claim of its own. */
export const correctionSequence = (pool: ClaimPool): SequencedRequest[] => {
  const body = JSON.stringify({ action: "resubmit" })
  return pool.claims.map((id) => ({ path: `/api/claims/${id}/corrections`, body }))
}

/** Reads `path` (a task list page) once and fails unless it lists `want` tasks. */
export const checkTaskPage = async (url: string, key: string, path: string, want: number): Promise<void> => {
  const r = await call(url, key, "GET", path)
  const items = Array.isArray(r.json.items) ? r.json.items : []
  if (r.status !== 200 || items.length !== want) {
    throw new Error(`GET ${path} listed ${items.length} tasks (status ${r.status}), not ${want}: ${r.text.slice(0, 300)}`)
  }
}
