import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { seedEncounters } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { chromiumAvailable, closeSuite, expectAccessible, launch, signIn, signInAs, watchedPage } from "./browser.js"

const available = chromiumAvailable()
const SLOW = 60_000

describe.skipIf(!available)("console users and the audit view in Chromium", () => {
  let server: TestServer
  let browser: Browser
  let dataDir: string
  const contexts: Array<BrowserContext> = []

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "encounterd-console-users-db-"))
    server = await startTestServer({ db: join(dataDir, "console.sqlite") })
    await seedEncounters(server.url, server.keys.aWriter, 2)
    browser = await launch()
  }, SLOW)

  afterAll(async () => {
    await closeSuite({ contexts, browser, server, dataDir })
  })

  const open = async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } })
    contexts.push(context)
    return { context, ...(await watchedPage(context)) }
  }
  const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor()

  test("password sign-in with a one-time password: the change comes first, then the console; both forms are accessible", async () => {
    const made = await fetch(`${server.url}/api/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.keys.aAdmin}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "new.biller@clinic.test", role: "biller" })
    })
    const user = (await made.json()) as { initial_password: string }
    const { context, page, problems } = await open()
    await page.goto(`${server.url}/console`)
    await heading(page, "Sign in")
    await expectAccessible(browser, context, `${server.url}/console`, (p) => p.getByRole("heading", { level: 1, name: "Sign in" }).waitFor())
    await signInAs(page, server.url, "new.biller@clinic.test", "not the password")
    await page.getByText("The email or password is wrong, or the user is disabled").waitFor()
    await signInAs(page, server.url, "new.biller@clinic.test", user.initial_password)
    await heading(page, "Choose your password")
    await expectAccessible(browser, context, `${server.url}/console`, (p) => p.getByRole("heading", { level: 1, name: "Choose your password" }).waitFor())
    await page.getByLabel("Current (one-time) password").fill(user.initial_password)
    await page.getByLabel("New password").fill("short")
    await page.getByRole("button", { name: "Change password" }).click()
    await page.getByText("must be at least 12 characters").waitFor()
    await page.getByLabel("New password").fill("a biller's own passphrase")
    await page.getByRole("button", { name: "Change password" }).click()
    await page.getByRole("button", { name: "Sign out" }).waitFor()
    await page.getByText("new.biller@clinic.test (biller)").waitFor()
    // A biller is not offered the audit log.
    expect(await page.getByRole("link", { name: "Audit log" }).count()).toBe(0)
    expect(problems).toEqual([])
  }, SLOW)

  test("an admin's audit view lists who read which record, and is accessible", async () => {
    const { context, page, problems } = await open()
    await signIn(page, server, server.keys.aHooks, "/console/encounters")
    await heading(page, /Encounters/)
    await page.getByRole("link", { name: "Audit log" }).click()
    await heading(page, "Audit log")
    await page.getByRole("cell", { name: "encounter.list" }).first().waitFor()
    expect(await page.getByRole("cell", { name: /a-admin@clinic\.test/ }).count()).toBeGreaterThan(0)
    await expectAccessible(browser, context, `${server.url}/console/audit`, (p) => p.getByRole("heading", { level: 1, name: "Audit log" }).waitFor())
    expect(problems).toEqual([])
  }, SLOW)
})
