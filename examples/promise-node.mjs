import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { InvalidEncounter } from "encounterd"
import { openClient } from "encounterd/promise"
import { sqliteLayer } from "encounterd/sqlite-node"

const dir = mkdtempSync(join(tmpdir(), "enc-"))
const client = openClient(sqliteLayer(join(dir, "encounters.sqlite")))
try {
  const ws = await client.createWorkspace("clinic-a", "Clinic A")
  try {
    await client.createEncounter(ws.id, { external_id: "visit-1", responsible_party: "INSURANCE_PAY" })
  } catch (err) {
    // Rejections are the library's typed errors (`_tag`, `message`); a validation failure lists every problem with its path.
    if (!(err instanceof InvalidEncounter)) throw err
    const problem = err.errors.find((e) => e.path === "subscriber_primary")
    console.log(`rejected with ${err.errors.length} problems, e.g. ${problem?.path}: ${problem?.message}`)
  }
  const page = await client.listEncounters(ws.id, { limit: 10 })
  console.log(`encounters: ${page.items.length}`)
} finally {
  await client.close()
  rmSync(dir, { recursive: true, force: true })
}
