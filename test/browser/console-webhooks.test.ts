import { mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { parseRetrySchedule } from "../../lib/webhooks/schedule.js"
import { api, sleep } from "../http/client.js"
import { seedEncounters } from "../support/console-seed.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { startReceiver } from "../webhooks/receiver.js"
import { chromiumAvailable, closeSuite, expectAccessible, launch, shotDir, signIn, watchedPage } from "./browser.js"

const available = chromiumAvailable()
// A browser test drives several pages and an accessibility scan: far above the default timeout.
const SLOW = 60_000

// One attempt per delivery, to a receiver that answers 500: each delivery fails at once.
const schedule = parseRetrySchedule("0s")
if (schedule._tag === "Left") throw schedule.left

interface DeliveryRow {
  readonly id: string
  readonly status: string
  readonly attempts: number
}

describe.skipIf(!available)("console webhooks view in Chromium", () => {
  let server: TestServer
  let browser: Browser
  let dataDir: string
  let shots: string
  let endpointId = ""
  const receiver = startReceiver(() => "whsec_unused")
  const contexts: Array<BrowserContext> = []

  const deliveries = async (): Promise<ReadonlyArray<DeliveryRow>> =>
    (await api(server)("GET", `/api/webhooks/endpoints/${endpointId}/deliveries`, { key: server.keys.aHooks })).body.items
  const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean): Promise<A> => {
    const until = Date.now() + 10_000
    for (;;) {
      const value = await read()
      if (check(value)) return value
      if (Date.now() > until) throw new Error(`not within 10 s; last: ${JSON.stringify(value)}`)
      await sleep(50)
    }
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "encounterd-console-webhooks-db-"))
    server = await startTestServer({
      db: join(dataDir, "console.sqlite"),
      webhooks: { allowPrivate: true, schedule: schedule.right, timeoutMs: 1000 },
      worker: { pollMs: 50 }
    })
    const call = api(server)
    const off = await call("POST", "/api/webhooks/endpoints", { key: server.keys.aHooks, body: { url: receiver.url("/old"), description: "Old billing system" } })
    await call("PATCH", `/api/webhooks/endpoints/${off.body.id}`, { key: server.keys.aHooks, body: { status: "disabled" } })
    const made = await call("POST", "/api/webhooks/endpoints", {
      key: server.keys.aHooks,
      body: { url: receiver.url("/fail"), description: "Billing system", event_types: ["ExternalApi.Encounter.Created"] }
    })
    endpointId = made.body.id
    await seedEncounters(server.url, server.keys.aWriter, 2)
    await eventually(deliveries, (ds) => ds.length === 2 && ds.every((d) => d.status === "failed"))
    browser = await launch()
    shots = shotDir()
    process.stderr.write(`console screenshots: ${shots}\n`)
  }, SLOW)

  afterAll(async () => {
    receiver.stop()
    await closeSuite({ contexts, browser, server, dataDir })
  })

  const open = async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } })
    contexts.push(context)
    return { context, ...(await watchedPage(context)) }
  }
  const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor()
  const shot = async (page: Page, name: string) => {
    const path = join(shots, `${name}.png`)
    await page.screenshot({ path, fullPage: true })
    expect(statSync(path).size).toBeGreaterThan(1000)
  }

  test("endpoints, one endpoint's deliveries, and a retry from the keyboard that makes one more attempt", async () => {
    const { context, page, problems } = await open()
    await signIn(page, server, server.keys.aHooks)
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Webhooks" }).click()
    await heading(page, "Webhooks")
    const endpoints = page.getByRole("table", { name: "Webhook endpoints, newest first" }).locator("tbody tr")
    expect(await endpoints.count()).toBe(2)
    expect((await endpoints.nth(0).innerText()).split("\t").map((c) => c.trim()).slice(0, 4)).toEqual([
      receiver.url("/fail"),
      "Billing system",
      "Created",
      "enabled"
    ])
    expect(await endpoints.nth(1).innerText()).toContain("disabled Disabled on request")
    expect(await page.locator("main").innerText()).not.toContain("whsec_")
    await expectAccessible(browser, context, page.url(), (p) => heading(p, "Webhooks"))

    await page.getByRole("link", { name: receiver.url("/fail") }).click()
    await heading(page, "Webhook endpoint")
    const rows = page.getByRole("table", { name: /^Deliveries/ }).locator("tbody tr")
    expect(await rows.count()).toBe(2)
    const cells = (await rows.first().innerText()).split("\t").map((c) => c.trim())
    expect(cells.slice(1, 4)).toEqual(["Created", "failed", "1"])
    expect(cells[5]).toBe("500")
    expect(cells[7]).toBe("—")

    await page.getByLabel("Delivery status").selectOption("pending")
    await page.getByRole("button", { name: "Apply filter" }).click()
    await page.waitForURL(/status=pending/)
    await page.getByText("No delivery in this status.").waitFor()
    await page.getByLabel("Delivery status").selectOption("failed")
    await page.getByRole("button", { name: "Apply filter" }).click()
    await page.waitForURL(/status=failed/)
    await page.getByRole("table", { name: "Deliveries (failed), newest first" }).waitFor()
    await expectAccessible(browser, context, page.url(), (p) => heading(p, "Webhook endpoint"))

    // Keyboard only: Tab from the heading to the first Retry button, Enter presses it.
    const sent = receiver.received.length
    await page.getByRole("heading", { level: 1 }).focus()
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab")
      if ((await page.evaluate(() => document.activeElement?.textContent ?? "")).startsWith("Retry")) break
    }
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("BUTTON")
    await page.keyboard.press("Enter")
    await page.getByRole("status").filter({ hasText: "is queued for an attempt now." }).waitFor()
    // The page reads the delivery again until its attempt has ended, then shows it without a reload.
    await page.getByRole("status").filter({ hasText: /was attempted: it failed \(the endpoint answered 500\)\.$/ }).waitFor({ timeout: 15_000 })
    const after = await eventually(deliveries, (ds) => ds.some((d) => d.attempts === 2 && d.status === "failed"))
    expect(after.map((d) => d.attempts).sort()).toEqual([1, 2])
    expect(receiver.received.length).toBe(sent + 1)
    await rows.first().waitFor()
    const attempts = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll("td")[2]?.textContent ?? ""))
    expect(attempts.sort()).toEqual(["1", "2"])
    await shot(page, "webhooks")
    expect(problems).toEqual([])
  }, SLOW)

  test("a key without webhooks:write is told so, and nothing fails", async () => {
    const { context, page, problems } = await open()
    await signIn(page, server, server.keys.aWriter, "/console/webhooks")
    await heading(page, "Webhooks")
    await page.getByText("Webhook endpoints and their deliveries need a key with the scope webhooks:write.").waitFor()
    expect(await page.getByRole("table").count()).toBe(0)
    expect(await page.getByRole("alert").count()).toBe(0)
    await page.goto(`${server.url}/console/webhooks/${endpointId}`)
    await heading(page, "Webhooks")
    expect(await page.getByRole("button", { name: /Retry/ }).count()).toBe(0)
    await expectAccessible(browser, context, page.url(), (p) => heading(p, "Webhooks"))
    await shot(page, "webhooks-no-scope")
    expect(problems).toEqual([])
  }, SLOW)
})
