import { afterAll, describe, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sqliteStorageLayer } from "../../lib/sqlite-bun.js"
import { storageContract } from "./storage.contract.js"

storageContract("sqlite (bun:sqlite, in memory)", () => sqliteStorageLayer(":memory:"), { describe, test })

const dir = mkdtempSync(join(tmpdir(), "encounterd-contract-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
storageContract("sqlite (bun:sqlite, file)", () => sqliteStorageLayer(join(dir, `db-${n++}.sqlite`)), { describe, test })
