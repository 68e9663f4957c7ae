import { Effect, Either } from "effect"
import { requestDecoder } from "../../lib/domain/field-issues.js"
import { createX12Batch } from "../../lib/rules/x12-export.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { getX12Batch, getX12BatchRecord, getX12File, listX12Batches, listX12FileOutcomes, listX12Files } from "../../lib/rules/x12-reads.js"
import { X12_BODY_LIMIT, X12_CONTENT_TYPES, readBody, readJsonBody, requireX12 } from "../body.js"
import { InvalidBody } from "../problem.js"
import { authed, json, NoQuery, raw } from "../route.js"
import { AnyConflictProblem, PageQuery, problemAs, problems } from "./shared.js"
import { BatchRequest, InboundResult, X12Batch, X12BatchPage, X12File, X12FilePage, X12OutcomePage, X12Text } from "./x12-docs.js"

const decodeBatchRequest = requestDecoder(BatchRequest)

export const createBatchRoute = authed(
  {
    method: "POST",
    path: "/api/x12/837p-batches",
    operationId: "createX12Batch",
    audit: { action: "x12_batch.create", resource: "x12_batch" },
    tag: "Clearinghouse",
    summary: "Send claims as one 837P batch (scope claims:write)",
    description:
      "All or nothing: in one transaction the workspace's next control number is taken, every claim moves to submitted_to_payer with its StatusUpdated event, and the batch is stored with its file. A claim that cannot move refuses the batch (409 invalid_transition), as does one the 837P cannot carry (422 not_exportable); errors name each claim and field.",
    scope: "claims:write",
    query: NoQuery,
    requestBody: BatchRequest,
    responses: {
      201: { description: "The batch; its file is at /api/x12/837p-batches/{id}/file", schema: X12Batch },
      ...problems(400, 401, 403, 404, 413, 415, 429),
      ...problemAs(409, "invalid_transition (a claim cannot move to submitted_to_payer; every one in errors) or clearinghouse_not_configured", AnyConflictProblem),
      ...problemAs(422, "validation_failed (claim_ids: 1 to 500, distinct) or not_exportable (errors: claims[ID].field)")
    }
  },
  ({ principal, request, config }) =>
    Effect.gen(function* () {
      const body = yield* readJsonBody(request, config.bodyLimit)
      const decoded = decodeBatchRequest(body)
      if (Either.isLeft(decoded)) return yield* new InvalidBody({ errors: decoded.left })
      return json(201, yield* createX12Batch(principal.workspace.id, decoded.right.claim_ids))
    })
)

export const listBatchesRoute = authed(
  {
    method: "GET",
    path: "/api/x12/837p-batches",
    operationId: "listX12Batches",
    audit: { action: "x12_batch.list", resource: "x12_batch" },
    tag: "Clearinghouse",
    summary: "The 837P batches sent, newest first",
    query: PageQuery,
    responses: { 200: { description: "A page of batches", schema: X12BatchPage }, ...problems(400, 401, 429) }
  },
  ({ principal, query }) => Effect.map(listX12Batches(principal.workspace.id, query), (page) => json(200, page))
)

export const getBatchRoute = authed(
  {
    method: "GET",
    path: "/api/x12/837p-batches/{id}",
    operationId: "getX12Batch",
    audit: { action: "x12_batch.read", resource: "x12_batch", idParam: "id" },
    tag: "Clearinghouse",
    summary: "One 837P batch",
    query: NoQuery,
    responses: { 200: { description: "The batch", schema: X12Batch }, ...problems(401, 404, 429) }
  },
  ({ principal, params }) => Effect.map(getX12Batch(principal.workspace.id, params.id ?? ""), (b) => json(200, b))
)

export const getBatchFileRoute = authed(
  {
    method: "GET",
    path: "/api/x12/837p-batches/{id}/file",
    operationId: "getX12BatchFile",
    audit: { action: "x12_batch.file", resource: "x12_batch", idParam: "id" },
    tag: "Clearinghouse",
    summary: "The batch's 837P file, byte for byte as built",
    description: "Upload this file to the clearinghouse.",
    query: NoQuery,
    responses: {
      200: { description: "The 837P (005010X222A1)", schema: X12Text, contentType: "application/edi-x12", headers: { "Content-Disposition": "attachment; filename=837p-<ISA13>.x12" } },
      ...problems(401, 404, 429)
    }
  },
  ({ principal, params }) =>
    Effect.map(getX12BatchRecord(principal.workspace.id, params.id ?? ""), (b) =>
      raw(200, "application/edi-x12", b.file, {
        "content-disposition": `attachment; filename="837p-${String(b.interchange_control_number).padStart(9, "0")}.x12"`
      })
    )
)

