import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readmeExample } from "./support/readme.js"
import { startTestServer, type TestServer } from "./support/server.js"

/**
 * The README's curl walk-through, run as the script it is (bash, curl and jq) against a server:
 * only the key (printed at first run) and the address are put in.
 */
let server: TestServer
let dir: string
beforeAll(async () => {
  server = await startTestServer()
  dir = mkdtempSync(join(tmpdir(), "encounterd-walkthrough-"))
})
afterAll(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

test("the README's walk-through runs as written and does what its comments say", async () => {
  const script = readmeExample("walkthrough.sh")
  expect(script).toContain("export KEY=eik_...")
  const port = new URL(server.url).port
  const runnable = ["set -euo pipefail", script.replace("export KEY=eik_...", `export KEY=${server.keys.aWriter}`).replaceAll("localhost:8080", `localhost:${port}`)]
  writeFileSync(join(dir, "walkthrough.sh"), `${runnable.join("\n")}\n`)
  writeFileSync(join(dir, "encounter.json"), readFileSync(join(import.meta.dir, "fixtures", "valid", "shr-001-ophthalmology.json")))
  // Each command's output on its own line, to read back what the script printed.
  const proc = Bun.spawn(["bash", "-c", `source ./walkthrough.sh | sed -e '$a\\'`], { cwd: dir, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  expect(stderr).toBe("")
  expect(code).toBe(0)
  const answers = stdout
    .replaceAll("}{", "}\n{")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l): Record<string, unknown> => JSON.parse(l))
  // workspace, the replay, the compat read, the status move, the second events page.
  expect(answers).toHaveLength(5)
  expect(answers[0]).toMatchObject({ slug: "clinic-a" })
  expect(answers[1]).toMatchObject({ duplicate: true })
  const encounterId = answers[1]?.encounter_id
  expect(answers[2]).toMatchObject({ encounter_id: encounterId })
  expect(answers[3]).toMatchObject({ status: "submitted_to_payer" })
  const events = answers[4]?.items
  expect(Array.isArray(events) ? events.map((e: { event_type: string }) => e.event_type) : events).toEqual(["ExternalApi.Encounter.StatusUpdated"])
})
