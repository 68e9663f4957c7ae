import { getJson } from "./api.js"
import { facts, h, link, navigate, replace, table } from "./dom.js"
import { dateTime, list, optStr, str } from "./format.js"
import { pager } from "./encounters-view.js"

const OUTCOMES = [
  ["rejected", "Rejected"],
  ["accepted", "Accepted"],
  ["duplicate", "Duplicate (replays)"],
  ["", "All outcomes"]
] as const

const errorList = (item: unknown) => {
  const errors = list(item, "errors")
  if (errors.length === 0) return h("span", { class: "help" }, "—")
  return h("ul", { class: "errors" }, errors.map((e) => h("li", {}, h("code", {}, str(e, "path")), ` ${str(e, "message")}`)))
}

/** The body as received, shown on demand: it may be large, and it is patient data. */
const rawBodyToggle = (id: string) => {
  const target = h("div", { id: `raw-${id}`, hidden: true })
  const button = h("button", { type: "button", class: "link-button", "aria-expanded": "false", "aria-controls": `raw-${id}` }, "Show raw body")
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") === "true"
    if (open) {
      button.setAttribute("aria-expanded", "false")
      button.textContent = "Show raw body"
      target.hidden = true
      return
    }
    getJson(`/console/api/intake-requests/${encodeURIComponent(id)}`).then((detail) => {
      replace(target, h("p", { class: "help" }, `Content-Type: ${str(detail, "content_type") || "(none)"}`), h("pre", { tabindex: "0", "aria-label": "Raw body" }, str(detail, "body")))
      target.hidden = false
      button.setAttribute("aria-expanded", "true")
      button.textContent = "Hide raw body"
    }, () => replace(target, h("p", { class: "help" }, "The body could not be loaded.")))
  })
  return h("div", {}, button, target)
}

const filterForm = (params: URLSearchParams, outcome: string) => {
  const select = h(
    "select",
    { id: "f-outcome", name: "outcome" },
    OUTCOMES.map(([value, label]) => h("option", { value: value === "" ? "all" : value, selected: outcome === value }, label))
  )
  const externalId = h("input", { id: "f-intake-external", name: "external_id", type: "search", value: params.get("external_id") ?? "" })
  const form = h(
    "form",
    { class: "filters", method: "get", action: "/console/intake", role: "search", "aria-label": "Filter the intake log" },
    h("div", {}, h("label", { for: "f-outcome" }, "Outcome"), select),
    h("div", {}, h("label", { for: "f-intake-external" }, "External id"), externalId),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Apply filters"))
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const next = new URLSearchParams({ outcome: select.value })
    if (externalId.value.trim() !== "") next.set("external_id", externalId.value.trim())
    navigate(`/console/intake?${next}`)
  })
  return form
}

/** The intake log: every create request as received, rejected ones first (the default filter). */
export const renderIntake = async (main: HTMLElement, params: URLSearchParams) => {
  const chosen = params.get("outcome") ?? "rejected"
  const outcome = chosen === "all" ? "" : chosen
  const query = new URLSearchParams({ limit: "25" })
  if (outcome !== "") query.set("outcome", outcome)
  for (const key of ["external_id", "page_token"]) {
    const v = params.get(key)
    if (v !== null && v !== "") query.set(key, v)
  }
  const page = await getJson(`/console/api/intake-requests?${query}`)
  const items = list(page, "items")
  const rows = items.map((item) => [
    link(`/console/intake/${encodeURIComponent(str(item, "id"))}`, dateTime(str(item, "received_at")), { class: "nowrap" }),
    h("span", { class: `outcome ${str(item, "outcome")}` }, str(item, "outcome")),
    optStr(item, "external_id") ?? "—",
    optStr(item, "encounter_id") === null ? "—" : link(`/console/encounters/${encodeURIComponent(str(item, "encounter_id"))}`, "Encounter"),
    h("div", {}, errorList(item), rawBodyToggle(str(item, "id")))
  ])
  const kept = new URLSearchParams(params)
  kept.delete("page_token")
  replace(
    main,
    h("h1", {}, "Intake log"),
    h("p", { class: "help" }, "Every create request as received, newest first. Rejected requests are listed first; choose another outcome to see the others."),
    filterForm(params, outcome),
    items.length === 0
      ? h("p", { class: "empty" }, "No request matches these filters.")
      : table(`${OUTCOMES.find(([v]) => v === outcome)?.[1] ?? "All"} requests, newest first`, ["Received", "Outcome", "External id", "Encounter", "Errors and body"], rows),
    pager("/console/intake", kept, page)
  )
}

/** One stored request: its outcome, its errors and the body exactly as received. */
export const renderIntakeRequest = async (main: HTMLElement, id: string) => {
  const item = await getJson(`/console/api/intake-requests/${encodeURIComponent(id)}`)
  const encounterId = optStr(item, "encounter_id")
  replace(
    main,
    h("p", { class: "crumbs" }, link("/console/intake", "← Intake log")),
    h("h1", {}, `Intake request ${optStr(item, "external_id") ?? str(item, "id")}`),
    facts([
      ["Received", dateTime(str(item, "received_at"))],
      ["Outcome", str(item, "outcome")],
      ["External id", optStr(item, "external_id") ?? "—"],
      ["Encounter", encounterId === null ? "—" : link(`/console/encounters/${encodeURIComponent(encounterId)}`, "Open the encounter")],
      ["Content-Type", str(item, "content_type") || "(none)"]
    ]),
    h("section", { "aria-labelledby": "errors-title" }, h("h2", { id: "errors-title" }, "Errors"), errorList(item)),
    h("section", { "aria-labelledby": "body-title" }, h("h2", { id: "body-title" }, "Body as received"), h("pre", { tabindex: "0", "aria-label": "Body as received" }, str(item, "body")))
  )
}
