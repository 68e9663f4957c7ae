/**
 * The storage contract under Node with better-sqlite3 (the adapter's Node driver). Bundled for
 * Node by `test/contract/node.test.ts` and run with `node --test`.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { strict as assert } from "node:assert"
import { after, describe, test } from "node:test"
import { Cause, Effect, ManagedRuntime, Option } from "effect"
import { Storage } from "../../lib/ports/storage.js"
import { sqliteStorageLayer } from "../../lib/sqlite-node.js"
import { storageContract } from "../contract/storage.contract.js"

const harness = { describe: (name: string, body: () => void) => void describe(name, body), test: (name: string, body: () => Promise<void>) => void test(name, body) }
storageContract("sqlite (better-sqlite3 on Node, in memory)", () => sqliteStorageLayer(":memory:"), harness)
const dir = mkdtempSync(join(tmpdir(), "encounterd-node-"))
after(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
storageContract("sqlite (better-sqlite3 on Node, file)", () => sqliteStorageLayer(join(dir, `db-${n++}.sqlite`)), harness)

describe("better-sqlite3 on Node: mustExist", () => {
  test("a missing file is DatabaseMissing and nothing is made", async () => {
    const missing = join(dir, "none", "encounterd.sqlite")
    const runtime = ManagedRuntime.make(sqliteStorageLayer(missing, { mustExist: true }))
    const exit = await runtime.runPromiseExit(Effect.flatMap(Storage, (s) => s.listWorkspaces()))
    await runtime.dispose()
    const failure = exit._tag === "Failure" ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
    assert.equal(failure?._tag, "DatabaseMissing")
    assert.equal(existsSync(join(dir, "none")), false)
  })
})
