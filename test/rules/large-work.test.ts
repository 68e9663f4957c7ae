import { describe, expect, test } from "bun:test"
import { Effect, Fiber, Layer } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { asLargeWork, largeWorkRunning } from "../../lib/large-work.js"
import { liveServices } from "../../lib/layers.js"
import { Storage, type StorageShape } from "../../lib/ports/storage.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { importX12File } from "../../lib/rules/x12-import.js"
import { runWith } from "../support/run.js"
import { make277 } from "../support/x12-files.js"

describe("large work", () => {
  test("is counted while it runs and no longer once it has succeeded, failed or been interrupted", async () => {
    expect(largeWorkRunning()).toBe(0)
    const seen = await Effect.runPromise(asLargeWork(Effect.sync(() => largeWorkRunning())))
    expect(seen).toBe(1)
    expect(largeWorkRunning()).toBe(0)
    const failed = await Effect.runPromise(Effect.either(asLargeWork(Effect.fail("refused"))))
    expect(failed._tag).toBe("Left")
    expect(largeWorkRunning()).toBe(0)
    const fiber = Effect.runFork(asLargeWork(Effect.never))
    await Effect.runPromise(Effect.yieldNow())
    expect(largeWorkRunning()).toBe(1)
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(largeWorkRunning()).toBe(0)
  })

  test("two at once are counted as two", async () => {
    const both = await Effect.runPromise(
      Effect.all([asLargeWork(Effect.zipRight(Effect.sleep(5), Effect.sync(largeWorkRunning))), asLargeWork(Effect.sync(largeWorkRunning))], {
        concurrency: 2
      })
    )
    expect(Math.max(...both)).toBe(2)
    expect(largeWorkRunning()).toBe(0)
  })

  test("an X12 import is large work: its writes run while it is counted, and it is not once answered", async () => {
    const seen: Array<number> = []
    // The memory adapter, each write noting how much large work is running as it is made.
    const noting = Layer.effect(
      Storage,
      Effect.map(
        Storage,
        (storage): StorageShape => ({
          ...storage,
          write: (w) => Effect.zipRight(Effect.sync(() => seen.push(largeWorkRunning())), storage.write(w))
        })
      )
    ).pipe(Layer.provideMerge(MemoryStorage.layer))
    await runWith(
      Layer.merge(noting, liveServices),
      Effect.gen(function* () {
        const ws = (yield* createWorkspace("large", "Large")).id
        seen.length = 0
        const res = yield* importX12File({ workspace_id: ws, body: new TextEncoder().encode(make277(500, [{ pcn: "NOBODY1", category: "A2" }])), content_type: "application/edi-x12" })
        expect(res.kind).toBe("277CA")
      })
    )
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((n) => n === 1)).toBe(true)
    expect(largeWorkRunning()).toBe(0)
  })
})
