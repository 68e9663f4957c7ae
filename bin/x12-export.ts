import { existsSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { Data, Effect, Either } from "effect"
import { reasonOf } from "../lib/domain/errors.js"
import type { WorkspaceId } from "../lib/domain/ids.js"
import type { X12Batch, X12BatchRecord } from "../lib/domain/x12-exchange.js"
import { discardStagedFile, publishStagedFile, type StagedFile, stagePrivateFile } from "../lib/private-files.js"
import { findWorkspace } from "../lib/rules/workspaces.js"
import { createX12Batch, MAX_BATCH_CLAIMS } from "../lib/rules/x12-export.js"
import { getX12Batch } from "../lib/rules/x12-reads.js"
import { toProblem } from "../server/problem.js"
import { required, UsageError } from "./args.js"
import { type Command, dbOption, dbPath, withDb } from "./db-command.js"

/**
 * `x12 export`: the batch's file is on disk before its claims move, and gets its name only once
 * they have. The order, and why:
 *
 * 1. The rule reads the claims and builds the 837P; just before its one write (batch, moves,
 *    control number) the file is written in full, 0600 and synced, under a temporary name in the
 *    `--out` folder (`.NAME.<random>.partial`). A missing folder, a full disk, a permission
 *    fails here: the write is not made, nothing moves, exit 1.
 * 2. The write. Refused (a claim that cannot move, a race lost to another export: built again with
 *    the next control number) or failed: the temporary file is removed, nothing moved, exit 1. A
 *    storage failure during the commit itself may hide a write that was made: the batch is looked
 *    up before anything is said (found: go on to 3).
 * 3. The temporary file gets the name `--out` (a hard link, which never replaces a file, then the
 *    temporary name removed, then the folder synced). This is the only step after the claims have
 *    moved, and it cannot run out of space or miss the folder it was just written in. Should it
 *    fail still, exit 3 (not 1): the message says the claims moved and where the bytes are (the
 *    temporary file, and `GET /api/x12/837p-batches/ID/file`, which holds them since step 2).
 *
 * Undoing a committed move instead was rejected: its StatusUpdated events may already be read from
 * the feed or pushed to webhooks, so an undo would be a second, visible pair of moves.
 */

/** Exit 1: the export failed and nothing was sent, no claim moved. */
export class ExportRefused extends Data.TaggedError("ExportRefused")<{ readonly message: string }> {}

/** Exit 3: the batch was sent (its claims moved), but its file is not at `--out`. */
export class BatchFileNotPlaced extends Data.TaggedError("BatchFileNotPlaced")<{ readonly message: string }> {
  readonly exitCode = 3
}

const NOTHING_MOVED = "nothing was sent and no claim moved"

/** Why a file could not be written, in the operator's terms (the temporary name is ours, not theirs). */
const fileReason = (cause: unknown, out: string): string => {
  const code = cause instanceof Error && "code" in cause ? cause.code : undefined
  if (code === "ENOENT") return `the folder ${dirname(out)} does not exist`
  if (code === "ENOTDIR") return `${dirname(out)} is not a folder`
  if (code === "EACCES" || code === "EPERM") return `no permission to write in ${dirname(out)}`
  if (code === "ENOSPC") return "no space left on the device"
  if (code === "EROFS") return "the file system is read-only"
  return reasonOf(cause)
}

type BatchFailure = Effect.Effect.Error<ReturnType<typeof createX12Batch<never, never>>>

/** A refusal as the API words it (problem+json's detail and each `errors` entry), ending with what did not happen. */
const refusal = (e: BatchFailure): ExportRefused => {
  if (e._tag === "StorageError") return new ExportRefused({ message: `${e.message}; ${NOTHING_MOVED}` })
  if (e._tag === "ClaimNotFound") return new ExportRefused({ message: `claims[${e.id}]: no such claim in this workspace; ${NOTHING_MOVED}` })
  if (e._tag === "ClearinghouseNotConfigured") {
    return new ExportRefused({ message: `This workspace has no clearinghouse settings: run encounterd clearinghouse set first; ${NOTHING_MOVED}` })
  }
  const problem = toProblem(e)
  const detail = problem.detail.replace(/; nothing was sent or moved$/, "")
  const lines = (problem.errors ?? []).map((issue) => `\n  ${issue.path.replace(/^claim_ids/, "--claims")}: ${issue.message}`)
  return new ExportRefused({ message: `${detail}; ${NOTHING_MOVED}${lines.join("")}` })
}

/** The file of a committed batch could not be given its name. */
const notPlaced = (batchId: string, out: string, staged: StagedFile, cause: unknown) => {
  const kept = existsSync(staged.temp) ? `; the file is kept at ${staged.temp} (rename it to ${out})` : ""
  return new BatchFileNotPlaced({
    message:
      `Batch ${batchId} was sent and its claims moved to submitted_to_payer, but its file could not be named ${out} ` +
      `(${reasonOf(cause)})${kept}; the same bytes are at GET /api/x12/837p-batches/${batchId}/file. Do not export these claims again.`
  })
}

/** The committed batch's file gets its name. */
const place = (batch: X12Batch, staged: StagedFile, out: string) =>
  Effect.try({
    try: () => {
      publishStagedFile(staged)
      return { ...batch, file: out }
    },
    catch: (cause) => notPlaced(batch.id, out, staged, cause)
  })

/** Sends the claims as one batch whose file ends up at `out` (see the order above). */
export const exportBatch = (workspaceId: WorkspaceId, claimIds: ReadonlyArray<string>, out: string) =>
  Effect.gen(function* () {
    let staged: { readonly file: StagedFile; readonly batchId: string } | undefined
    const discard = () => {
      if (staged !== undefined) discardStagedFile(staged.file)
      staged = undefined
    }
    const stage = (batch: X12BatchRecord) =>
      Effect.try({
        try: () => {
          // A batch built again after a lost race replaces the one staged before it.
          discard()
          staged = { file: stagePrivateFile(out, batch.file), batchId: batch.id }
        },
        catch: (cause) => new ExportRefused({ message: `Cannot write ${out}: ${fileReason(cause, out)}; ${NOTHING_MOVED}` })
      })
    const sent = yield* Effect.either(createX12Batch(workspaceId, claimIds, stage))
    const last = staged
    if (Either.isRight(sent)) {
      if (last === undefined) return yield* Effect.die(new Error("a batch was committed without its file staged"))
      return yield* place(sent.right, last.file, out)
    }
    const e = sent.left
    if (e._tag === "ExportRefused") return yield* e
    if (e._tag === "StorageError" && last !== undefined) {
      // The commit may have been made before storage failed: look before saying what happened.
      const stored = yield* Effect.either(getX12Batch(workspaceId, last.batchId))
      if (Either.isRight(stored)) return yield* place(stored.right, last.file, out)
      if (stored.left._tag !== "X12BatchNotFound") {
        return yield* new BatchFileNotPlaced({
          message:
            `${e.message}: it is not known whether batch ${last.batchId} was sent. Its file is kept at ${last.file.temp}; ` +
            `if GET /api/x12/837p-batches lists the batch, its claims moved: rename the file to ${out}; otherwise delete it and export again.`
        })
      }
    }
    discard()
    return yield* refusal(e)
  })

export const x12ExportCommand: Command = {
  spec: {
    usage: "encounterd x12 export --workspace SLUG --claims ID[,ID...] --out FILE [--db FILE]",
    summary:
      `Send claims as one 837P batch (1 to ${MAX_BATCH_CLAIMS}; all move to submitted_to_payer) and write its file. Prints the batch. ` +
      "The file is written before the claims move: exit 1 means nothing was sent and no claim moved; exit 3 that the batch was sent but its file could not be named FILE (the message says where it is).",
    options: {
      workspace: { type: "string", help: "Workspace slug" },
      claims: { type: "string", help: "Claim ids, comma-separated" },
      out: { type: "string", help: "Where to write the 837P, owner-only (0600) (must not exist; its folder must)" },
      db: dbOption
    }
  },
  run: (p) => {
    const slug = required(p, "workspace")
    const claims = required(p, "claims").split(",").map((c) => c.trim()).filter((c) => c !== "")
    const out = resolve(required(p, "out"))
    if (existsSync(out)) throw new UsageError(`${out} already exists`)
    return withDb(
      dbPath(p),
      Effect.gen(function* () {
        const ws = yield* Effect.mapError(findWorkspace(slug), (e) => new ExportRefused({ message: `${e.message}; ${NOTHING_MOVED}` }))
        return yield* exportBatch(ws.id, claims, out)
      })
    )
  }
}
