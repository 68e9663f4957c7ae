import { canReadAudit, describeError, lastServerContact, loadSession, onSessionEnded, session, type SessionInfo, signOut } from "./api.js"
import { renderAudit } from "./audit-view.js"
import { renderPasswordChange } from "./password-view.js"
import { renderClaims } from "./claims-view.js"
import { renderClearinghouse, renderX12File } from "./clearinghouse-view.js"
import { h, link, navigate, notice, replace, takeFlash } from "./dom.js"
import { renderEncounter } from "./encounter-view.js"
import { renderEncounters } from "./encounters-view.js"
import { renderEvents } from "./events-view.js"
import { renderIntake, renderIntakeRequest } from "./intake-view.js"
import { renderSignIn } from "./sign-in-view.js"
import { renderTask, renderTasks } from "./tasks-view.js"
import { renderWebhookEndpoint, renderWebhooks } from "./webhooks-view.js"

const main = document.getElementById("main") ?? document.body
const nav = document.getElementById("nav") ?? document.body
const account = document.getElementById("account") ?? document.body

const views: ReadonlyArray<{ readonly path: string; readonly label: string }> = [
  { path: "/console/encounters", label: "Encounters" },
  { path: "/console/intake", label: "Intake log" },
  { path: "/console/work-queue", label: "Work queue" },
  { path: "/console/claims", label: "Claims by status" },
  { path: "/console/events", label: "Events" },
  { path: "/console/webhooks", label: "Webhooks" },
  { path: "/console/clearinghouse", label: "Clearinghouse" }
]

/** What was last drawn: a change of the fragment alone (the skip link) draws nothing. */
let drawn = ""
let firstDraw = true

const drawShell = (info: SessionInfo) => {
  const here = location.pathname
  replace(
    nav,
    h(
      "ul",
      {},
      [...views, ...(canReadAudit() ? [{ path: "/console/audit", label: "Audit log" }] : [])].map((v) =>
        h("li", {}, link(v.path, v.label, here === v.path || here.startsWith(`${v.path}/`) ? { "aria-current": "page" } : {}))
      )
    )
  )
  const button = h("button", { type: "button", class: "link-button" }, "Sign out")
  button.addEventListener("click", () => {
    signOut().then(
      () => showSignIn("You have signed out."),
      (e: unknown) => replace(main, notice("error", ...describeError(e)))
    )
  })
  const who = info.userEmail === "" ? "" : `${info.userEmail} (${info.role}) · `
  replace(account, h("span", { class: "workspace" }, `${who}Workspace: ${info.workspaceName}`), button)
}

const showSignIn = (reason?: string) => {
  replace(nav)
  replace(account)
  drawn = ""
  firstDraw = false
  renderSignIn(main, reason, () => void draw())
}

