import { Effect, Option } from "effect"
import type { WorkspaceId } from "../domain/ids.js"
import { checkLimit, decodeToken, toPage, tokenScope } from "../domain/page.js"
import { X12BatchNotFound, X12FileNotFound } from "../domain/x12-exchange-errors.js"
import { toOutcome, toX12Batch, toX12File } from "../domain/x12-exchange.js"
import { Storage } from "../ports/storage.js"

/** Reads of the exchange: batches sent and files received, newest first, keyset-paged both ways. */

export interface X12PageQuery {
  readonly limit?: number | undefined
  readonly page_token?: string | undefined
}

export const listX12Batches = (workspaceId: WorkspaceId, query: X12PageQuery) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const scope = tokenScope([workspaceId, "x12-batches"])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const rows = yield* (yield* Storage).page("x12_batches", workspaceId, { position, limit })
    return toPage(rows, limit, position, (b) => [b.created_at, b.id], scope, toX12Batch)
  })

/** A batch with its bytes; another workspace's is not found. */
export const getX12BatchRecord = (workspaceId: WorkspaceId, id: string) =>
  Effect.flatMap(Storage, (storage) =>
    Effect.flatMap(storage.get("x12_batches", workspaceId, id), (found) =>
      Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new X12BatchNotFound({ id }))
    )
  )

export const getX12Batch = (workspaceId: WorkspaceId, id: string) => Effect.map(getX12BatchRecord(workspaceId, id), toX12Batch)

/** The batch's 837P exactly as it was built and stored. */
export const getX12BatchFile = (workspaceId: WorkspaceId, id: string) => Effect.map(getX12BatchRecord(workspaceId, id), (b) => b.file)

export const listX12Files = (workspaceId: WorkspaceId, query: X12PageQuery) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const scope = tokenScope([workspaceId, "x12-files"])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const rows = yield* (yield* Storage).page("x12_files", workspaceId, { position, limit })
    return toPage(rows, limit, position, (f) => [f.received_at, f.id], scope, toX12File)
  })

export const getX12File = (workspaceId: WorkspaceId, id: string) =>
  Effect.flatMap(Storage, (storage) =>
    Effect.flatMap(storage.get("x12_files", workspaceId, id), (found) =>
      Option.isSome(found) ? Effect.succeed(toX12File(found.value)) : Effect.fail(new X12FileNotFound({ id }))
    )
  )

/**
 * What a file did to each claim it names, in file order (the file's record keeps only its first
 * outcomes), keyset-paged both ways; another workspace's file is not found.
 */
export const listX12FileOutcomes = (workspaceId: WorkspaceId, fileId: string, query: X12PageQuery) =>
  Effect.gen(function* () {
    const limit = yield* checkLimit(query.limit)
    const scope = tokenScope([workspaceId, "x12-file-outcomes", fileId])
    const position = query.page_token === undefined ? undefined : yield* decodeToken(query.page_token, scope)
    const storage = yield* Storage
    if (Option.isNone(yield* storage.get("x12_files", workspaceId, fileId))) return yield* new X12FileNotFound({ id: fileId })
    const rows = yield* storage.listX12FileOutcomes(workspaceId, fileId, { position, limit })
    return toPage(rows, limit, position, (o) => [o.position], scope, toOutcome)
  })
