import type { TestServer } from "../support/server.js"
import { userForTestKey } from "../http/console-support.js"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "bun:test"
import { Schema } from "effect"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"

/**
 * Whether the browser suite can run. Under CI a missing Chromium is an error (`.ci/run` installs
 * it); on a workstation the suite is skipped, saying so.
 */
export const chromiumAvailable = (): boolean => {
  if (existsSync(CHROMIUM)) return true
  if (process.env.CI !== undefined) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`)
  process.stderr.write(`\n*** SKIPPING the console browser tests: ${CHROMIUM} is missing (apt-get install chromium) ***\n\n`)
  return false
}

export const launch = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] })

/** Where each test leaves its screenshot. */
export const shotDir = (): string => mkdtempSync(join(tmpdir(), "encounterd-console-"))

/**
 * A page that records what the browser refused or threw: a CSP violation (an inline script or
 * style, a foreign load) or a script error fails the test that made it.
 */
export const watchedPage = async (context: BrowserContext) => {
  const page = await context.newPage()
  const problems: Array<string> = []
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text())
  })
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
  return { page, problems }
}

/** Signs in through the form by email and password. */
export const signInAs = async (page: Page, baseUrl: string, email: string, password: string, path = "/console") => {
  await page.goto(`${baseUrl}${path}`)
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in" }).click()
}

/** Signs in as the user whose role holds one of the test server's keys' scopes (see `signInConsole`). */
export const signIn = async (page: Page, server: TestServer, key: string, path = "/console") => {
  const user = await userForTestKey(server, key)
  await signInAs(page, server.url, user.email, user.password, path)
  await page.getByRole("button", { name: "Sign out" }).waitFor()
}

const AXE = join(import.meta.dir, "../../node_modules/axe-core/axe.min.js")

const Violations = Schema.Array(
  Schema.Struct({
    id: Schema.String,
    impact: Schema.NullOr(Schema.String),
    targets: Schema.Array(Schema.String)
  })
)

// Evaluated in the page, as text: axe is a global the page's own scripts know nothing of.
const RUN_AXE = `axe.run(document, { resultTypes: ["violations"] }).then((r) =>
  r.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, targets: v.nodes.map((n) => n.target.join(" ")) })))`

/**
 * Runs axe-core on the view at `path` and asserts no serious or critical violation. axe is
 * injected in a separate context that bypasses the page's CSP (only for the injection); the
 * context gets the session cookie of the one under test (and its screen size, when given).
 */
export const expectAccessible = async (
  browser: Browser,
  from: BrowserContext,
  url: string,
  ready: (page: Page) => Promise<unknown>,
  viewport?: { readonly width: number; readonly height: number }
) => {
  const context = await browser.newContext({ bypassCSP: true, ...(viewport === undefined ? {} : { viewport }) })
  try {
    await context.addCookies(await from.cookies())
    const page = await context.newPage()
    await page.goto(url)
    await ready(page)
    await page.addScriptTag({ path: AXE })
    const violations = Schema.decodeUnknownSync(Violations)(await page.evaluate(RUN_AXE))
    const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    expect(serious.map((v) => `${v.id} (${v.impact}) at ${v.targets.join("; ")}`)).toEqual([])
    return violations.length
  } finally {
    await context.close()
  }
}

/** The phone and the laptop screen every view must be usable on. */
export const SCREENS = [
  { name: "390x844", viewport: { width: 390, height: 844 } },
  { name: "1280x800", viewport: { width: 1280, height: 800 } }
] as const

/**
 * What sticks out sideways of the screen: the page's own scroll width past the window, and each
 * element whose box reaches beyond either edge, except inside a table's scroll box (which scrolls
 * its table) and what is visually hidden on purpose (1 px, clipped).
 */
export const offScreen = (page: Page): Promise<ReadonlyArray<string>> =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth
    const out: Array<string> = []
    if (document.documentElement.scrollWidth > width) out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`)
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      if (el.closest(".table-scroll") !== null && !el.classList.contains("table-scroll")) continue
      const r = el.getBoundingClientRect()
      if (r.width <= 1 || r.height <= 1) continue
      if (r.right > width + 0.5 || r.left < -0.5) {
        const label = (el.textContent ?? "").trim().slice(0, 40)
        out.push(`${el.tagName.toLowerCase()}${el.id === "" ? "" : `#${el.id}`}.${el.className} [${Math.round(r.left)}, ${Math.round(r.right)}] ${label}`)
      }
    }
    return out
  })

/** A browser suite's teardown: its contexts, the browser, the server and the server's data folder. */
export const closeSuite = async (suite: {
  readonly contexts: ReadonlyArray<BrowserContext>
  readonly browser: Browser | undefined
  readonly server: { readonly close: () => Promise<void> } | undefined
  readonly dataDir: string | undefined
}) => {
  for (const c of suite.contexts) await c.close().catch(() => undefined)
  await suite.browser?.close()
  await suite.server?.close()
  if (suite.dataDir !== undefined) rmSync(suite.dataDir, { recursive: true, force: true })
}
