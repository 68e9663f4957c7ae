import { mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { type SeededExchange, seedExchange } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { chromiumAvailable, closeSuite, expectAccessible, launch, shotDir, signIn, watchedPage } from "./browser.js"

const available = chromiumAvailable()
// A browser test drives several pages and an accessibility scan: far above the default timeout.
const SLOW = 60_000

describe.skipIf(!available)("console clearinghouse view in Chromium", () => {
  let server: TestServer
  let browser: Browser
  let dataDir: string
  let shots: string
  let seeded: SeededExchange
  const contexts: Array<BrowserContext> = []

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "encounterd-console-x12-db-"))
    server = await startTestServer({ db: join(dataDir, "console.sqlite") })
    seeded = await seedExchange(server.url, server.keys.aWriter)
    browser = await launch()
    shots = shotDir()
    process.stderr.write(`console screenshots: ${shots}\n`)
  }, SLOW)

  afterAll(async () => {
    await closeSuite({ contexts, browser, server, dataDir })
  })

  const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor()
  const cellsOf = async (row: ReturnType<Page["locator"]>) => (await row.innerText()).split("\t").map((c) => c.trim())

  test("the batch sent and the files received, then one file with what it did to each claim", async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } })
    contexts.push(context)
    const { page, problems } = await watchedPage(context)
    // Any key reads the exchange (as in the API).
    await signIn(page, server, server.keys.a)
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Clearinghouse" }).click()
    await heading(page, "Clearinghouse")

    const control = String(seeded.interchangeControlNumber).padStart(9, "0")
    const batches = page.getByRole("table", { name: "837P batches, newest first" }).locator("tbody tr")
    expect(await batches.count()).toBe(1)
    const batch = await cellsOf(batches.first())
    expect(batch.slice(1)).toEqual([control, String(seeded.interchangeControlNumber), "4", `837P file ${control}`])
    expect(batch[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/)
    const href = await page.getByRole("link", { name: `837P file ${control}` }).getAttribute("href")
    const download = await page.evaluate(async (url) => {
      const r = await fetch(url)
      return [r.status, (await r.text()).slice(0, 3)]
    }, href ?? "")
    expect(download).toEqual([200, "ISA"])

    const files = page.getByRole("table", { name: "Files received (999, 277CA, 835), newest first" }).locator("tbody tr")
    expect(await files.count()).toBe(3)
    const [refused, ack277, ack999] = [await cellsOf(files.nth(0)), await cellsOf(files.nth(1)), await cellsOf(files.nth(2))]
    expect([refused[1], refused[4]?.startsWith("refused:")]).toEqual(["invalid", true])
    expect(ack277.slice(1, 3)).toEqual(["277CA", "CLEARHOUSE"])
    expect(ack277[4]).toMatch(/status changed/)
    expect(ack277[4]).toMatch(/1 unmatched/)
    expect(ack999.slice(1, 4)).toEqual(["999", "CLEARHOUSE", "000000901"])
    await expectAccessible(browser, context, page.url(), (p) => heading(p, "Clearinghouse"))
    const path = join(shots, "clearinghouse.png")
    await page.screenshot({ path, fullPage: true })
    expect(statSync(path).size).toBeGreaterThan(1000)

    await files.nth(1).getByRole("link").click()
    await heading(page, /^277CA file received/)
    const claims = page.getByRole("table", { name: "What the file did to each claim it names" }).locator("tbody tr")
    expect(await claims.count()).toBeGreaterThanOrEqual(4)
    const unmatched = claims.filter({ hasText: "PCNX0099" })
    expect((await cellsOf(unmatched)).slice(0, 3)).toEqual(["PCNX0099", "—", "unmatched"])
    await expectAccessible(browser, context, page.url(), (p) => heading(p, /^277CA file received/))
    await page.getByRole("link", { name: "← Clearinghouse" }).click()
    await heading(page, "Clearinghouse")
    expect(problems).toEqual([])
  }, SLOW)
})
