import type { EncounterWithClaim, ListedEncounter } from "../../lib/domain/encounter.js"
import { makePageAssembler, type Page } from "../../lib/domain/page.js"
import { makeRenderCache, PAGES_KEPT, type Render, RENDERS_KEPT } from "../rendered.js"
import { toCompatEncounter } from "./encounter.js"

/**
 * The compat JSON of one encounter (UTF-8), as `JSON.stringify(toCompatEncounter(row, baseUrl))` makes it,
 * rendered once per version (see `server/rendered.ts`): rendering (about fifteen derived SHA-256
 * ids and a deep copy of the payload) costs far more than reading the row.
 */
export const compatRenders = makeRenderCache(RENDERS_KEPT, (row, baseUrl) => JSON.stringify(toCompatEncounter(row, baseUrl)))

/** The compat JSON of one encounter (`compatRenders.json`). */
export const compatJson = (row: EncounterWithClaim, baseUrl: string): Render => compatRenders.json(row, baseUrl)

const compatPages = makePageAssembler(PAGES_KEPT, compatRenders.unkept)

/** A page of compat encounters as UTF-8 JSON: the items' renders (kept, or made now) spliced into the page (the same page answered again as a blob, `makePageAssembler`). */
export const compatPageJson = (page: Page<ListedEncounter<Uint8Array<ArrayBuffer>>>, baseUrl: string): Blob =>
  compatPages(page, (item) => compatRenders.item(item, baseUrl))
