import { getJson, session } from "./api.js"
import { h, link, navigate, replace, table } from "./dom.js"
import { field, dateTime, list, optStr, str, statusLabel } from "./format.js"

const FILTERS = ["event_type", "created_from", "created_to"] as const

/** An event type without its namespace: "Created", "StatusUpdated". */
export const typeLabel = (t: string) => t.replace("ExternalApi.Encounter.", "")

const filterForm = (params: URLSearchParams) => {
  const chosen = params.get("event_type") ?? ""
  const select = h(
    "select",
    { id: "f-event_type", name: "event_type" },
    h("option", { value: "", selected: chosen === "" }, "Any type"),
    (session()?.eventTypes ?? []).map((t) => h("option", { value: t, selected: chosen === t }, typeLabel(t)))
  )
  const date = (name: string, label: string) => [
    h("label", { for: `f-${name}` }, label),
    h("input", { id: `f-${name}`, name, type: "date", value: params.get(name) ?? "" })
  ]
  const form = h(
    "form",
    { class: "filters", method: "get", action: "/console/events", role: "search", "aria-label": "Filter events" },
    h("div", {}, h("label", { for: "f-event_type" }, "Event type"), select),
    h("div", {}, date("created_from", "Created from (UTC)")),
    h("div", {}, date("created_to", "Created to (UTC)")),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Apply filters"), link("/console/events", "Clear"))
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const next = new URLSearchParams()
    new FormData(form).forEach((value, key) => {
      if (typeof value === "string" && value.trim() !== "") next.set(key, value.trim())
    })
    navigate(`/console/events${next.size > 0 ? `?${next}` : ""}`)
  })
  return form
}

const pager = (params: URLSearchParams, page: unknown) => {
  const to = (token: string | null, label: string, rel: string) => {
    if (token === null) return null
    const next = new URLSearchParams(params)
    next.set("page_token", token)
    return link(`/console/events?${next}`, label, { rel })
  }
  const prev = to(optStr(page, "prev_page_token"), "← Earlier", "prev")
  const next = to(optStr(page, "next_page_token"), "Later →", "next")
  return prev === null && next === null ? null : h("nav", { class: "pager", "aria-label": "Pages" }, prev, next)
}

/** The event feed, oldest first: the order staff read a history in, and the feed's own keyset order. */
export const renderEvents = async (main: HTMLElement, params: URLSearchParams) => {
  const query = new URLSearchParams()
  const type = params.get("event_type") ?? ""
  const from = params.get("created_from") ?? ""
  const to = params.get("created_to") ?? ""
  if (type !== "") query.set("event_type", type)
  // Dates are whole UTC days; the feed's bounds are inclusive instants.
  if (from !== "") query.set("created_after", `${from}T00:00:00.000Z`)
  if (to !== "") query.set("created_before", `${to}T23:59:59.999Z`)
  const token = params.get("page_token") ?? ""
  if (token !== "") query.set("page_token", token)
  query.set("limit", "50")
  const page = await getJson(`/console/api/events?${query}`)
  const items = list(page, "items")
  const filtered = FILTERS.some((f) => (params.get(f) ?? "") !== "")
  const rows = items.map((item) => {
    const p = field(item, "payload")
    const id = str(p, "encounter_id")
    const previous = optStr(p, "previous_status")
    return [
      h("span", { class: "nowrap" }, dateTime(str(item, "created_at"))),
      typeLabel(str(item, "event_type")),
      id === "" ? "—" : link(`/console/encounters/${encodeURIComponent(id)}`, `Encounter ${str(p, "external_id") || id}`),
      str(p, "external_id"),
      previous === null ? "—" : statusLabel(previous),
      h("span", { class: "status" }, statusLabel(str(p, "status"))),
      optStr(p, "note") ?? ""
    ]
  })
  replace(
    main,
    h("h1", {}, "Events"),
    filterForm(params),
    items.length === 0
      ? h("p", { class: "empty" }, filtered ? "No event matches these filters." : "No events yet.")
      : table(filtered ? "Events matching the filters, oldest first" : "Events, oldest first", ["Time", "Type", "Encounter", "External id", "Previous status", "New status", "Note"], rows),
    pager(params, page)
  )
}
