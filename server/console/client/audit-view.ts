import { getJson } from "./api.js"
import { h, navigate, replace, table } from "./dom.js"
import { dateTime, field, list, optStr, str } from "./format.js"
import { pager } from "./encounters-view.js"

/** The audit log: who read or changed which record, newest first; filters by action, actor and resource id. */
export const renderAudit = async (main: HTMLElement, params: URLSearchParams) => {
  const query = new URLSearchParams()
  for (const name of ["action", "actor", "resource", "page_token"]) {
    const v = params.get(name)
    if (v !== null && v !== "") query.set(name, v)
  }
  query.set("limit", "50")
  const page = await getJson(`/console/api/audit?${query}`)
  const input = (id: string, name: string, label: string) =>
    h("div", {}, h("label", { for: id }, label), h("input", { id, name, type: "search", value: params.get(name) ?? "", spellcheck: "false" }))
  const form = h(
    "form",
    { class: "filters", method: "get", action: "/console/audit", role: "search", "aria-label": "Filter the audit log" },
    input("f-action", "action", "Action"),
    input("f-actor", "actor", "Actor id"),
    input("f-resource", "resource", "Record id"),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Apply filters"))
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const next = new URLSearchParams()
    for (const el of Array.from(form.querySelectorAll("input"))) if (el.value.trim() !== "") next.set(el.name, el.value.trim())
    navigate(`/console/audit?${next}`)
  })
  const rows = list(page, "items").map((e) => [
    dateTime(str(e, "at")),
    `${str(field(e, "actor"), "name")} (${str(field(e, "actor"), "kind")})`,
    h("code", {}, str(e, "action")),
    `${str(field(e, "resource"), "type")} ${optStr(field(e, "resource"), "id") ?? "(list)"}`,
    str(e, "outcome"),
    optStr(e, "client_ip") ?? ""
  ])
  replace(
    main,
    h("h1", { tabindex: "-1" }, "Audit log"),
    h("p", { class: "help" }, "Every read or change of patient data, by whom, from where. Entries name records, never their contents."),
    form,
    table("Audit entries, newest first", ["When", "Who", "Action", "Record", "Outcome", "Client address"], rows),
    pager("/console/audit", params, page)
  )
}
