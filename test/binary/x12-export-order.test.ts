import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Either, Layer, Option } from "effect"
import { exportBatch } from "../../bin/x12-export.js"
import { StorageError } from "../../lib/domain/errors.js"
import { ClaimId } from "../../lib/domain/ids.js"
import { memoryLayer } from "../../lib/layers.js"
import { Storage } from "../../lib/ports/storage.js"
import { putClearinghouseSettings } from "../../lib/rules/clearinghouse-settings.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { listX12Batches } from "../../lib/rules/x12-reads.js"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { removeTemps, tempDir } from "../support/binary.js"
import { runWith } from "../support/run.js"

/**
 * The order of `x12 export` (bin/x12-export.ts) when what follows the batch's write goes wrong:
 * storage wrapped so that its write, once made, is followed by a failure of our choosing.
 */
afterAll(removeTemps)

/** Storage whose `write` runs `after` once the write is made (or fails instead, with `commit: false`). */
const storageWith = (after: (committed: boolean) => Effect.Effect<void, StorageError>, commit = true) =>
  Layer.effect(
    Storage,
    Effect.map(Storage, (s) => ({
      ...s,
      write: (w) =>
        w.operation !== "createX12Batch"
          ? s.write(w)
          : commit
            ? Effect.flatMap(s.write(w), (r) => Effect.as(after(true), r))
            : Effect.flatMap(after(false), () => s.write(w))
    }))
  ).pipe(Layer.provideMerge(memoryLayer))

const scenario = (out: string) =>
  Effect.gen(function* () {
    const ws = (yield* createWorkspace("clinic", "Clinic")).id
    yield* putClearinghouseSettings(ws, clearinghouseSettingsInput)
    const created = yield* createEncounter(ws, exportablePayload("enc-1", "PCN0001"))
    const claim = (yield* getEncounter(ws, created.encounter_id)).claim.id
    const result = yield* Effect.either(exportBatch(ws, [claim], out))
    const found = yield* Effect.flatMap(Storage, (s) => s.findClaim(ws, ClaimId.make(claim)))
    const status = Option.isSome(found) ? found.value.claim.status : "missing"
    return { result, status, batches: (yield* listX12Batches(ws, {})).items.length }
  })

const lost = (operation: string) => new StorageError({ operation, cause: new Error("connection lost"), unavailable: "interrupted" })

describe("x12 export after the batch's write", () => {
  test("the name taken meanwhile: exit 3, the claims moved, the file kept under its temporary name, never over the other file", async () => {
    const dir = tempDir("export-order-taken")
    const out = join(dir, "batch.x12")
    const layer = storageWith(() => Effect.sync(() => writeFileSync(out, "someone else's")))
    const { result, status, batches } = await runWith(layer, scenario(out))
    expect([status, batches]).toEqual(["submitted_to_payer", 1])
    expect(Either.isLeft(result) && result.left._tag).toBe("BatchFileNotPlaced")
    const error = Either.isLeft(result) ? result.left : undefined
    expect(error !== undefined && "exitCode" in error ? error.exitCode : undefined).toBe(3)
    expect(error?.message).toMatch(/^Batch \S+ was sent and its claims moved to submitted_to_payer, but its file could not be named /)
    expect(error?.message).toContain("EEXIST")
    expect(error?.message).toMatch(/the same bytes are at GET \/api\/x12\/837p-batches\/\S+\/file/)
    expect(readFileSync(out, "utf8")).toBe("someone else's")
    const kept = readdirSync(dir).filter((f) => f.endsWith(".partial"))
    expect(kept.length).toBe(1)
    expect(error?.message).toContain(join(dir, kept[0]!))
    expect(readFileSync(join(dir, kept[0]!), "utf8")).toStartWith("ISA*")
  })

  test("storage failing after the write was made: the batch is looked up, found, and the file named (exit 0)", async () => {
    const out = join(tempDir("export-order-made"), "batch.x12")
    const { result, status, batches } = await runWith(storageWith(() => Effect.fail(lost("createX12Batch"))), scenario(out))
    expect(Either.isRight(result) && result.right.file).toBe(out)
    expect([status, batches]).toEqual(["submitted_to_payer", 1])
    expect(readFileSync(out, "utf8")).toStartWith("ISA*")
  })

  test("storage failing before the write was made: looked up, not found; exit 1 saying nothing moved, no file left", async () => {
    const dir = tempDir("export-order-not-made")
    const out = join(dir, "batch.x12")
    const { result, status, batches } = await runWith(storageWith(() => Effect.fail(lost("createX12Batch")), false), scenario(out))
    expect(Either.isLeft(result) && result.left._tag).toBe("ExportRefused")
    expect(Either.isLeft(result) && result.left.message).toBe("Storage failed during createX12Batch; nothing was sent and no claim moved")
    expect([status, batches]).toEqual(["draft", 0])
    expect(existsSync(out)).toBe(false)
    expect(readdirSync(dir)).toEqual([])
  })
})