export const importRoute = authed(
  {
    method: "POST",
    path: "/api/x12/inbound",
    operationId: "importX12File",
    audit: { action: "x12_file.import", resource: "x12_file" },
    tag: "Clearinghouse",
    summary: "Import a 999, 277CA, 277 or 835 the clearinghouse sent back (scope claims:write)",
    description:
      "One interchange, up to 10 MiB. The file is stored with what it did in the same transaction as its effects: status moves along the transition table (each with its StatusUpdated event), acknowledgments, payer claim control numbers, remittances. The same interchange again (same sender and ISA13, or the same bytes) answers the first import with duplicate: true and applies nothing. A malformed file is 422 invalid_x12 naming the segment and its 1-based position, and applies nothing. What one file does is bounded: a claim a 999 or 277CA names more than once has one outcome (the file's last decision on it; its detail counts the entries); an 835 may carry at most 3 CLPs for one claim (a reversal, its correction and one more), each a remittance and an outcome, and a file with more is refused (422); a 999 may acknowledge at most 100 batches; at most 1000 entries naming no claim of the workspace are listed, the rest counted in one more outcome; an element longer than 1000 characters is refused. The answer lists the first 1000 outcomes with a summary; all are at /api/x12/files/{id}/outcomes.",
    scope: "claims:write",
    query: NoQuery,
    requestBody: X12Text,
    requestContentTypes: X12_CONTENT_TYPES,
    responses: {
      200: { description: "What the file did to each claim it names", schema: InboundResult },
      ...problems(401, 403, 413, 415, 429),
      ...problemAs(422, "invalid_x12: the segment at fault and its 1-based position (nothing applied)")
    }
  },
  ({ principal, request }) =>
    Effect.gen(function* () {
      const contentType = yield* requireX12(request)
      const body = yield* readBody(request, X12_BODY_LIMIT)
      return json(200, yield* importX12File({ workspace_id: principal.workspace.id, body, content_type: contentType, key_id: principal.keyId }))
    })
)

export const listFilesRoute = authed(
  {
    method: "GET",
    path: "/api/x12/files",
    operationId: "listX12Files",
    audit: { action: "x12_file.list", resource: "x12_file" },
    tag: "Clearinghouse",
    summary: "The X12 files received, newest first, with what each did",
    description:
      "Each file with a summary of its claim outcomes (counts by outcome) and its first 20 outcomes; all of them are paged at /api/x12/files/{id}/outcomes.",
    query: PageQuery,
    responses: { 200: { description: "A page of files", schema: X12FilePage }, ...problems(400, 401, 429) }
  },
  ({ principal, query }) => Effect.map(listX12Files(principal.workspace.id, query), (page) => json(200, page))
)

export const getFileRoute = authed(
  {
    method: "GET",
    path: "/api/x12/files/{id}",
    operationId: "getX12File",
    audit: { action: "x12_file.read", resource: "x12_file", idParam: "id" },
    tag: "Clearinghouse",
    summary: "One X12 file received, with what it did",
    description: "The file with a summary of its claim outcomes and its first 20 outcomes; all of them are paged at /api/x12/files/{id}/outcomes.",
    query: NoQuery,
    responses: { 200: { description: "The file", schema: X12File }, ...problems(401, 404, 429) }
  },
  ({ principal, params }) => Effect.map(getX12File(principal.workspace.id, params.id ?? ""), (f) => json(200, f))
)

export const listFileOutcomesRoute = authed(
  {
    method: "GET",
    path: "/api/x12/files/{id}/outcomes",
    operationId: "listX12FileOutcomes",
    audit: { action: "x12_file.outcomes", resource: "x12_file", idParam: "id" },
    tag: "Clearinghouse",
    summary: "What one X12 file did to each claim it names, in file order",
    query: PageQuery,
    responses: { 200: { description: "A page of the file's claim outcomes", schema: X12OutcomePage }, ...problems(400, 401, 404, 429) }
  },
  ({ principal, params, query }) => Effect.map(listX12FileOutcomes(principal.workspace.id, params.id ?? "", query), (page) => json(200, page))
)

export const x12Routes = [createBatchRoute, listBatchesRoute, getBatchRoute, getBatchFileRoute, importRoute, listFilesRoute, listFileOutcomesRoute, getFileRoute]
