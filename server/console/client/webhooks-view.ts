import { canManageWebhooks, describeError, getJson, postJson, session } from "./api.js"
import { facts, h, link, navigate, notice, redraw, replace, table } from "./dom.js"
import { pager } from "./encounters-view.js"
import { typeLabel } from "./events-view.js"
import { dateTime, field, list, num, optStr, str, strings } from "./format.js"

const STATUSES = [
  ["", "All statuses"],
  ["pending", "Pending"],
  ["succeeded", "Succeeded"],
  ["failed", "Failed"]
] as const

const orDash = (s: string | null) => (s === null || s === "" ? "—" : s)
const when = (value: unknown, key: string) => {
  const at = optStr(value, key)
  return at === null ? "—" : h("span", { class: "nowrap" }, dateTime(at))
}

const eventTypes = (endpoint: unknown) => {
  const types = strings(endpoint, "event_types")
  return types.length === 0 ? "Every event type" : types.map(typeLabel).join(", ")
}

const endpointStatus = (endpoint: unknown) => {
  const status = str(endpoint, "status")
  const reason = optStr(endpoint, "disabled_reason")
  return h("span", {}, h("span", { class: `outcome ${status}` }, status), status === "disabled" && reason !== null ? h("span", { class: "note" }, ` ${reason}`) : null)
}

/** Without the scope the API refuses these reads; the view says why instead of failing. */
const withoutScope = (main: HTMLElement) =>
  replace(
    main,
    h("h1", {}, "Webhooks"),
    notice("ok", "Webhook endpoints and their deliveries need a key with the scope webhooks:write."),
    h(
      "p",
      { class: "help" },
      `This key has ${session()?.scopes.join(", ") ?? "no scopes"}. Sign in with a key that has webhooks:write (encounterd keys create --workspace SLUG --scope webhooks:write).`
    )
  )

/** The workspace's webhook endpoints, newest first: where they send, what, and whether they are on. */
export const renderWebhooks = async (main: HTMLElement, params: URLSearchParams) => {
  if (!canManageWebhooks()) return withoutScope(main)
  const query = new URLSearchParams({ limit: "25" })
  const token = params.get("page_token") ?? ""
  if (token !== "") query.set("page_token", token)
  const page = await getJson(`/console/api/webhooks/endpoints?${query}`)
  const items = list(page, "items")
  const rows = items.map((e) => [
    link(`/console/webhooks/${encodeURIComponent(str(e, "id"))}`, str(e, "url")),
    orDash(optStr(e, "description")),
    eventTypes(e),
    endpointStatus(e),
    when(e, "created_at")
  ])
  replace(
    main,
    h("h1", {}, "Webhooks"),
    h("p", { class: "help" }, "The endpoints the workspace's events are pushed to. Open one to see its deliveries and retry them. Endpoints are registered and changed through the API (/api/webhooks/endpoints); their signing secrets are never shown here."),
    items.length === 0
      ? h("p", { class: "empty" }, "No webhook endpoints yet.")
      : table("Webhook endpoints, newest first", ["URL", "Description", "Event types", "Status", "Created"], rows),
    pager("/console/webhooks", new URLSearchParams(), page)
  )
}

const filterForm = (endpointPath: string, chosen: string) => {
  const select = h(
    "select",
    { id: "f-delivery-status", name: "status" },
    STATUSES.map(([value, label]) => h("option", { value, selected: chosen === value }, label))
  )
  const form = h(
    "form",
    { class: "filters", method: "get", action: endpointPath, role: "search", "aria-label": "Filter deliveries" },
    h("div", {}, h("label", { for: "f-delivery-status" }, "Delivery status"), select),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Apply filter"))
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    navigate(select.value === "" ? endpointPath : `${endpointPath}?${new URLSearchParams({ status: select.value })}`)
  })
  return form
}

/** How long the page waits for a retried delivery's attempt to end before it stops looking. */
const RETRY_WATCH_MS = 20_000
const RETRY_POLL_MS = 500

/**
 * After a retry, the page reads the delivery again until its attempt has ended (more attempts than
 * when it was queued, or no longer pending), then draws the view again with the outcome; it stops
 * if the operator has gone to another page, or after 20 seconds.
 */
