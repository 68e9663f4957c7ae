import { getJson, session } from "./api.js"
import { h, link, navigate, replace, table } from "./dom.js"
import { dateTime, dollars, num, optStr, str, list, statusLabel } from "./format.js"

/** The search filters (the API list's) first, then the console's own. */
const SEARCH = ["patient_last_name", "patient_date_of_birth", "date_of_service_from", "date_of_service_to", "external_id_prefix", "payer_id"] as const
const FILTERS = [...SEARCH, "claim_status", "external_id", "created_from", "created_to"] as const

const input = (name: string, label: string, type: string, value: string, extra: Record<string, string> = {}) => [
  h("label", { for: `f-${name}` }, label),
  h("input", { id: `f-${name}`, name, type, value, ...extra })
]

const field = (params: URLSearchParams, name: string, label: string, type: string, extra: Record<string, string> = {}) =>
  h("div", {}, input(name, label, type, params.get(name) ?? "", extra))

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
    { class: "filters", method: "get", action: "/console/encounters", role: "search", "aria-label": "Find encounters" },
    h(
      "fieldset",
      {},
      h("legend", {}, "Find an encounter"),
      field(params, "patient_last_name", "Patient last name (starts with)", "search", { autocomplete: "off", spellcheck: "false" }),
      field(params, "patient_date_of_birth", "Date of birth", "date"),
      field(params, "date_of_service_from", "Date of service from", "date"),
      field(params, "date_of_service_to", "Date of service to", "date"),
      field(params, "external_id_prefix", "External id (starts with)", "search", { autocomplete: "off", spellcheck: "false" }),
      field(params, "payer_id", "Payer id", "search", { autocomplete: "off", spellcheck: "false" })
    ),
    h(
      "fieldset",
      {},
      h("legend", {}, "More filters"),
      h("div", {}, h("label", { for: "f-claim_status" }, "Claim status"), select),
      field(params, "external_id", "External id (exactly)", "search", { autocomplete: "off", spellcheck: "false" }),
      field(params, "created_from", "Created from (UTC)", "date"),
      field(params, "created_to", "Created to (UTC)", "date")
    ),
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
      h("span", { class: "nowrap" }, optStr(item, "date_of_service") ?? "—"),
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
