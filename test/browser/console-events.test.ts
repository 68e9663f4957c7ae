import { mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { seedEncounters } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { chromiumAvailable, closeSuite, expectAccessible, launch, shotDir, signIn, watchedPage } from "./browser.js"

const available = chromiumAvailable()
// A browser test drives several pages and an accessibility scan: far above the default timeout.
const SLOW = 60_000

describe.skipIf(!available)("console events view in Chromium", () => {
  let server: TestServer
  let browser: Browser
  let dataDir: string
  let shots: string
  const contexts: Array<BrowserContext> = []

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "encounterd-console-events-db-"))
    server = await startTestServer({ db: join(dataDir, "console.sqlite") })
    await seedEncounters(server.url, server.keys.aWriter, 4)
    browser = await launch()
    shots = shotDir()
    process.stderr.write(`console screenshots: ${shots}\n`)
  }, SLOW)

  afterAll(async () => {
    await closeSuite({ contexts, browser, server, dataDir })
  })

  const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor()

  test("after a move, the Events view filtered by StatusUpdated shows it and links to its encounter", async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } })
    contexts.push(context)
    const { page, problems } = await watchedPage(context)
    await signIn(page, server, server.keys.aWriter, "/console/encounters?external_id=enc-1002")
    await page.getByRole("link", { name: "enc-1002" }).click()
    await heading(page, "Encounter enc-1002")
    await page.getByLabel("New status for encounter enc-1002").selectOption("coded")
    await page.getByLabel("Note (optional)").fill("codes checked")
    await page.getByRole("button", { name: "Move claim" }).click()
    await page.getByRole("button", { name: "Confirm move" }).click()
    await page.getByRole("status").filter({ hasText: "Claim moved to coded." }).waitFor()

    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Events" }).click()
    await heading(page, "Events")
    expect(await page.locator("table tbody tr").count()).toBe(5)
    await page.getByLabel("Event type").selectOption("ExternalApi.Encounter.StatusUpdated")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await page.waitForURL(/event_type=ExternalApi.Encounter.StatusUpdated/)
    const rows = page.getByRole("table", { name: "Events matching the filters, oldest first" }).locator("tbody tr")
    await rows.first().waitFor()
    expect(await rows.count()).toBe(1)
    const cells = (await rows.first().innerText()).split("\t").map((c) => c.trim())
    expect(cells.slice(1)).toEqual(["StatusUpdated", "Encounter enc-1002", "enc-1002", "draft", "coded", "codes checked"])
    expect(cells[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/)
    const path = join(shots, "events.png")
    await page.screenshot({ path, fullPage: true })
    expect(statSync(path).size).toBeGreaterThan(1000)
    await expectAccessible(browser, context, page.url(), (p) => heading(p, "Events"))

    await page.getByRole("link", { name: "Encounter enc-1002" }).click()
    await heading(page, "Encounter enc-1002")
    expect(problems).toEqual([])
  }, SLOW)
})
