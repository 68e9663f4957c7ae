import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { seedEncounters } from "../support/console-seed.js"
import { freePort, type RunningProvider, startProvider } from "../support/oidc-provider.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { chromiumAvailable, closeSuite, expectAccessible, launch, watchedPage } from "./browser.js"

const available = chromiumAvailable()
const SLOW = 60_000
const SECRET = "the console's secret at the test provider"

describe.skipIf(!available)("console single sign-on in Chromium", () => {
  let server: TestServer
  let provider: RunningProvider
  let browser: Browser
  const contexts: Array<BrowserContext> = []

  beforeAll(async () => {
    const port = await freePort()
    server = await startTestServer({ config: { oidc: { issuer: `http://127.0.0.1:${port}`, clientId: "encounterd", clientSecret: SECRET } } })
    provider = await startProvider(port, [{ clientId: "encounterd", clientSecret: SECRET, redirectUris: [`${server.url}/console/oidc/callback`] }], {
      sam: { email: "sam.sso@clinic.test" },
      stranger: { email: "stranger@clinic.test" },
      twice: { email: "twice@clinic.test" }
    })
    for (const key of [server.keys.aAdmin, server.keys.bAdmin]) {
      await fetch(`${server.url}/api/users`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ email: "twice@clinic.test", role: key === server.keys.bAdmin ? "admin" : "viewer" })
      })
    }
    await fetch(`${server.url}/api/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.keys.aAdmin}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "sam.sso@clinic.test", role: "viewer" })
    })
    await seedEncounters(server.url, server.keys.aWriter, 1, "sso")
    browser = await launch()
  }, SLOW)

  afterAll(async () => {
    await closeSuite({ contexts, browser, server, dataDir: undefined })
    await provider?.close()
  })

  const open = async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } })
    contexts.push(context)
    return { context, ...(await watchedPage(context)) }
  }
  const signInPage = (page: Page) => page.getByRole("link", { name: "Sign in with single sign-on" }).waitFor()

  /** Through the provider's own login and consent pages. */
  const atProvider = async (page: Page, login: string) => {
    await page.locator('input[name="login"]').fill(login)
    await page.locator('input[name="password"]').fill("any")
    await page.locator('button[type="submit"]').click()
    await page.locator('button[type="submit"]').click()
  }

  test("the sign-in page offers single sign-on (accessible); the provider's login opens the console as the user", async () => {
    const { context, page, problems } = await open()
    await page.goto(`${server.url}/console`)
    await signInPage(page)
    await expectAccessible(browser, context, `${server.url}/console`, signInPage)
    await page.getByRole("link", { name: "Sign in with single sign-on" }).click()
    await atProvider(page, "sam")
    await page.getByRole("button", { name: "Sign out" }).waitFor()
    await page.getByText("sam.sso@clinic.test (viewer)").waitFor()
    expect(new URL(page.url()).pathname).toBe("/console")
    expect(problems).toEqual([])
  }, SLOW)

  test("an email without a user comes back to the sign-in page with the reason, accessible", async () => {
    const { context, page, problems } = await open()
    await page.goto(`${server.url}/console`)
    await page.getByRole("link", { name: "Sign in with single sign-on" }).click()
    await atProvider(page, "stranger")
    await page.getByText("No active console user has your email address").waitFor()
    expect(new URL(page.url()).search).toBe("")
    await expectAccessible(browser, context, `${server.url}/console?sign_in_error=unknown_user`, (p) => p.getByText("No active console user has your email address").waitFor())
    expect(problems).toEqual([])
  }, SLOW)

  test("an email in several workspaces is asked for the workspace, then signs in to it", async () => {
    const { context, page, problems } = await open()
    await page.goto(`${server.url}/console`)
    await page.getByRole("link", { name: "Sign in with single sign-on" }).click()
    await atProvider(page, "twice")
    await page.getByRole("button", { name: "Continue with single sign-on" }).waitFor()
    await expectAccessible(browser, context, `${server.url}/console?sign_in_error=workspace_required`, (p) =>
      p.getByRole("button", { name: "Continue with single sign-on" }).waitFor()
    )
    await page.getByLabel("Workspace").last().fill("clinic-b")
    await page.getByRole("button", { name: "Continue with single sign-on" }).click()
    // The provider remembers the sign-in and the consent: straight back, signed in to clinic-b.
    await page.getByText("twice@clinic.test (admin)").waitFor()
    expect(problems).toEqual([])
  }, SLOW)
})
