import type { EncounterWithClaim } from "../../lib/domain/encounter.js"
import { type Page, pageJson } from "../../lib/domain/page.js"
import { toCompatEncounter } from "./encounter.js"

/**
 * The compat JSON of encounters, rendered once per version of each encounter rather than on every
 * read: rendering (about fifteen derived SHA-256 ids and a deep copy of the payload) costs far more
 * than reading the row. Not a response cache: every read still reads the row, and a render is
 * reused only when the row it was made from is the same version. The payload never changes after
 * intake; what a status move or an imported X12 file changes (the claim, its status and times, the
 * payer's control number, the remittances, the encounter's `last_event_at`) is part of the version, so a changed claim is rendered afresh.
 */
const versionOf = ({ encounter: e, claim: c, remittances = [] }: EncounterWithClaim, baseUrl: string): string =>
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
    e.last_event_at,
    baseUrl
  ].join("\u0000")

interface Rendered {
  readonly version: string
  readonly json: string
}

/** Renders kept: the most recently read encounters (a compat page of 100 is 100 of them; each is a few KB). */
const CAPACITY = 1_000
const renders = new Map<string, Rendered>()

/** The compat JSON text of one encounter, as `JSON.stringify(toCompatEncounter(row, baseUrl))` makes it. */
export const compatJson = (row: EncounterWithClaim, baseUrl: string): string => {
  const id = row.encounter.id
  const version = versionOf(row, baseUrl)
  const known = renders.get(id)
  // Re-inserted on every read, so the Map's order is least recently read first.
  if (known !== undefined) renders.delete(id)
  const rendered = known !== undefined && known.version === version ? known : { version, json: JSON.stringify(toCompatEncounter(row, baseUrl)) }
  renders.set(id, rendered)
  if (renders.size > CAPACITY) {
    const oldest = renders.keys().next()
    if (oldest.done !== true) renders.delete(oldest.value)
  }
  return rendered.json
}

/** A page of compat encounters as JSON text: the items' renders spliced into the page. */
export const compatPageJson = (page: Page<EncounterWithClaim>, baseUrl: string): string =>
  pageJson(page, (row) => compatJson(row, baseUrl))
