import { existsSync, mkdtempSync } from "node:fs"
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

export const signIn = async (page: Page, baseUrl: string, key: string, path = "/console") => {
  await page.goto(`${baseUrl}${path}`)
  await page.getByLabel("API key").fill(key)
  await page.getByRole("button", { name: "Sign in" }).click()
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
 * context gets the session cookie of the one under test.
 */
export const expectAccessible = async (browser: Browser, from: BrowserContext, url: string, ready: (page: Page) => Promise<unknown>) => {
  const context = await browser.newContext({ bypassCSP: true })
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
