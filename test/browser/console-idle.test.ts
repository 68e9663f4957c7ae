import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Browser, BrowserContext } from "playwright-core"
import { seedEncounters } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { chromiumAvailable, closeSuite, expectAccessible, launch, signIn, watchedPage } from "./browser.js"

const available = chromiumAvailable()
const SLOW = 60_000
/** Short enough to watch end: the page warns a minute ahead, so here from the start. */
const IDLE_MS = 4_000

describe.skipIf(!available)("automatic logoff in Chromium", () => {
  let server: TestServer
  let browser: Browser
  const contexts: Array<BrowserContext> = []

  beforeAll(async () => {
    server = await startTestServer({ config: { console: { sessionIdleMs: IDLE_MS } } })
    await seedEncounters(server.url, server.keys.aWriter, 1, "idle")
    browser = await launch()
  }, SLOW)

  afterAll(async () => {
    await closeSuite({ contexts, browser, server, dataDir: undefined })
  })

  test("the page warns before an idle session ends, staying restarts it, and an idle session ends at the sign-in form", async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } })
    contexts.push(context)
    const { page, problems } = await watchedPage(context)
    await signIn(page, server, server.keys.a, "/console/encounters")
    const warning = page.getByRole("alertdialog", { name: "You will be signed out soon" })
    await warning.waitFor()
    expect(await page.locator("#idle-text").textContent()).toMatch(/^For your patients' privacy, an idle session ends in [1-4] seconds\.$/)
    // "Stay signed in" asks the server, which restarts the session's idle time.
    const asked = page.waitForResponse((r) => r.url().endsWith("/console/api/session") && r.request().method() === "GET")
    await page.getByRole("button", { name: "Stay signed in" }).click()
    expect((await asked).status()).toBe(200)
    // Left alone, the session ends on the server and the page says so.
    await page.getByText("Your session has ended. Sign in again.").waitFor({ timeout: 15_000 })
    expect(await page.getByRole("heading", { level: 1, name: "Sign in" }).isVisible()).toBe(true)
    const after = await fetch(`${server.url}/console/api/session`, { headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ") } })
    expect(after.status).toBe(401)
    expect(problems.filter((p) => !p.includes("401"))).toEqual([])
  }, SLOW)

  test("the warning is accessible", async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } })
    contexts.push(context)
    const { page } = await watchedPage(context)
    await signIn(page, server, server.keys.a, "/console/encounters")
    await page.getByRole("alertdialog", { name: "You will be signed out soon" }).waitFor()
    await expectAccessible(browser, context, `${server.url}/console/encounters`, (p) => p.getByRole("alertdialog", { name: "You will be signed out soon" }).waitFor())
  }, SLOW)
})
