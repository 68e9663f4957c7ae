import { mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { ClaimTransitions } from "../../lib/domain/claim-status.js"
import { updateUser } from "../../lib/rules/users.js"
import { consoleUser } from "../http/console-support.js"
import { seedEncounters, sendRejected } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { chromiumAvailable, closeSuite, expectAccessible, launch, shotDir, signIn, signInAs, watchedPage } from "./browser.js"

const available = chromiumAvailable()
// A browser test drives several pages and an accessibility scan: far above the default timeout.
const SLOW = 60_000

describe.skipIf(!available)("operator console in Chromium", () => {
  let server: TestServer
  let browser: Browser
  let dataDir: string
  let shots: string
  const contexts: Array<BrowserContext> = []

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "encounterd-console-db-"))
    server = await startTestServer({ db: join(dataDir, "console.sqlite") })
    await seedEncounters(server.url, server.keys.aWriter, 12)
    await sendRejected(server.url, server.keys.aWriter, "enc-bad-1")
    browser = await launch()
    shots = shotDir()
    process.stderr.write(`console screenshots: ${shots}\n`)
  }, SLOW)

  afterAll(async () => {
    await closeSuite({ contexts, browser, server, dataDir })
  })

  const open = async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } })
    contexts.push(context)
    return { context, ...(await watchedPage(context)) }
  }

  const shot = async (page: Page, name: string) => {
    const path = join(shots, `${name}.png`)
    await page.screenshot({ path, fullPage: true })
    expect(statSync(path).size).toBeGreaterThan(1000)
  }

  const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor()

  test("sign in, find an encounter by its external id, and read it", async () => {
    const { context, page, problems } = await open()
    await page.goto(`${server.url}/console`)
    await heading(page, "Sign in")
    await expectAccessible(browser, context, `${server.url}/console`, (p) => heading(p, "Sign in"))

    await signIn(page, server, server.keys.a)
    await heading(page, "Encounters")
    expect(await page.locator("table tbody tr").count()).toBe(12)
    // Keyboard: on a page load the first Tab reaches the skip link, which moves focus to the main content.
    await page.goto(`${server.url}/console/encounters`)
    await heading(page, "Encounters")
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to main content")
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main")
    await expectAccessible(browser, context, `${server.url}/console/encounters`, (p) => heading(p, "Encounters"))

    await page.getByLabel("External id (exactly)").fill("enc-1005")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await page.waitForURL(/external_id=enc-1005/)
    const rows = page.getByRole("table", { name: "Encounters matching the filters, newest first" }).locator("tbody tr")
    await rows.first().waitFor()
    expect(await rows.count()).toBe(1)
    // Seeded encounter 4: Casey Demoworth, two lines (93000 $46.00 + 99213 $125.00), seen 2026-10-05.
    expect((await rows.first().innerText()).split("\t").map((c) => c.trim())).toEqual([
      "enc-1005",
      "Casey Demoworth",
      "2026-10-05",
      "$171.00",
      "draft",
      expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/)
    ])

    await page.getByRole("link", { name: "enc-1005" }).click()
    await heading(page, "Encounter enc-1005")
    const lines = page.getByRole("table", { name: "Service lines with their charges" })
    expect(await lines.locator("tfoot").innerText()).toContain("$171.00")
    expect(await lines.locator("tbody tr").count()).toBe(2)
    await page.getByText("Created with claim status draft").waitFor()
    // This key lacks claims:write: no move control at all.
    expect(await page.getByRole("button", { name: "Move claim" }).count()).toBe(0)
    await expectAccessible(browser, context, page.url(), (p) => heading(p, "Encounter enc-1005"))
    await shot(page, "encounter-read-only")
    expect(problems).toEqual([])
  }, SLOW)

  test("open a rejected intake request and see its errors and its body; an encounter links to its request", async () => {
    const { context, page, problems } = await open()
    await signIn(page, server, server.keys.a)
    await page.getByRole("link", { name: "Intake log" }).click()
    await heading(page, "Intake log")
    // Rejected requests come first: the default filter.
    expect(await page.getByLabel("Outcome").inputValue()).toBe("rejected")
    const rows = page.locator("table tbody tr")
    expect(await rows.count()).toBe(1)
    expect(await rows.first().innerText()).toContain("billing_provider.npi must be a 10-digit NPI with a valid check digit")
    await page.getByRole("button", { name: "Show raw body" }).click()
    expect(await page.getByLabel("Raw body").innerText()).toContain('"external_id":"enc-bad-1"')
    await expectAccessible(browser, context, page.url(), (p) => heading(p, "Intake log"))
    await rows.first().getByRole("link").first().click()
    await heading(page, "Intake request enc-bad-1")
    await page.getByText("must be 9 digits").waitFor()
    await expectAccessible(browser, context, page.url(), (p) => heading(p, "Intake request enc-bad-1"))
    await shot(page, "intake-rejected")

    await page.goto(`${server.url}/console/encounters?external_id=enc-1002`)
    await page.getByRole("link", { name: "enc-1002" }).click()
    await page.getByRole("link", { name: "The request this encounter came from, as received" }).click()
    await heading(page, "Intake request enc-1002")
    await page.getByText("accepted", { exact: true }).waitFor()
    expect(problems).toEqual([])
  }, SLOW)

  test("move a claim, offered only the allowed statuses, and see the move in its timeline", async () => {
    const { page, problems } = await open()
    await signIn(page, server, server.keys.aWriter, "/console/encounters?external_id=enc-1003")
    await page.getByRole("link", { name: "enc-1003" }).click()
    await heading(page, "Encounter enc-1003")
    const select = page.getByLabel("New status for encounter enc-1003")
    expect(await select.locator("option").evaluateAll((os) => os.map((o) => o.getAttribute("value")))).toEqual([...ClaimTransitions.draft])
    await select.selectOption("coded")
    await page.getByLabel("Note (optional)").fill("codes checked")
    await page.getByRole("button", { name: "Move claim" }).click()
    // Asked first; nothing moves before the confirmation.
    await page.getByText("Move the claim of encounter enc-1003 from draft to coded?").waitFor()
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Confirm move")
    await page.getByRole("button", { name: "Cancel" }).click()
    expect(await page.getByText("Move the claim of encounter enc-1003").count()).toBe(0)
    expect(await page.getByText("Claim moved from draft to coded").count()).toBe(0)
    await page.getByRole("button", { name: "Move claim" }).click()
    await page.getByRole("button", { name: "Confirm move" }).click()
    await page.getByText("Claim moved from draft to coded").waitFor()
    await page.getByRole("status").filter({ hasText: "Claim moved to coded." }).waitFor()
    await page.getByText("Note: codes checked").waitFor()
    // The control now offers what may follow `coded`.
    const next = page.getByLabel("New status for encounter enc-1003")
    expect(await next.locator("option").evaluateAll((os) => os.map((o) => o.getAttribute("value")))).toEqual([...ClaimTransitions.coded])
    await shot(page, "claim-moved")
    expect(problems).toEqual([])
  }, SLOW)

  test("claims by status: counts, a status's claims with the move control, none for a read-only key", async () => {
    const { context, page, problems } = await open()
    await signIn(page, server, server.keys.aWriter, "/console/claims")
    await heading(page, "Claims by status")
    const counts = page.getByRole("table", { name: /Claims per status/ })
    const draftRow = counts.locator("tbody tr", { has: page.getByRole("link", { name: "draft", exact: true }) })
    const draftCount = Number((await draftRow.locator("td").first().innerText()).trim())
    expect(draftCount).toBeGreaterThanOrEqual(10)
    await page.getByRole("link", { name: "draft", exact: true }).click()
    await page.getByRole("heading", { level: 2, name: "Claims in status draft" }).waitFor()
    expect(await page.getByRole("button", { name: "Move claim" }).count()).toBe(draftCount)
    await expectAccessible(browser, context, page.url(), (p) => p.getByRole("heading", { level: 2, name: "Claims in status draft" }).waitFor())

    await page.getByLabel("New status for enc-1001").selectOption("not_billable")
    const row = page.locator("tr", { has: page.getByLabel("New status for enc-1001") })
    await row.getByRole("button", { name: "Move claim" }).click()
    await row.getByRole("button", { name: "Confirm move" }).click()
    await page.getByRole("status").filter({ hasText: "Claim of enc-1001 moved to not billable." }).waitFor()
    expect(await page.getByRole("button", { name: "Move claim" }).count()).toBe(draftCount - 1)
    await shot(page, "claims-by-status")

    const reader = await open()
    await signIn(reader.page, server, server.keys.a, "/console/claims?status=draft")
    await reader.page.getByRole("heading", { level: 2, name: "Claims in status draft" }).waitFor()
    expect(await reader.page.getByRole("button", { name: "Move claim" }).count()).toBe(0)
    await reader.page.getByText("Moving a claim needs a key with the scope claims:write.").waitFor()
    expect([...problems, ...reader.problems]).toEqual([])
  }, SLOW)

  test("sign out ends the session: the old cookie is refused", async () => {
    const { context, page, problems } = await open()
    await signIn(page, server, server.keys.a)
    const [cookie] = await context.cookies()
    expect(cookie).toMatchObject({ name: "encounterd_session", httpOnly: true, sameSite: "Strict", path: "/" })
    await page.getByRole("button", { name: "Sign out" }).click()
    await heading(page, "Sign in")
    await page.getByText("You have signed out.").waitFor()
    expect(await context.cookies()).toEqual([])
    const replay = await fetch(`${server.url}/console/api/session`, { headers: { cookie: `${cookie!.name}=${cookie!.value}` } })
    expect(replay.status).toBe(401)
    await shot(page, "signed-out")
    expect(problems).toEqual([])
  }, SLOW)

  test("a disabled user's session is refused at its next request", async () => {
    const user = await consoleUser(server, "a", "biller", "-disabled")
    const { context, page, problems } = await open()
    await signInAs(page, server.url, user.email, user.password)
    await page.getByRole("button", { name: "Sign out" }).waitFor()
    const [cookie] = await context.cookies()
    await server.runtime.runPromise(updateUser(user.workspace, user.id, { status: "disabled" }))
    await page.getByRole("link", { name: "Claims by status" }).click()
    await heading(page, "Sign in")
    await page.getByText("Your session has ended. Sign in again.").waitFor()
    expect(await context.cookies()).toEqual([])
    const replay = await fetch(`${server.url}/console/api/encounters`, { headers: { cookie: `${cookie!.name}=${cookie!.value}` } })
    expect(replay.status).toBe(401)
    await shot(page, "revoked")
    expect(problems).toEqual([])
  }, SLOW)

  test("a state-changing request without the session's CSRF token is refused", async () => {
    const { page, problems } = await open()
    await signIn(page, server, server.keys.aWriter, "/console/encounters?external_id=enc-1007")
    const claimId = await page.evaluate(async () => {
      const r = await fetch("/console/api/encounters?external_id=enc-1007")
      const body: { items: Array<{ claim_id: string }> } = await r.json()
      return body.items[0]?.claim_id ?? ""
    })
    const attempt = (token: string | null) =>
      page.evaluate(
        async ([id, csrf]) => {
          const headers: Record<string, string> = { "content-type": "application/json" }
          if (csrf !== null) headers["x-csrf-token"] = csrf
          const r = await fetch(`/console/api/claims/${id}/status`, { method: "POST", headers, body: JSON.stringify({ status: "coded" }) })
          const body: { code?: string } = await r.json()
          return [r.status, body.code ?? ""]
        },
        [claimId, token] as const
      )
    expect(await attempt(null)).toEqual([403, "csrf_failed"])
    expect(await attempt("not-the-token")).toEqual([403, "csrf_failed"])
    const signOut = await page.evaluate(async () => (await fetch("/console/api/sign-out", { method: "POST" })).status)
    expect(signOut).toBe(403)
    // Nothing moved and the session still stands.
    await page.reload()
    await page.getByRole("link", { name: "enc-1007" }).click()
    await heading(page, "Encounter enc-1007")
    expect(await page.getByText("Claim moved from").count()).toBe(0)
    await shot(page, "csrf-refused")
    expect(problems).toEqual([])
  }, SLOW)
})
