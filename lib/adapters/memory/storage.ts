import { Effect, Layer, Option } from "effect"
import type { ClaimRecord, EncounterRecord, EncounterWithClaim, StoredRawRequest } from "../../domain/encounter.js"
import { SlugTaken } from "../../domain/errors.js"
import { type EventRecord, recordedAt, type StoredEvent } from "../../domain/event.js"

import type { Key } from "../../domain/page.js"
import type { ApiKeyRecord, Workspace } from "../../domain/workspace.js"
import { Storage, type StorageShape } from "../../ports/storage.js"

/** Tuple order on keys of strings and numbers. */
const compareKeys = (a: Key, b: Key): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!
    const y = b[i]!
    if (x < y) return -1
    if (x > y) return 1
  }
  return a.length - b.length
}

/**
 * In-memory storage, for tests and embedders' tests. Every method runs synchronously inside one
 * `Effect.sync`, so each is atomic on a single-threaded runtime. Fresh state per layer build.
 */
export const makeMemoryStorage = (): StorageShape => {
  const workspaces = new Map<string, Workspace & { created_at: string }>()
  const keys = new Map<string, ApiKeyRecord>()
  const raw = new Map<string, StoredRawRequest>()
  const encounters = new Map<string, EncounterRecord>()
  const byExternal = new Map<string, string>()
  const claims = new Map<string, ClaimRecord>()
  const pcns = new Set<string>()
  const events: Array<StoredEvent> = []
  const eventsById = new Map<string, StoredEvent>()

  const lastCreatedAt = new Map<string, string>()
  /** Appends an event; `created_at` never falls behind the workspace's previous event (see recordedAt). */
  const append = (event: EventRecord): string => {
    const created_at = recordedAt(event.created_at, lastCreatedAt.get(event.workspace_id))
    lastCreatedAt.set(event.workspace_id, created_at)
    const stored = { ...event, created_at, seq: events.length + 1 }
    events.push(stored)
    eventsById.set(stored.id, stored)
    return created_at
  }
  const withClaim = (e: EncounterRecord): EncounterWithClaim => ({ encounter: e, claim: claims.get(e.latest_claim_id)! })
  const sync = Effect.sync

  return {
    ping: () => Effect.void,
    insertWorkspace: (ws) =>
      Effect.suspend(() => {
        if ([...workspaces.values()].some((w) => w.slug === ws.slug)) return Effect.fail(new SlugTaken({ slug: ws.slug }))
        workspaces.set(ws.id, { ...ws })
        return Effect.void
      }),
    findWorkspaceBySlug: (slug) =>
      sync(() => {
        const w = [...workspaces.values()].find((x) => x.slug === slug)
        return w === undefined ? Option.none() : Option.some({ id: w.id, slug: w.slug, name: w.name })
      }),
    listWorkspaces: () =>
      sync(() =>
        [...workspaces.values()]
          .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
          .map((w) => ({ id: w.id, slug: w.slug, name: w.name }))
      ),

    insertApiKey: (key) => sync(() => void keys.set(key.id, { ...key })),
    findApiKeyByHash: (hash) =>
      sync(() => {
        const key = [...keys.values()].find((k) => k.hash === hash)
        const ws = key === undefined ? undefined : workspaces.get(key.workspace_id)
        return key === undefined || ws === undefined
          ? Option.none()
          : Option.some({ key, workspace: { id: ws.id, slug: ws.slug, name: ws.name } })
      }),
    listApiKeys: (ws) => sync(() => [...keys.values()].filter((k) => k.workspace_id === ws)),
    revokeApiKey: (id, at) =>
      sync(() => {
        const key = keys.get(id)
        if (key === undefined) return Option.none()
        const updated = key.revoked_at === null ? { ...key, revoked_at: at } : key
        keys.set(id, updated)
        return Option.some(updated)
      }),
    touchApiKey: (id, at) =>
      sync(() => {
        const key = keys.get(id)
        if (key !== undefined) keys.set(id, { ...key, last_used_at: at })
      }),

    insertRawRequest: (r) => sync(() => void raw.set(r.id, { ...r, body: new Uint8Array(r.body) })),
    findRawRequest: (ws, id) =>
      sync(() => {
        const r = raw.get(id)
        return r === undefined || r.workspace_id !== ws ? Option.none() : Option.some(r)
      }),

    findEncounterIdByExternalId: (ws, ext) =>
      sync(() => Option.fromNullable(byExternal.get(`${ws}\u0000${ext}`) as EncounterRecord["id"] | undefined)),
    insertEncounter: ({ encounter, claim, event, raw: request }) =>
      sync(() => {
        const ext = `${encounter.workspace_id}\u0000${encounter.external_id}`
        const existing = byExternal.get(ext)
        if (existing !== undefined) return { _tag: "Duplicate" as const, encounter_id: existing as EncounterRecord["id"] }
        const pcn = `${claim.workspace_id}\u0000${claim.patient_control_number}`
        if (pcns.has(pcn)) return { _tag: "PatientControlNumberTaken" as const }
        byExternal.set(ext, encounter.id)
        pcns.add(pcn)
        claims.set(claim.id, claim)
        encounters.set(encounter.id, { ...encounter, last_event_at: append(event) })
        raw.set(request.id, {
          ...request,
          body: new Uint8Array(request.body),
          result: { outcome: "accepted", encounter_id: encounter.id }
        })
        return { _tag: "Inserted" as const }
      }),
    findEncounter: (ws, id) =>
      sync(() => {
        const e = encounters.get(id)
        return e === undefined || e.workspace_id !== ws ? Option.none() : Option.some(withClaim(e))
      }),
    listEncounters: (ws, q) =>
      sync(() => {
        const rows = [...encounters.values()]
          .filter((e) => e.workspace_id === ws)
          .filter((e) => q.external_id === undefined || e.external_id === q.external_id)
          .map(withClaim)
          .filter((r) => q.claim_status === undefined || r.claim.status === q.claim_status)
        const keyOf = (r: EncounterWithClaim): Key => [r.encounter.created_at, r.encounter.id]
        const pos = q.position
        // List order is newest first: "next" reads descending keys below the position.
        const scanned =
          pos === undefined || pos.dir === "next"
            ? rows
                .filter((r) => pos === undefined || compareKeys(keyOf(r), pos.key) < 0)
                .sort((a, b) => compareKeys(keyOf(b), keyOf(a)))
            : rows.filter((r) => compareKeys(keyOf(r), pos.key) > 0).sort((a, b) => compareKeys(keyOf(a), keyOf(b)))
        return scanned.slice(0, q.limit + 1)
      }),

    findClaim: (ws, id) =>
      sync(() => {
        const c = claims.get(id)
        const e = c === undefined ? undefined : encounters.get(c.encounter_id)
        return c === undefined || e === undefined || c.workspace_id !== ws ? Option.none() : Option.some({ encounter: e, claim: c })
      }),
    changeClaimStatus: (ws, change) =>
      sync(() => {
        const c = claims.get(change.claim_id)
        const e = encounters.get(change.encounter_id)
        if (c === undefined || e === undefined || c.workspace_id !== ws || c.status !== change.expected) return false
        claims.set(c.id, { ...c, status: change.next, status_changed_at: change.at })
        encounters.set(e.id, { ...e, last_event_at: append(change.event) })
        return true
      }),

    listEvents: (ws, q) =>
      sync(() => {
        const pos = q.position
        const match = (e: StoredEvent) =>
          e.workspace_id === ws &&
          (q.event_types === undefined || q.event_types.includes(e.event_type)) &&
          (q.created_after === undefined || e.created_at >= q.created_after) &&
          (q.created_before === undefined || e.created_at <= q.created_before)
        // List order is oldest first: "next" reads ascending seq above the position.
        if (pos === undefined || pos.dir === "next") {
          const from = pos === undefined ? 0 : Number(pos.key[0])
          return events.filter((e) => e.seq > from && match(e)).slice(0, q.limit + 1)
        }
        const below = Number(pos.key[0])
        return events
          .filter((e) => e.seq < below && match(e))
          .reverse()
          .slice(0, q.limit + 1)
      }),
    findEvent: (ws, id) =>
      sync(() => {
        const e = eventsById.get(id)
        return e === undefined || e.workspace_id !== ws ? Option.none() : Option.some(e)
      })
  }
}

export const MemoryStorage = {
  /** A fresh, empty in-memory store per build. */
  layer: Layer.sync(Storage, makeMemoryStorage)
}

