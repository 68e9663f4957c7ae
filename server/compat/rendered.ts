import type { EncounterWithClaim } from "../../lib/domain/encounter.js"
import { type Page, pageJson } from "../../lib/domain/page.js"
import { makeRenderCache, RENDERS_KEPT } from "../rendered.js"
import { toCompatEncounter } from "./encounter.js"

/**
 * The compat JSON of one encounter, as `JSON.stringify(toCompatEncounter(row, baseUrl))` makes it,
 * rendered once per version (see `server/rendered.ts`): rendering (about fifteen derived SHA-256
 * ids and a deep copy of the payload) costs far more than reading the row.
 */
export const compatJson: (row: EncounterWithClaim, baseUrl: string) => string = makeRenderCache(RENDERS_KEPT, (row, baseUrl) =>
  JSON.stringify(toCompatEncounter(row, baseUrl))
)

/** A page of compat encounters as JSON text: the items' renders spliced into the page. */
export const compatPageJson = (page: Page<EncounterWithClaim>, baseUrl: string): string =>
  pageJson(page, (row) => compatJson(row, baseUrl))
