import { getJson, session } from "./api.js"
import { h, link, navigate, replace, table } from "./dom.js"
import { dateTime, dollars, num, optStr, str, list, statusLabel } from "./format.js"

const FILTERS = ["claim_status", "external_id", "created_from", "created_to"] as const

const input = (name: string, label: string, type: string, value: string) => [
  h("label", { for: `f-${name}` }, label),
  h("input", { id: `f-${name}`, name, type, value })
]

const filterForm = (params: URLSearchParams) => {
  const chosen = params.get("claim_status") ?? ""
  const select = h(
    "select",
    { id: "f-claim_status", name: "claim_status" },
    h("option", { value: "", selected: chosen === "" }, "Any status"),
    (session()?.claimStatuses ?? []).map((s) => h("option", { value: s, selected: chosen === s }, statusLabel(s)))
  )
  const form = h(
    "form",
    { class: "filters", method: "get", action: "/console/encounters", role: "search", "aria-label": "Filter encounters" },
    h("div", {}, h("label", { for: "f-claim_status" }, "Claim status"), select),
    h("div", {}, input("external_id", "External id", "search", params.get("external_id") ?? "")),
    h("div", {}, input("created_from", "Created from (UTC)", "date", params.get("created_from") ?? "")),
    h("div", {}, input("created_to", "Created to (UTC)", "date", params.get("created_to") ?? "")),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Apply filters"), link("/console/encounters", "Clear"))
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const next = new URLSearchParams()
    new FormData(form).forEach((value, key) => {
      if (typeof value === "string" && value.trim() !== "") next.set(key, value.trim())
    })
    navigate(`/console/encounters${next.size > 0 ? `?${next}` : ""}`)
  })
  return form
}

/** Encounter rows as a table. */
export const encounterTable = (caption: string, items: ReadonlyArray<unknown>) =>
  table(
    caption,
    ["External id", "Patient", "Date of service", "Total charge", "Claim status", "Created"],
    items.map((item) => [
      encounterLink(item),
      str(item, "patient_name"),
      optStr(item, "date_of_service") ?? "—",
      dollars(num(item, "total_charge_cents")),
      h("span", { class: "status" }, statusLabel(str(item, "claim_status"))),
      h("span", { class: "nowrap" }, dateTime(str(item, "created_at")))
    ]),
    { numeric: [3] }
  )

export const encounterLink = (item: unknown) => link(`/console/encounters/${encodeURIComponent(str(item, "id"))}`, str(item, "external_id"))

/**
 * Links to the neighbouring pages, keeping the filters. A view with two lists names each list's
 * token parameter and its navigation.
 */
export const pager = (
  base: string,
  params: URLSearchParams,
  page: unknown,
  options: { readonly param?: string; readonly label?: string; readonly prev?: string; readonly next?: string } = {}
) => {
  const to = (token: string | null, label: string, rel: string) => {
    if (token === null) return null
    const next = new URLSearchParams(params)
    next.set(options.param ?? "page_token", token)
    return link(`${base}?${next}`, label, { rel })
  }
  const prev = to(optStr(page, "prev_page_token"), options.prev ?? "← Newer", "prev")
  const next = to(optStr(page, "next_page_token"), options.next ?? "Older →", "next")
  return prev === null && next === null ? null : h("nav", { class: "pager", "aria-label": options.label ?? "Pages" }, prev, next)
}

export const renderEncounters = async (main: HTMLElement, params: URLSearchParams) => {
  const query = new URLSearchParams()
  for (const key of [...FILTERS, "page_token"]) {
    const v = params.get(key)
    if (v !== null && v !== "") query.set(key, v)
  }
  query.set("limit", "50")
  const page = await getJson(`/console/api/encounters?${query}`)
  const items = list(page, "items")
  const filtered = FILTERS.some((f) => (params.get(f) ?? "") !== "")
  replace(
    main,
    h("h1", {}, "Encounters"),
    filterForm(params),
    items.length === 0
      ? h("p", { class: "empty" }, filtered ? "No encounter matches these filters." : "No encounters yet.")
      : encounterTable(filtered ? "Encounters matching the filters, newest first" : "Encounters, newest first", items),
    pager("/console/encounters", params, page)
  )
}
