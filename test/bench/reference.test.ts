/**
 * The benchmark's reference servers (bench/reference): each one started as the bench starts it, on
 * a fresh SQLite file, answering the five benchmarked routes with encounterd's statuses and shapes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type { Subprocess } from "bun"
import { buildCompat } from "../../bench/reference/build-compat.js"
import { validPayload } from "../support/payloads.js"
import { startTestServer } from "../support/server.js"

const root = resolve(import.meta.dir, "../..")
type Json = Record<string, unknown>

const temps: Array<string> = []
// The references import encounterd's compat builder from a bundle of the checkout.
beforeAll(() => buildCompat())
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

interface Reference {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">
  readonly listening: Json
  readonly url: string
  readonly key: string
}

/** Starts a reference server and reads its one `listening` line. */
const startReference = async (cmd: ReadonlyArray<string>): Promise<Reference> => {
  const dir = mkdtempSync(join(tmpdir(), "encounterd-ref-"))
  temps.push(dir)
  const proc = Bun.spawn([...cmd, "--port", "0", "--db", join(dir, "ref.sqlite"), "--synchronous", "NORMAL"], {
    cwd: root,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  // A server that prints nothing is killed, which ends its stdout and fails the read below.
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000)
  const reader = proc.stdout.getReader()
  const decoder = new TextDecoder()
  let text = ""
  try {
    while (!text.includes("\n")) {
      const chunk = await reader.read()
      if (chunk.done) throw new Error(`server exited before listening: ${await new Response(proc.stderr).text()}`)
      text += decoder.decode(chunk.value, { stream: true })
    }
  } finally {
    clearTimeout(timer)
    reader.releaseLock()
  }
  const listening = JSON.parse(text.slice(0, text.indexOf("\n"))) as Json
  return { proc, listening, url: String(listening.url), key: String(listening.key) }
}

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: Json
}

const call = async (url: string, key: string | null, method: string, path: string, body?: unknown): Promise<Answer> => {
  const headers: Record<string, string> = {}
  if (key !== null) headers.authorization = `Bearer ${key}`
  if (body !== undefined) headers["content-type"] = "application/json"
  const res = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json }
}

const items = (a: Answer): Array<Json> => (Array.isArray(a.body.items) ? (a.body.items as Array<Json>) : [])

/** Every key path of a JSON value (`latest_claim.patient.address.city`, array entries as `[]`). */
const keyPaths = (value: unknown, prefix = ""): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((v) => keyPaths(v, `${prefix}[]`))
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([k, v]) => {
    const path = prefix === "" ? k : `${prefix}.${k}`
    return [path, ...keyPaths(v, path)]
  })
}
const sortedSet = (paths: Array<string>): Array<string> => [...new Set(paths)].sort()

/** encounterd's first list item and event for `validPayload("ref-1")`, for the shape comparison. */
let shapes: Promise<{ list: Json; item: Json | undefined; event: Json | undefined }> | undefined
const encounterdShapes = () => (shapes ??= readEncounterdShapes())
const readEncounterdShapes = async () => {
  const server = await startTestServer()
  try {
    const created = await call(server.url, server.keys.a, "POST", "/api/encounters", validPayload("ref-1"))
    expect(created.status).toBe(202)
    const list = await call(server.url, server.keys.a, "GET", "/api/encounters?limit=10")
    const events = await call(server.url, server.keys.a, "GET", "/api/encounters/compat-version/events?limit=10")
    return { list: list.body, item: items(list)[0], event: items(events)[0] }
  } finally {
    await server.close()
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * A JSON value with what differs between two servers by nature replaced by placeholders: each
 * distinct id by `<id N>` in order of first appearance (so a reference to an id elsewhere in the
 * body must point at the same place), every time by `<time>` (two moves may share a millisecond on
 * one server and not on the other), the origin of URLs, and the patient control number (random).
 */
const normalized = (value: unknown, origin: string, pcn: string): unknown => {
  const seen = new Map<string, string>()
  const placeholder = (v: string): string => {
    const known = seen.get(v) ?? `<id ${seen.size + 1}>`
    seen.set(v, known)
    return known
  }
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk)
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
    if (typeof v !== "string") return v
    if (v === pcn) return "<pcn>"
    if (UUID.test(v)) return placeholder(v)
    if (TIME.test(v)) return "<time>"
    if (!v.startsWith(origin)) return v
    // A URL: its origin, and the ids in its path.
    return `<origin>${v.slice(origin.length).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, placeholder)}`
  }
  return walk(value)
}

interface Walk {
  readonly url: string
  readonly key: string
  readonly writer: string
}

