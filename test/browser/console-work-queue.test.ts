import { copyFileSync, mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { seedEncounters, seedExchange } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { chromiumAvailable, closeSuite, expectAccessible, launch, offScreen, SCREENS, shotDir, signIn, watchedPage } from "./browser.js"

/**
 * The work queue in the console, on a phone and a laptop: the counts by type and category, the
 * list by due date, a task's page with its cause in plain words, and the actions that fix it.
 * With ENCOUNTERD_DOCS_SHOTS=1 the laptop and phone shots are copied to docs/.
 */

const available = chromiumAvailable()
const SLOW = 120_000
const docs = join(import.meta.dir, "..", "..", "docs")

describe.skipIf(!available)("console work queue in Chromium", () => {
  let server: TestServer
  let browser: Browser
  let dataDir: string
  let shots: string
  const contexts: Array<BrowserContext> = []

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "encounterd-console-queue-db-"))
    server = await startTestServer({ db: join(dataDir, "console.sqlite") })
    await seedEncounters(server.url, server.keys.aWriter, 4)
    // The exchange: a 277CA rejects two claims (an NPI the payer does not know, a member id).
    await seedExchange(server.url, server.keys.aWriter, "x12")
    // And a claim the payer denied, by letter (a move through the API).
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.keys.aWriter}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      }).then((r) => r.json())
    const claim: string = (await call("GET", "/api/encounters?external_id=enc-1001")).items[0].latest_claim.id
    await call("POST", `/api/claims/${claim}/status`, { status: "submitted_to_payer" })
    await call("POST", `/api/claims/${claim}/status`, { status: "denied", note: "Payer letter: not medically necessary" })
    browser = await launch()
    shots = shotDir()
  }, SLOW)

  afterAll(async () => {
    await closeSuite({ contexts, browser, server, dataDir })
  })

  const open = async (viewport: { readonly width: number; readonly height: number }) => {
    const context = await browser.newContext({ viewport })
    contexts.push(context)
    return { context, ...(await watchedPage(context)) }
  }
  const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor()
  const shot = async (page: Page, name: string) => {
    const path = join(shots, `${name}.png`)
    await page.screenshot({ path, fullPage: true })
    expect(statSync(path).size).toBeGreaterThan(1000)
    if (process.env.ENCOUNTERD_DOCS_SHOTS === "1") copyFileSync(path, join(docs, `${name}.png`))
  }
  const cells = async (page: Page, table: string | RegExp) =>
    page
      .getByRole("table", { name: table })
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll("th, td")).map((c) => (c.textContent ?? "").trim())))

  for (const screen of SCREENS) {
    const suffix = screen.name === "390x844" ? "console-phone-work-queue" : "console-work-queue"
    describe(screen.name, () => {
      test("the queue: counts by type and category, tasks oldest due first with age and amount, filters", async () => {
        const { context, page, problems } = await open(screen.viewport)
        await signIn(page, server, server.keys.a, "/console/work-queue")
        await heading(page, "Work queue")
        const list = "Tasks, oldest due first"
        await page.getByRole("table", { name: list }).waitFor()
        const counts = await cells(page, "Open tasks by type and category")
        expect(counts).toContainEqual(["Rejection to resolve", "provider identifier", "1"])
        const rows = await cells(page, list)
        // Rejections are due first (2 days), then the denial (14).
        expect(rows.map((r) => r[0]!.split(":")[0])).toEqual(["Rejection to resolve", "Rejection to resolve", "Denial to resolve"])
        expect(rows.every((r) => /^\$\d/.test(r[4]!))).toBe(true)
        expect(await offScreen(page)).toEqual([])
        await expectAccessible(browser, context, page.url(), (p) => p.getByRole("table", { name: list }).waitFor(), screen.viewport)
        await shot(page, suffix)
        await page.getByLabel("Type", { exact: true }).selectOption("denial_resolution")
        await page.getByRole("button", { name: "Apply filters" }).click()
        await page.waitForURL(/type=denial_resolution/)
        // The filtered list replaces the table once its answer is in: wait for it, not for any table.
        await page.getByRole("table", { name: list }).getByText("Rejection to resolve").first().waitFor({ state: "detached" })
        expect((await cells(page, list)).map((r) => r[0]!.split(":")[0])).toEqual(["Denial to resolve"])
        expect(problems).toEqual([])
      }, SLOW)

      test("a task's page: its cause in plain words with each code's meaning and file; marked done, it leaves the open queue", async () => {
        const { context, page, problems } = await open(screen.viewport)
        await signIn(page, server, server.keys.aWriter, "/console/work-queue?type=rejection_resolution")
        await page.getByRole("link", { name: "Rejection to resolve: x12-2" }).click()
        await heading(page, "Rejection to resolve: x12-2")
        await page.getByText("The payer's 277CA acknowledgment rejected the claim.").waitFor()
        const codes = await cells(page, "The codes and what they mean")
        expect(codes).toContainEqual(["stc_status:562", "Entity's National Provider Identifier (NPI)."])
        await page.getByRole("link", { name: /^[0-9a-f-]{36}$/ }).first().waitFor()
        await page.getByRole("form", { name: "Move the claim of x12-2" }).waitFor()
        expect(await offScreen(page)).toEqual([])
        await expectAccessible(browser, context, page.url(), (p) => p.getByRole("heading", { level: 2, name: "Fix it" }).waitFor(), screen.viewport)
        if (screen.name === "1280x800") {
          await shot(page, "console-task")
          await page.getByRole("button", { name: "Mark done" }).click()
          await page.getByText("Task marked done.").waitFor()
          await page.goto(`${server.url}/console/work-queue?type=rejection_resolution`)
          await page.getByRole("table", { name: "Tasks, oldest due first" }).waitFor()
          expect((await cells(page, "Tasks, oldest due first")).map((r) => r[0])).toEqual(["Rejection to resolve: x12-3"])
        }
        expect(problems).toEqual([])
      }, SLOW)
    })
  }
})