const draw = async () => {
  const wasSignedIn = session() !== undefined
  const info = await loadSession()
  if (info === undefined) return showSignIn(wasSignedIn ? "Your session has ended. Sign in again." : undefined)
  watchIdle(info)
  if (info.mustChangePassword) {
    replace(nav)
    drawn = ""
    return renderPasswordChange(main, () => void draw())
  }
  drawShell(info)
  drawn = location.pathname + location.search
  const params = new URLSearchParams(location.search)
  const path = location.pathname.replace(/\/+$/, "")
  const encounter = /^\/console\/encounters\/([^/]+)$/.exec(path)
  const intake = /^\/console\/intake\/([^/]+)$/.exec(path)
  const endpoint = /^\/console\/webhooks\/([^/]+)$/.exec(path)
  const x12File = /^\/console\/clearinghouse\/files\/([^/]+)$/.exec(path)
  const task = /^\/console\/work-queue\/([^/]+)$/.exec(path)
  try {
    if (encounter?.[1] !== undefined) await renderEncounter(main, decodeURIComponent(encounter[1]))
    else if (intake?.[1] !== undefined) await renderIntakeRequest(main, decodeURIComponent(intake[1]))
    else if (endpoint?.[1] !== undefined) await renderWebhookEndpoint(main, decodeURIComponent(endpoint[1]), params)
    else if (x12File?.[1] !== undefined) await renderX12File(main, decodeURIComponent(x12File[1]), params)
    else if (task?.[1] !== undefined) await renderTask(main, decodeURIComponent(task[1]))
    else if (path === "/console/work-queue") await renderTasks(main, params)
    else if (path === "/console/intake") await renderIntake(main, params)
    else if (path === "/console/events") await renderEvents(main, params)
    else if (path === "/console/claims") await renderClaims(main, params)
    else if (path === "/console/webhooks") await renderWebhooks(main, params)
    else if (path === "/console/clearinghouse") await renderClearinghouse(main, params)
    else if (path === "/console/audit") await renderAudit(main, params)
    else await renderEncounters(main, params)
  } catch (e) {
    replace(main, h("h1", { tabindex: "-1" }, "Something went wrong"), notice("error", ...describeError(e)))
  }
  const message = takeFlash()
  const heading = main.querySelector("h1")
  if (message !== undefined) heading?.after(notice("ok", message))
  // After a change of view, focus moves to its heading, so that it is announced; on the page's
  // first load the browser starts at the top as usual (the skip link comes first).
  if (firstDraw) {
    firstDraw = false
    return
  }
  if (heading !== null) {
    heading.setAttribute("tabindex", "-1")
    heading.focus()
  }
}

document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  const target = event.target instanceof Element ? event.target.closest("a[data-nav]") : null
  if (!(target instanceof HTMLAnchorElement)) return
  event.preventDefault()
  navigate(target.href)
})

window.addEventListener("console:navigate", () => void draw())
window.addEventListener("popstate", () => {
  if (location.pathname + location.search !== drawn) void draw()
})

/** Automatic logoff: a minute before the server ends an idle session, the page says so and offers to stay. */
const WARN_BEFORE_MS = 60_000
let idleTimer: ReturnType<typeof setInterval> | undefined
const warning = document.getElementById("idle-warning") ?? document.body.appendChild(h("div", { id: "idle-warning", role: "alertdialog", "aria-labelledby": "idle-title", "aria-describedby": "idle-text", hidden: true }))

const watchIdle = (info: SessionInfo) => {
  if (idleTimer !== undefined) clearInterval(idleTimer)
  const idleMs = info.idleTimeoutSeconds * 1000
  const endsAt = Date.parse(info.expiresAt)
  idleTimer = setInterval(() => {
    if (session() === undefined) {
      warning.hidden = true
      return
    }
    const now = Date.now()
    const idleLeft = lastServerContact() + idleMs - now
    const absoluteLeft = endsAt - now
    const left = Math.min(idleLeft, absoluteLeft)
    if (left > WARN_BEFORE_MS) {
      warning.hidden = true
      return
    }
    if (left <= 0) {
      warning.hidden = true
      void draw()
      return
    }
    if (!warning.hidden) {
      const text = document.getElementById("idle-text")
      if (text !== null) text.textContent = message(left, absoluteLeft <= idleLeft)
      return
    }
    const stay = h("button", { type: "button" }, "Stay signed in")
    stay.addEventListener("click", () => {
      warning.hidden = true
      void loadSession()
    })
    replace(warning, h("h2", { id: "idle-title" }, "You will be signed out soon"), h("p", { id: "idle-text" }, message(left, absoluteLeft <= idleLeft)), absoluteLeft <= idleLeft ? null : stay)
    warning.hidden = false
    if (absoluteLeft > idleLeft) stay.focus()
  }, 1000)
}

const message = (leftMs: number, absolute: boolean) =>
  absolute
    ? `Your session reaches its time limit in ${Math.ceil(leftMs / 1000)} seconds; you will need to sign in again.`
    : `For your patients' privacy, an idle session ends in ${Math.ceil(leftMs / 1000)} seconds.`

onSessionEnded(() => showSignIn("Your session has ended. Sign in again."))

void draw()
