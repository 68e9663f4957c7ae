import type { EncounterWithClaim } from "../../lib/domain/encounter.js"
import { type Page, pageBytes } from "../../lib/domain/page.js"
import { makeRenderCache, RENDERS_KEPT } from "../rendered.js"
import { toCompatEncounter } from "./encounter.js"

/**
 * The compat JSON of one encounter (UTF-8), as `JSON.stringify(toCompatEncounter(row, baseUrl))` makes it,
 * rendered once per version (see `server/rendered.ts`): rendering (about fifteen derived SHA-256
 * ids and a deep copy of the payload) costs far more than reading the row.
 */
export const compatJson: (row: EncounterWithClaim, baseUrl: string) => Uint8Array<ArrayBuffer> = makeRenderCache(RENDERS_KEPT, (row, baseUrl) =>
  JSON.stringify(toCompatEncounter(row, baseUrl))
)

/** A page of compat encounters as UTF-8 JSON: the items' renders spliced into the page. */
export const compatPageJson = (page: Page<EncounterWithClaim>, baseUrl: string): Uint8Array<ArrayBuffer> =>
  pageBytes(page, (row) => compatJson(row, baseUrl))