const watchRetry = async (id: string, attemptsQueued: number, what: string, shownAt: string) => {
  const until = Date.now() + RETRY_WATCH_MS
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, RETRY_POLL_MS))
    if (location.pathname + location.search !== shownAt) return
    let delivery: unknown
    try {
      delivery = await getJson(`/console/api/webhooks/deliveries/${encodeURIComponent(id)}`)
    } catch {
      return
    }
    const status = str(delivery, "status")
    if (num(delivery, "attempts") <= attemptsQueued && status === "pending") continue
    if (location.pathname + location.search !== shownAt) return
    const response = field(delivery, "last_response_status")
    const answer = typeof response === "number" ? ` (the endpoint answered ${response})` : ""
    const outcome = status === "pending" ? `failed${answer}; another attempt is scheduled` : status === "succeeded" ? `succeeded${answer}` : `failed${answer}`
    redraw(`The retried delivery of ${what} was attempted: it ${outcome}.`)
    return
  }
}

/** Retry: one more attempt now (a state-changing request, sent with the session's CSRF token). */
const retryButton = (delivery: unknown) => {
  const id = str(delivery, "id")
  const what = `${typeLabel(str(delivery, "event_type"))} of ${dateTime(str(delivery, "created_at"))}`
  const status = h("div", {})
  const button = h("button", { type: "button", class: "compact" }, "Retry", h("span", { class: "visually-hidden" }, ` the delivery of ${what}`))
  button.addEventListener("click", () => {
    button.disabled = true
    postJson(`/console/api/webhooks/deliveries/${encodeURIComponent(id)}/retry`, {}).then(
      (queued: unknown) => {
        redraw(`The delivery of ${what} is queued for an attempt now.`)
        void watchRetry(id, num(queued, "attempts"), what, location.pathname + location.search)
      },
      (e: unknown) => {
        button.disabled = false
        replace(status, notice("error", ...describeError(e)))
      }
    )
  })
  return h("div", {}, button, status)
}

/** One endpoint and its deliveries, newest first, filtered by status, each with Retry. */
export const renderWebhookEndpoint = async (main: HTMLElement, id: string, params: URLSearchParams) => {
  if (!canManageWebhooks()) return withoutScope(main)
  const path = `/console/webhooks/${encodeURIComponent(id)}`
  const chosen = STATUSES.find(([value]) => value === (params.get("status") ?? ""))?.[0] ?? ""
  const query = new URLSearchParams({ limit: "25" })
  if (chosen !== "") query.set("status", chosen)
  const token = params.get("page_token") ?? ""
  if (token !== "") query.set("page_token", token)
  const [endpoint, page] = await Promise.all([
    getJson(`/console/api/webhooks/endpoints/${encodeURIComponent(id)}`),
    getJson(`/console/api/webhooks/endpoints/${encodeURIComponent(id)}/deliveries?${query}`)
  ])
  const items = list(page, "items")
  const rows = items.map((d) => {
    const response = field(d, "last_response_status")
    return [
      when(d, "created_at"),
      typeLabel(str(d, "event_type")),
      h("span", { class: `outcome ${str(d, "status")}` }, str(d, "status")),
      str(d, "attempts"),
      when(d, "last_attempt_at"),
      typeof response === "number" ? String(response) : "—",
      orDash(optStr(d, "last_error")),
      when(d, "next_attempt_at"),
      retryButton(d)
    ]
  })
  const label = STATUSES.find(([value]) => value === chosen)?.[1] ?? "All statuses"
  replace(
    main,
    h("p", { class: "crumbs" }, link("/console/webhooks", "← Webhooks")),
    h("h1", {}, "Webhook endpoint"),
    facts([
      ["URL", h("code", {}, str(endpoint, "url"))],
      ["Description", orDash(optStr(endpoint, "description"))],
      ["Event types", eventTypes(endpoint)],
      ["Status", endpointStatus(endpoint)],
      ["Created", dateTime(str(endpoint, "created_at"))],
      ["Changed", dateTime(str(endpoint, "updated_at"))]
    ]),
    h(
      "section",
      { "aria-labelledby": "deliveries-title" },
      h("h2", { id: "deliveries-title" }, "Deliveries"),
      filterForm(path, chosen),
      items.length === 0
        ? h("p", { class: "empty" }, chosen === "" ? "No deliveries yet." : "No delivery in this status.")
        : table(
            `Deliveries (${label.toLowerCase()}), newest first`,
            ["Created", "Event type", "Status", "Attempts", "Last attempt", "Last response", "Last error", "Next attempt", "Retry"],
            rows,
            { numeric: [3, 5] }
          ),
      pager(path, chosen === "" ? new URLSearchParams() : new URLSearchParams({ status: chosen }), page)
    )
  )
}
