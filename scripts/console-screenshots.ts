/**
 * Takes the README's console screenshots (docs/console-*.png): a seeded in-process server on
 * loopback, Debian's Chromium through playwright-core. Run: `bun scripts/console-screenshots.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium, type Page } from "playwright-core"
import { seedEncounters, sendRejected } from "../test/support/console-seed.js"
import { startTestServer } from "../test/support/server.js"

const out = join(import.meta.dir, "../docs")
const dataDir = mkdtempSync(join(tmpdir(), "encounterd-shots-"))
const server = await startTestServer({ db: join(dataDir, "shots.sqlite") })

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.keys.aWriter}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return res.json()
}

// Some history: claims moved along the table, so that the counts and timelines say something.
await seedEncounters(server.url, server.keys.aWriter, 24)
await sendRejected(server.url, server.keys.aWriter, "enc-2001")
await sendRejected(server.url, server.keys.aWriter, "enc-2002")
const moves: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["enc-1024", ["coded", "submitted_to_payer", "rejected"]],
  ["enc-1023", ["coded", "submitted_to_payer"]],
  ["enc-1022", ["submitted_to_payer", "paid"]],
  ["enc-1021", ["missing_information"]],
  ["enc-1020", ["coded"]],
  ["enc-1019", ["submitted_to_payer"]],
  ["enc-1018", ["not_billable"]]
]
for (const [externalId, statuses] of moves) {
  const list = await call("GET", `/api/encounters?external_id=${externalId}`)
  const claimId: string = list.items[0].latest_claim.id
  for (const status of statuses) await call("POST", `/api/claims/${claimId}/status`, { status, note: `moved to ${status}` })
}

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] })
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
const shot = (name: string) => page.screenshot({ path: join(out, `console-${name}.png`), fullPage: true })
const h1 = (p: Page, name: string | RegExp) => p.getByRole("heading", { level: 1, name }).waitFor()

await page.goto(`${server.url}/console`)
await h1(page, "Sign in")
await shot("sign-in")
await page.getByLabel("API key").fill(server.keys.aWriter)
await page.getByRole("button", { name: "Sign in" }).click()
await h1(page, "Encounters")
await page.goto(`${server.url}/console/encounters?created_from=2026-01-01`)
await h1(page, "Encounters")
await shot("encounters")
await page.getByRole("link", { name: "enc-1024" }).click()
await h1(page, "Encounter enc-1024")
await shot("encounter")
await page.goto(`${server.url}/console/intake`)
await h1(page, "Intake log")
await page.getByRole("button", { name: "Show raw body" }).first().click()
await page.getByLabel("Raw body").first().waitFor()
await shot("intake")
await page.goto(`${server.url}/console/claims?status=submitted_to_payer`)
await page.getByRole("heading", { level: 2, name: /Claims in status/ }).waitFor()
await shot("claims")
await page.goto(`${server.url}/console/events?event_type=ExternalApi.Encounter.StatusUpdated`)
await page.getByRole("table", { name: /Events matching the filters/ }).waitFor()
await shot("events")

await browser.close()
await server.close()
rmSync(dataDir, { recursive: true, force: true })
process.stdout.write(`screenshots written to ${out}\n`)