/**
 * The same requests on one server: a create, its compat read and first compat page, its claim
 * moved twice, the normalized read after, and the event feed in pages of 2 by next_page_token;
 * every answer normalized.
 */
const walkNewRoutes = async ({ url, key, writer }: Walk): Promise<Record<string, unknown>> => {
  const created = await call(url, key, "POST", "/api/encounters", validPayload("ref-walk"))
  expect(created.status).toBe(202)
  const id = String(created.body.encounter_id)
  const one = await call(url, key, "GET", `/api/encounters/${id}`)
  const claimId = String(one.body.latest_claim_id)
  const pcn = String((one.body.latest_claim as Json).patient_control_number)
  const norm = (v: unknown) => normalized(v, url, pcn)
  const compatOne = await call(url, key, "GET", `/api/encounters/compat-version/${id}`)
  const compatPage = await call(url, key, "GET", "/api/encounters/compat-version?limit=10")
  const moved = await call(url, writer, "POST", `/api/claims/${claimId}/status`, { status: "missing_information" })
  const back = await call(url, writer, "POST", `/api/claims/${claimId}/status`, { status: "draft", note: "back" })
  const same = await call(url, writer, "POST", `/api/claims/${claimId}/status`, { status: "draft" })
  const refused = await call(url, writer, "POST", `/api/claims/${claimId}/status`, { status: "paid" })
  const compatAfter = await call(url, key, "GET", `/api/encounters/compat-version/${id}`)
  const feed: Array<unknown> = []
  let path: string | undefined = "/api/encounters/compat-version/events?limit=2"
  while (path !== undefined) {
    const page = await call(url, key, "GET", path)
    expect(page.status).toBe(200)
    feed.push(...items(page))
    path = typeof page.body.next_page_token === "string" ? `/api/encounters/compat-version/events?limit=2&page_token=${page.body.next_page_token}` : undefined
  }
  return {
    compatOne: [compatOne.status, norm(compatOne.body)],
    compatPage: [compatPage.status, norm(compatPage.body.items), compatPage.body.next_page_token],
    moved: [moved.status, norm(moved.body)],
    back: [back.status, norm(back.body)],
    same: [same.status, norm(same.body)],
    refused: [refused.status, refused.body.code],
    compatAfter: [norm(compatAfter.body)],
    feed: norm(feed)
  }
}

const servers: ReadonlyArray<{ readonly name: string; readonly cmd: ReadonlyArray<string> }> = [
  { name: "Bun.serve + bun:sqlite", cmd: [process.execPath, "bench/reference/bun-server.ts"] },
  { name: "Fastify + better-sqlite3 on Node", cmd: ["node", "bench/reference/fastify-server.mjs"] }
]

