import { Effect } from "effect"
import { type ConnectionActivity, pickupActivity, uploadActivity } from "../domain/clearinghouse-transfers.js"
import type { WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, encodeToken, type Position, tokenScope } from "../domain/page.js"
import { Storage } from "../ports/storage.js"
import { findConnection } from "./sftp-connections.js"

export interface ActivityQuery {
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

export interface ActivityPage {
  readonly items: ReadonlyArray<ConnectionActivity>
  readonly next_page_token: string | null
}

const newestFirst = (a: { readonly at: string; readonly id: string }, b: { readonly at: string; readonly id: string }) =>
  a.at > b.at ? -1 : a.at < b.at ? 1 : a.id > b.id ? -1 : a.id < b.id ? 1 : 0

/**
 * A connection's uploads and pickups, newest first by when each was queued or seen (then id):
 * both lists are read from the same position along their (connection, created_at, id) indexes and
 * merged, so a page token goes on in both. Paged forward only.
 */
export const connectionActivity = (ws: WorkspaceId, id: string, query: ActivityQuery = {}) =>
  Effect.gen(function* () {
    const connection = yield* findConnection(ws, id)
    const limit = yield* checkLimit(query.limit)
    const scope = tokenScope([ws, "clearinghouse-activity", connection.id])
    const position: Position | undefined = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const storage = yield* Storage
    const q = { where: { connection_id: connection.id }, position, limit }
    const uploads = (yield* storage.page("clearinghouse_uploads", ws, q)).map(uploadActivity)
    const pickups = (yield* storage.page("clearinghouse_pickups", ws, q)).map(pickupActivity)
    const merged = [...uploads, ...pickups].sort(newestFirst)
    const items = merged.slice(0, limit)
    const last = items[items.length - 1]
    return {
      items,
      next_page_token: merged.length > limit && last !== undefined ? encodeToken({ dir: "next", key: [last.at, last.id] }, scope) : null
    } satisfies ActivityPage
  })
