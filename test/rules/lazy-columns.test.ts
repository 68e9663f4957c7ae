import { Database } from "bun:sqlite"
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { RowDecodeError } from "../../lib/adapters/sql/codec.js"
import { codecs } from "../../lib/adapters/sql/statements.js"
import { Clock, Ids } from "../../lib/ports/clock.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { createWorkspace } from "../../lib/rules/workspaces.js"
import { sqliteStorageLayer } from "../../lib/sqlite-bun.js"
import { validPayload } from "../support/payloads.js"
import { runWith } from "../support/run.js"

const dir = mkdtempSync(join(tmpdir(), "encounterd-lazy-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A SQLite file holding one encounter made through the rules; answers its stored row as SQLite gives it. */
const storedRow = async (file: string, corrupt?: (db: Database) => void): Promise<Record<string, unknown>> => {
  const path = join(dir, file)
  await runWith(
    Layer.mergeAll(sqliteStorageLayer(path), Clock.manual(Date.parse("2026-11-01T00:00:00Z")).layer, Ids.live),
    Effect.gen(function* () {
      const ws = yield* createWorkspace("clinic-l", "Clinic L")
      yield* createEncounter(ws.id, validPayload("lazy-1"), { source: "api" })
    })
  )
  const db = new Database(path)
  try {
    corrupt?.(db)
    const row = db.prepare("SELECT * FROM encounters").get()
    if (row === null || typeof row !== "object") throw new Error("no encounter stored")
    return row as Record<string, unknown>
  } finally {
    db.close()
  }
}

describe("lazy JSON columns (TableDef.lazy): the encounter's payload", () => {
  test("is parsed when first read, not when the row is decoded, and reads as stored", async () => {
    const row = await storedRow("good.sqlite")
    const text = row.payload
    expect(typeof text).toBe("string")
    const decoded = codecs.encounters.decode(row)
    // Decoded, but not parsed yet: a property that parses when read.
    expect(typeof Object.getOwnPropertyDescriptor(decoded, "payload")?.get).toBe("function")
    expect(decoded.external_id).toBe("lazy-1")
    expect(decoded.payload).toEqual(JSON.parse(String(text)))
    // Once read, an ordinary property holding the value.
    const after = Object.getOwnPropertyDescriptor(decoded, "payload")
    expect(after?.get).toBeUndefined()
    expect(after?.value).toBe(decoded.payload)
    expect(Object.keys(decoded)).toContain("payload")
  })

  test("a stored payload that fails its check throws RowDecodeError when read", async () => {
    const row = await storedRow("bad-payload.sqlite", (db) => db.exec(`UPDATE encounters SET payload = '{"not":"a payload"}'`))
    const decoded = codecs.encounters.decode(row)
    expect(decoded.external_id).toBe("lazy-1")
    expect(() => decoded.payload).toThrow(RowDecodeError)
  })

  test("a row whose other columns fail their checks is refused when decoded, as before", async () => {
    const row = await storedRow("bad-row.sqlite", (db) => db.exec("UPDATE encounters SET revision = 'x'"))
    expect(() => codecs.encounters.decode(row)).toThrow(RowDecodeError)
  })

  test("a joined row (columns named with a prefix) is lazy the same way", async () => {
    const row = await storedRow("joined.sqlite")
    const joined = Object.fromEntries(Object.entries(row).map(([k, v]) => [`e_${k}`, v]))
    const decoded = codecs.encounters.decode(joined, "e_")
    expect(typeof Object.getOwnPropertyDescriptor(decoded, "payload")?.get).toBe("function")
    expect(decoded.payload).toEqual(JSON.parse(String(row.payload)))
  })
})