for (const { name, cmd } of servers) {
  describe(`reference server: ${name}`, () => {
    test("answers the five benchmarked routes like encounterd and exits 0 on SIGTERM", async () => {
      const ref = await startReference(cmd)
      try {
        expect(Object.keys(ref.listening)).toEqual(["msg", "url", "key", "pid", "synchronous"])
        expect(ref.listening.msg).toBe("listening")
        expect(ref.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
        expect(ref.key).toMatch(/^eik_[0-9A-Za-z]{40}$/)
        expect(ref.listening.pid).toBe(ref.proc.pid)
        expect(ref.listening.synchronous).toBe("NORMAL")

        const created = await call(ref.url, ref.key, "POST", "/api/encounters", validPayload("ref-1"))
        expect(created.status).toBe(202)
        expect(created.headers.get("content-type") ?? "").toStartWith("application/json")
        expect(created.headers.get("x-request-id") ?? "").toMatch(/^[0-9a-f-]{36}$/)
        const id = String(created.body.encounter_id)
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        expect(created.body).toEqual({ encounter_id: id, encounterId: id })

        const replay = await call(ref.url, ref.key, "POST", "/api/encounters", validPayload("ref-1"))
        expect(replay.status).toBe(200)
        expect(replay.body).toEqual({ encounter_id: id, encounterId: id, duplicate: true })

        const invalid = await call(ref.url, ref.key, "POST", "/api/encounters", {})
        expect(invalid.status).toBe(422)
        expect(invalid.headers.get("content-type") ?? "").toStartWith("application/problem+json")
        const paths = Array.isArray(invalid.body.errors) ? (invalid.body.errors as Array<Json>).map((e) => e.path) : []
        expect(paths).toContain("external_id")

        const anonymous = await call(ref.url, null, "GET", "/api/encounters")
        expect(anonymous.status).toBe(401)
        expect(anonymous.headers.get("content-type") ?? "").toStartWith("application/problem+json")
        expect(anonymous.headers.get("x-request-id")).not.toBeNull()
        expect([anonymous.body.type, anonymous.body.title, anonymous.body.status, anonymous.body.detail].map((v) => typeof v)).toEqual([
          "string",
          "string",
          "number",
          "string"
        ])
        const wrongKey = await call(ref.url, `eik_${"x".repeat(40)}`, "GET", "/api/encounters")
        expect(wrongKey.status).toBe(401)

        const list = await call(ref.url, ref.key, "GET", "/api/encounters?limit=10")
        expect(list.status).toBe(200)
        expect(items(list)[0]?.id).toBe(id)
        expect(list.body.next_page_token).toBeNull()
        expect(list.body.prev_page_token).toBeNull()

        const one = await call(ref.url, ref.key, "GET", `/api/encounters/${id}`)
        expect(one.status).toBe(200)
        expect(one.body.id).toBe(id)
        expect(one.body).toEqual(items(list)[0] ?? {})
        const missing = await call(ref.url, ref.key, "GET", `/api/encounters/${crypto.randomUUID()}`)
        expect(missing.status).toBe(404)

        const events = await call(ref.url, ref.key, "GET", "/api/encounters/compat-version/events?limit=10")
        expect(events.status).toBe(200)
        expect(items(events).length).toBe(1)
        expect(items(events)[0]?.event_type).toBe("ExternalApi.Encounter.Created")
        expect(items(events)[0]?.payload).toMatchObject({ encounter_id: id, external_id: "ref-1", status: "draft" })

        const unknown = await call(ref.url, ref.key, "GET", "/api/nothing-here")
        expect(unknown.status).toBe(404)

        // The list item, the page and the event have encounterd's keys, at every depth.
        const theirs = await encounterdShapes()
        expect(sortedSet(keyPaths(items(list)[0]))).toEqual(sortedSet(keyPaths(theirs.item)))
        expect(Object.keys(list.body).sort()).toEqual(Object.keys(theirs.list).sort())
        expect(sortedSet(keyPaths(items(events)[0]))).toEqual(sortedSet(keyPaths(theirs.event)))
      } finally {
        ref.proc.kill("SIGTERM")
      }
      expect(await ref.proc.exited).toBe(0)
    })

    test("pages with next_page_token", async () => {
      const ref = await startReference(cmd)
      try {
        const ids: Array<string> = []
        for (let i = 0; i < 3; i++) {
          const created = await call(ref.url, ref.key, "POST", "/api/encounters", validPayload(`page-${i}`))
          expect(created.status).toBe(202)
          ids.push(String(created.body.encounter_id))
        }
        const seen: Array<string> = []
        let token: unknown = undefined
        do {
          const query: string = token === undefined ? "" : `&page_token=${String(token)}`
          const page = await call(ref.url, ref.key, "GET", `/api/encounters?limit=2${query}`)
          expect(page.status).toBe(200)
          seen.push(...items(page).map((e) => String(e.id)))
          token = page.body.next_page_token ?? undefined
        } while (token !== undefined)
        expect(seen.sort()).toEqual([...ids].sort())

        const first = await call(ref.url, ref.key, "GET", "/api/encounters/compat-version/events?limit=2")
        expect(items(first).length).toBe(2)
        const rest = await call(
          ref.url,
          ref.key,
          "GET",
          `/api/encounters/compat-version/events?limit=2&page_token=${String(first.body.next_page_token)}`
        )
        expect(items(rest).length).toBe(1)
        expect(rest.body.next_page_token).toBeNull()
        expect([...items(first), ...items(rest)].map((e) => (e.payload as Json).encounter_id)).toEqual(ids)

        const badLimit = await call(ref.url, ref.key, "GET", "/api/encounters?limit=0")
        expect(badLimit.status).toBe(400)
      } finally {
        ref.proc.kill("SIGTERM")
      }
      expect(await ref.proc.exited).toBe(0)
    })

    test("answers the compat reads, claim status changes and followed event pages as encounterd does", async () => {
      const server = await startTestServer()
      let theirs: Record<string, unknown>
      try {
        theirs = await walkNewRoutes({ url: server.url, key: server.keys.a, writer: server.keys.aWriter })
      } finally {
        await server.close()
      }
      const ref = await startReference(cmd)
      try {
        const ours = await walkNewRoutes({ url: ref.url, key: ref.key, writer: ref.key })
        expect(ours.moved).toMatchObject([200, { status: "missing_information" }])
        expect(ours.refused).toEqual([409, "invalid_transition"])
        expect(ours).toEqual(theirs)
      } finally {
        ref.proc.kill("SIGTERM")
      }
      expect(await ref.proc.exited).toBe(0)
    })
  })
}
