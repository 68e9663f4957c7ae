import { mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { totalChargeCents } from "../../lib/domain/encounter.js"
import { seededPayload, seedEncounters, seedExchange, seedRemittances } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { chromiumAvailable, closeSuite, expectAccessible, launch, offScreen, SCREENS, shotDir, signIn, watchedPage } from "./browser.js"

/**
 * What billing staff use, on a phone (390x844) and a laptop (1280x800): finding an encounter, its
 * remittances, the money of the claims by status; and every view fits the screen (nothing sticks out
 * sideways) with no serious or critical accessibility violation.
 */

const available = chromiumAvailable()
const list = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])
/** What each of the twelve seeded encounters bills (`seededPayload`: 1 to 3 lines each). */
const seededBilled = Array.from({ length: 12 }, (_, i) =>
  totalChargeCents(list(seededPayload(`enc-${1001 + i}`, i).service_lines).map((l) => ({ charge_amount_cents: Number(Reflect.get(Object(l), "charge_amount_cents")) })))
)
const usd = (cents: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(cents / 100)
const SLOW = 120_000

describe.skipIf(!available)("console for billing staff in Chromium", () => {
  let server: TestServer
  let browser: Browser
  let dataDir: string
  let shots: string
  /** A key with every scope (the webhook views need webhooks:write). */
  const contexts: Array<BrowserContext> = []

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "encounterd-console-billing-db-"))
    server = await startTestServer({ db: join(dataDir, "console.sqlite") })
    await seedEncounters(server.url, server.keys.aWriter, 12)
    await seedExchange(server.url, server.keys.aWriter, "x12")
    await seedRemittances(server.url, server.keys.aWriter)
    browser = await launch()
    shots = shotDir()
    process.stderr.write(`console screenshots: ${shots}\n`)
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
  }
  const cells = async (page: Page, table: string | RegExp) =>
    page
      .getByRole("table", { name: table })
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll("th, td")).map((c) => (c.textContent ?? "").trim())))

  test("remittances read defensively: missing fields show as dashes; more_remittances links to the claim's list", async () => {
    const { page, problems } = await open(SCREENS[1].viewport)
    // The encounter read with fewer fields, and a claim with more remittances than a read carries.
    await page.route(/\/console\/api\/encounters\/[0-9a-f-]+$/, async (route) => {
      const response = await route.fetch()
      const body: { encounter: { latest_claim: Record<string, unknown> } } = await response.json()
      const claim = body.encounter.latest_claim
      const remittances: ReadonlyArray<{ check_number: string; payment_date: string }> = Array.isArray(claim.remittances) ? claim.remittances : []
      claim.remittances = remittances.map((r) => (r.check_number === "CHK000451" ? { check_number: r.check_number, payment_date: r.payment_date } : r))
      claim.more_remittances = true
      await route.fulfill({ response, json: body })
    })
    await signIn(page, server, server.keys.a, "/console/encounters?external_id=x12-1")
    await page.getByRole("link", { name: "x12-1" }).click()
    await heading(page, "Encounter x12-1")
    await page.getByText("The 2 most recent remittances are shown.").waitFor()
    const all = page.getByRole("link", { name: "Every remittance of this claim (API, with an API key)" })
    expect(await all.getAttribute("href")).toMatch(/^\/api\/claims\/[0-9a-f-]+\/remittances$/)
    expect((await cells(page, "Remittances of this claim, newest payment first"))[0]).toEqual(["CHK000451", "2026-12-14", "—", "—", "—", "—"])
    await page.getByText("The remittance names no service lines.").waitFor()
    expect(problems).toEqual([])
  }, SLOW)

  for (const screen of SCREENS) {
    describe(screen.name, () => {
      test("find an encounter: by last name and date of service, then by payer; the filters page and clear", async () => {
        const { context, page, problems } = await open(screen.viewport)
        await signIn(page, server, server.keys.a, "/console/encounters")
        await heading(page, "Encounters")
        await page.getByLabel("Patient last name (starts with)").fill("SAMPLE")
        await page.getByLabel("Date of service from").fill("2026-10-01")
        await page.getByLabel("Date of service to").fill("2026-10-05")
        await page.getByRole("button", { name: "Apply filters" }).click()
        await page.waitForURL(/patient_last_name=SAMPLE/)
        // Seeded encounter 1 (Jordan Samplesmith) was seen on 2026-10-02; encounter 7, also a Samplesmith, on 2026-10-08.
        const table = "Encounters matching the filters, newest first"
        await page.getByRole("table", { name: table }).waitFor()
        expect((await cells(page, table)).map((r) => r.slice(0, 4))).toEqual([["enc-1002", "Jordan Samplesmith", "2026-10-02", "$213.00"]])
        expect(await offScreen(page)).toEqual([])
        await expectAccessible(browser, context, page.url(), (p) => p.getByRole("table", { name: table }).waitFor(), screen.viewport)
        await shot(page, `search-${screen.name}`)

        // The form keeps what was asked; a payer id alone finds the insured encounters of the exchange.
        expect(await page.getByLabel("Patient last name (starts with)").inputValue()).toBe("SAMPLE")
        await page.getByRole("link", { name: "Clear", exact: true }).click()
        await page.waitForURL(/\/console\/encounters$/)
        await page.getByRole("table", { name: "Encounters, newest first" }).waitFor()
        await page.getByLabel("Payer id").fill("EXH01")
        await page.getByLabel("External id (starts with)").fill("x12-")
        await page.getByRole("button", { name: "Apply filters" }).click()
        await page.waitForURL(/payer_id=EXH01/)
        await page.getByRole("table", { name: table }).waitFor()
        expect((await cells(page, table)).map((r) => r[0])).toEqual(["x12-4", "x12-3", "x12-2", "x12-1"])
        // A malformed value is named, not answered with an unfiltered list.
        await page.goto(`${server.url}/console/encounters?patient_date_of_birth=1984-02-30`)
        await page.getByRole("alert").filter({ hasText: "patient_date_of_birth" }).waitFor()
        expect(problems).toEqual([])
      }, SLOW)

      test("an encounter's remittances: check, date, payer claim number, amounts, adjustments, lines", async () => {
        const { context, page, problems } = await open(screen.viewport)
        await signIn(page, server, server.keys.a, "/console/encounters?external_id=x12-1")
        await page.getByRole("link", { name: "x12-1" }).click()
        await heading(page, "Encounter x12-1")
        await page.getByRole("region", { name: "Remittances", exact: true }).waitFor()
        // Newest payment first: the second check (2026-12-14), then the first (2026-11-30).
        expect(await cells(page, "Remittances of this claim, newest payment first")).toEqual([
          ["CHK000451", "2026-12-14", "PLB2026112400017", "$125.00", "$15.00", "$0.00"],
          ["EFT20261130001", "2026-11-30", "PLB2026112400017", "$125.00", "$90.00", "$20.00"]
        ])
        const first = page.getByRole("region", { name: "Check EFT20261130001, paid 2026-11-30" })
        expect(await first.getByText("Claim adjustments").count()).toBe(1)
        expect(await cells(page, "Service lines of check EFT20261130001")).toEqual([
          ["99213", "$125.00", "$90.00", "CO-45 $15.00 (contractual obligation)PR-1 $20.00 (patient responsibility)"]
        ])
        expect(await cells(page, "Service lines of check CHK000451")).toEqual([["99213", "$125.00", "$15.00", "CO-45 -$15.00 (contractual obligation)"]])
        // The facts at the top add up what was paid.
        await page.getByText("$105.00").first().waitFor()
        // Diagnosis pointers count from 1, as on the claim form.
        expect((await cells(page, /^Diagnoses/)).map((r) => r[0])).toEqual(["1"])
        expect((await cells(page, "Service lines with their charges")).map((r) => r[5])).toEqual(["1"])
        expect(await offScreen(page)).toEqual([])
        await expectAccessible(browser, context, page.url(), (p) => p.getByRole("region", { name: "Remittances", exact: true }).waitFor(), screen.viewport)
        await shot(page, `remittances-${screen.name}`)
        expect(problems).toEqual([])
      }, SLOW)

      test("claims by status: counts with billed totals; a status's work list by age or amount, with days in the status", async () => {
        const { context, page, problems } = await open(screen.viewport)
        await signIn(page, server, server.keys.aWriter, "/console/claims")
        await heading(page, "Claims by status")
        const summary = /^Claims per status/
        const rows = await cells(page, summary)
        const draft = rows.find((r) => r[0] === "draft")
        expect(draft).toEqual(["draft", "12", usd(seededBilled.reduce((a, b) => a + b, 0))])
        const foot = await page.getByRole("table", { name: summary }).locator("tfoot").innerText()
        expect(foot.replace(/\s+/g, " ").trim()).toMatch(/^All statuses 16 \$[\d,]+\.\d\d$/)

        await page.getByRole("link", { name: "draft", exact: true }).click()
        await page.getByRole("heading", { level: 2, name: "Claims in status draft" }).waitFor()
        await page.getByText(`12 claims, ${usd(seededBilled.reduce((a, b) => a + b, 0))} billed.`).waitFor()
        const byAge = /^Encounters whose claim is draft: longest in this status first/
        const aged = await cells(page, byAge)
        expect(aged.length).toBe(12)
        expect(aged.every((r) => r[4] === "0 days")).toBe(true)
        await page.getByLabel("Order", { exact: true }).selectOption({ label: "Largest billed amount first" })
        await page.getByRole("button", { name: "Apply order" }).click()
        await page.waitForURL(/sort=amount/)
        const byAmount = /^Encounters whose claim is draft: largest billed amount first/
        await page.getByRole("table", { name: byAmount }).waitFor()
        const amounts = (await cells(page, byAmount)).map((r) => Number((r[3] ?? "").replace(/[$,]/g, "")))
        expect(amounts).toEqual([...amounts].sort((a, b) => b - a))
        expect(amounts[0]).toBe(Math.max(...seededBilled) / 100)
        expect(await offScreen(page)).toEqual([])
        await expectAccessible(browser, context, page.url(), (p) => p.getByRole("table", { name: byAmount }).waitFor(), screen.viewport)
        await shot(page, `claims-money-${screen.name}`)

        // A move from the work list asks first.
        const row = page.locator("tr", { has: page.getByLabel("New status for enc-1012") })
        await row.getByLabel("New status for enc-1012").selectOption("coded")
        await row.getByRole("button", { name: "Move claim" }).click()
        await row.getByText("Move the claim of enc-1012 from draft to coded?").waitFor()
        expect(await offScreen(page)).toEqual([])
        await row.getByRole("button", { name: "Cancel" }).click()
        expect(await row.getByText("Move the claim of enc-1012").count()).toBe(0)
        expect(problems).toEqual([])
      }, SLOW)

      test("every view fits the screen: the header wraps, nothing sticks out sideways", async () => {
        const { context, page, problems } = await open(screen.viewport)
        await page.goto(`${server.url}/`)
        await heading(page, "Sign in")
        expect(new URL(page.url()).pathname).toBe("/console")
        expect(await offScreen(page)).toEqual([])
        // An admin: every view, the audit log included, is in the header.
        await signIn(page, server, server.keys.aHooks, "/console/encounters")
        const x12 = await page.evaluate(async () => {
          const files = await (await fetch("/console/api/x12/files?limit=1")).json()
          const hooks = await (await fetch("/console/api/webhooks/endpoints")).json()
          const intake = await (await fetch("/console/api/intake-requests?outcome=accepted&limit=1")).json()
          return { file: String(files.items[0]?.id ?? ""), hook: String(hooks.items[0]?.id ?? ""), intake: String(intake.items[0]?.id ?? "") }
        })
        const views: ReadonlyArray<readonly [string, string | RegExp]> = [
          ["/console/encounters", "Encounters"],
          ["/console/encounters?external_id=x12-1", "Encounters"],
          ["/console/intake", "Intake log"],
          [`/console/intake/${x12.intake}`, /^Intake request/],
          ["/console/claims?status=submitted_to_payer", "Claims by status"],
          ["/console/events", "Events"],
          ["/console/webhooks", "Webhooks"],
          ["/console/clearinghouse", "Clearinghouse"],
          [`/console/clearinghouse/files/${x12.file}`, /./]
        ]
        for (const [path, name] of views) {
          await page.goto(`${server.url}${path}`)
          await heading(page, name)
          await page.waitForLoadState("networkidle")
          expect({ path, off: await offScreen(page) }).toEqual({ path, off: [] })
        }
        // Each view's link is on the screen, and the account's controls too.
        await page.goto(`${server.url}/console/encounters`)
        await heading(page, "Encounters")
        for (const name of ["Encounters", "Intake log", "Claims by status", "Events", "Webhooks", "Clearinghouse"]) {
          const box = await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name }).boundingBox()
          expect(box !== null && box.x >= 0 && box.x + box.width <= screen.viewport.width).toBe(true)
        }
        const signOut = await page.getByRole("button", { name: "Sign out" }).boundingBox()
        expect(signOut !== null && signOut.x + signOut.width <= screen.viewport.width).toBe(true)
        await page.getByRole("link", { name: "x12-1" }).click()
        await heading(page, "Encounter x12-1")
        expect(await offScreen(page)).toEqual([])
        await shot(page, `encounter-${screen.name}`)
        await expectAccessible(browser, context, `${server.url}/console/encounters`, (p) => heading(p, "Encounters"), screen.viewport)
        expect(problems).toEqual([])
      }, SLOW)
    })
  }
})
