import { makeBoundedMap } from "../lib/bounded-map.js"
import type { EncounterWithClaim } from "../lib/domain/encounter.js"

/**
 * The JSON of encounters, rendered once per version of each encounter rather than on every read.
 * Not a response cache: every read still reads the encounter's row, and a render is reused only
 * when the row it was made from is the same version. The payload never changes after intake; what
 * a status move or an imported X12 file changes (the claim, its status and times, the payer's
 * control number, the remittances, the encounter's `last_event_at`) is part of the version, so a
 * changed claim is rendered afresh.
 */
export const versionOf = ({ encounter: e, claim: c, remittances = [], more_remittances = false }: EncounterWithClaim): string =>
  [
    c.id,
    c.status,
    c.status_changed_at,
    c.patient_control_number,
    // What the clearinghouse exchange changes without a status move: the payer's acknowledgement
    // and control number, and remittances (an 835 whose move the table refused still adds one).
    c.processing_started_at ?? "",
    c.payer_claim_control_number ?? "",
    remittances.map((r) => r.id).join(","),
    String(more_remittances),
    e.last_event_at
  ].join("\u0000")

/**
 * Renders kept per shape: as many as the storage keeps encounters (a render is 2 to 3 KB of text,
 * and every kept byte costs several in peak memory, see `lib/adapters/sqlite/storage.ts`).
 */
export const RENDERS_KEPT = 256

interface Rendered {
  readonly version: string
  readonly json: string
}

/**
 * A bounded store of renders by encounter id (`BoundedMap`): the most recently read `capacity`
 * encounters (a page of 100 is 100 of them; each render is 2 to 3 KB). `render` makes the JSON
 * text of a row; `salt` is whatever else the text depends on (the compat shape's base URL).
 */
export const makeRenderCache = (capacity: number, render: (row: EncounterWithClaim, salt: string) => string) => {
  // Set again on every read, so the least recently read go first.
  const renders = makeBoundedMap<string, Rendered>(capacity)
  // A read an adapter kept (frozen, the same object while its row is unchanged) is looked up by identity first.
  const byRead = new WeakMap<EncounterWithClaim, { readonly salt: string; readonly json: string }>()
  return (row: EncounterWithClaim, salt = ""): string => {
    const same = byRead.get(row)
    if (same !== undefined && same.salt === salt) return same.json
    const id = row.encounter.id
    const version = salt === "" ? versionOf(row) : `${versionOf(row)}\u0000${salt}`
    const known = renders.get(id)
    const rendered = known !== undefined && known.version === version ? known : { version, json: render(row, salt) }
    renders.set(id, rendered)
    if (Object.isFrozen(row)) byRead.set(row, { salt, json: rendered.json })
    return rendered.json
  }
}
