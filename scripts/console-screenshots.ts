/**
 * Takes the README's console screenshots (docs/console-*.png, at 1280x800, and
 * docs/console-phone-*.png at 390x844): a seeded in-process server on loopback, Debian's Chromium
 * through playwright-core. Run: `bun scripts/console-screenshots.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium, type Page } from "playwright-core"
import { createApiKey } from "../lib/rules/workspaces.js"
import { parseRetrySchedule } from "../lib/webhooks/schedule.js"
import { seedEncounters, seedExchange, seedRemittances, sendRejected } from "../test/support/console-seed.js"
import { startTestServer } from "../test/support/server.js"
import { startReceiver } from "../test/webhooks/receiver.js"

const out = join(import.meta.dir, "../docs")
const dataDir = mkdtempSync(join(tmpdir(), "encounterd-shots-"))
// Webhooks to a loopback receiver: two attempts per delivery, 200 ms apart.
const schedule = parseRetrySchedule("0s,200ms")
if (schedule._tag === "Left") throw schedule.left
const receiver = startReceiver(() => "whsec_unused")
const server = await startTestServer({
  db: join(dataDir, "shots.sqlite"),
  webhooks: { allowPrivate: true, schedule: schedule.right, timeoutMs: 1000 },
  worker: { pollMs: 50 }
})

const call = async (method: string, path: string, body?: unknown, key = server.keys.aWriter) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return res.json()
}

// Webhook endpoints: one that takes every event (its receiver answers, then, moved, fails), one
// disabled. Some history: claims moved along the table, so that the counts and timelines say something.
const hooks = (method: string, path: string, body?: unknown) => call(method, path, body, server.keys.aHooks)
const billing = await hooks("POST", "/api/webhooks/endpoints", { url: receiver.url("/ok"), description: "Billing system" })
const old = await hooks("POST", "/api/webhooks/endpoints", { url: receiver.url("/old"), description: "Old practice system", event_types: ["ExternalApi.Encounter.Created"] })
await hooks("PATCH", `/api/webhooks/endpoints/${old.id}`, { status: "disabled" })
await seedEncounters(server.url, server.keys.aWriter, 24)
await hooks("PATCH", `/api/webhooks/endpoints/${billing.id}`, { url: receiver.url("/fail") })
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
await seedExchange(server.url, server.keys.aWriter, "x12")
await seedRemittances(server.url, server.keys.aWriter)
// Until the worker has settled every delivery (the last ones fail after their second attempt).
for (let i = 0; i < 200; i++) {
  const page = await hooks("GET", `/api/webhooks/endpoints/${billing.id}/deliveries?status=pending`)
  if (page.items.length === 0) break
  await Bun.sleep(100)
}

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] })
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
const shot = (name: string) => page.screenshot({ path: join(out, `console-${name}.png`), fullPage: true })
const h1 = (p: Page, name: string | RegExp) => p.getByRole("heading", { level: 1, name }).waitFor()

await page.goto(`${server.url}/console`)
await h1(page, "Sign in")
await shot("sign-in")
// A key with every scope: the webhooks view needs webhooks:write.
const everything = await server.runtime.runPromise(createApiKey("clinic-a", ["claims:write", "webhooks:write"]))
await page.getByLabel("API key").fill(everything.key)
await page.getByRole("button", { name: "Sign in" }).click()
await h1(page, "Encounters")
await page.goto(`${server.url}/console/encounters?created_from=2026-01-01`)
await h1(page, "Encounters")
await shot("encounters")
await page.goto(`${server.url}/console/encounters?patient_last_name=sam&date_of_service_from=2026-10-01&date_of_service_to=2026-10-31`)
await page.getByRole("table", { name: /^Encounters matching the filters/ }).waitFor()
await shot("search")
await page.goto(`${server.url}/console/encounters?created_from=2026-01-01`)
await page.getByRole("link", { name: "enc-1024" }).click()
await h1(page, "Encounter enc-1024")
await shot("encounter")
await page.goto(`${server.url}/console/encounters?external_id=x12-1`)
await page.getByRole("link", { name: "x12-1" }).click()
await page.getByRole("heading", { level: 2, name: "Remittances" }).waitFor()
await shot("remittances")
await page.goto(`${server.url}/console/intake`)
await h1(page, "Intake log")
await page.getByRole("button", { name: "Show raw body" }).first().click()
await page.getByLabel("Raw body").first().waitFor()
await shot("intake")
await page.goto(`${server.url}/console/claims?status=draft&sort=amount&order=desc`)
await page.getByRole("heading", { level: 2, name: /Claims in status/ }).waitFor()
await shot("claims")
await page.goto(`${server.url}/console/events?event_type=ExternalApi.Encounter.StatusUpdated`)
await page.getByRole("table", { name: /Events matching the filters/ }).waitFor()
await shot("events")
await page.goto(`${server.url}/console/webhooks/${billing.id}`)
await page.getByRole("table", { name: /^Deliveries/ }).waitFor()
await shot("webhooks")
await page.goto(`${server.url}/console/clearinghouse`)
await page.getByRole("table", { name: /^Files received/ }).waitFor()
await shot("clearinghouse")

// A phone: 390 px wide. The views billing staff use most, as they fit it.
const phone = await browser.newPage({ viewport: { width: 390, height: 844 } })
await phone.context().addCookies(await page.context().cookies())
const phoneShot = (name: string) => phone.screenshot({ path: join(out, `console-phone-${name}.png`), fullPage: true })
await phone.goto(`${server.url}/console/encounters?patient_last_name=sam`)
await phone.getByRole("table", { name: /^Encounters matching the filters/ }).waitFor()
await phoneShot("search")
await phone.goto(`${server.url}/console/encounters?external_id=x12-1`)
await phone.getByRole("link", { name: "x12-1" }).click()
await phone.getByRole("heading", { level: 2, name: "Remittances" }).waitFor()
await phoneShot("remittances")
await phone.goto(`${server.url}/console/claims?status=draft&sort=amount&order=desc`)
await phone.getByRole("heading", { level: 2, name: /Claims in status/ }).waitFor()
await phoneShot("claims")

await browser.close()
await server.close()
receiver.stop()
rmSync(dataDir, { recursive: true, force: true })
process.stdout.write(`screenshots written to ${out}\n`)
