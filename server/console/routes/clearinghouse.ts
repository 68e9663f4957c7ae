import { Effect } from "effect"
import { getX12BatchRecord, getX12File, listX12Batches, listX12FileOutcomes, listX12Files } from "../../../lib/rules/x12-reads.js"
import { json, NoQuery, raw } from "../../route.js"
import { PageQuery } from "../../routes/shared.js"
import { sessionRoute } from "../route.js"

/** The exchange's reads behind the session: the same rules and pages as /api/x12 (read-only). */
export const x12BatchesRoute = sessionRoute(
  { method: "GET", path: "/console/api/x12/batches", audit: { action: "x12_batch.list", resource: "x12_batch" }, summary: "837P batches sent, newest first", query: PageQuery },
  ({ principal: caller, query }) => Effect.map(listX12Batches(caller.principal.workspace.id, query), (page) => json(200, page))
)

/** A batch's 837P as built and stored, as a download. */
export const x12BatchFileRoute = sessionRoute(
  { method: "GET", path: "/console/api/x12/batches/{id}/file", audit: { action: "x12_batch.file", resource: "x12_batch", idParam: "id" }, summary: "A batch's 837P file", query: NoQuery },
  ({ principal: caller, params }) =>
    Effect.map(getX12BatchRecord(caller.principal.workspace.id, params.id ?? ""), (b) =>
      raw(200, "application/edi-x12", b.file, {
        "content-disposition": `attachment; filename="837p-${String(b.interchange_control_number).padStart(9, "0")}.x12"`
      })
    )
)

export const x12FilesRoute = sessionRoute(
  { method: "GET", path: "/console/api/x12/files", audit: { action: "x12_file.list", resource: "x12_file" }, summary: "Files received, newest first", query: PageQuery },
  ({ principal: caller, query }) => Effect.map(listX12Files(caller.principal.workspace.id, query), (page) => json(200, page))
)

export const x12FileRoute = sessionRoute(
  { method: "GET", path: "/console/api/x12/files/{id}", audit: { action: "x12_file.read", resource: "x12_file", idParam: "id" }, summary: "One file received, with what it did", query: NoQuery },
  ({ principal: caller, params }) => Effect.map(getX12File(caller.principal.workspace.id, params.id ?? ""), (f) => json(200, f))
)

export const x12FileOutcomesRoute = sessionRoute(
  { method: "GET", path: "/console/api/x12/files/{id}/outcomes", audit: { action: "x12_file.outcomes", resource: "x12_file", idParam: "id" }, summary: "What one file did to each claim it names, in file order", query: PageQuery },
  ({ principal: caller, params, query }) =>
    Effect.map(listX12FileOutcomes(caller.principal.workspace.id, params.id ?? "", query), (page) => json(200, page))
)
