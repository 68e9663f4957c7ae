import { canWriteClaims, getJson } from "./api.js"
import { h, link, navigate, notice, redraw, replace, table } from "./dom.js"
import { dateTime, dollars, list, num, optStr, str, strings, statusLabel } from "./format.js"
import { encounterLink, pager } from "./encounters-view.js"
import { moveClaimForm } from "./move-claim.js"

const counted = new Intl.NumberFormat("en-US")

/** The work list's orders: (sort, order) as the server takes them, and how the page names each. */
const ORDERS = [
  ["age", "desc", "Longest in this status first"],
  ["age", "asc", "Newest in this status first"],
  ["amount", "desc", "Largest billed amount first"],
  ["amount", "asc", "Smallest billed amount first"]
] as const

const days = (n: number) => (n === 1 ? "1 day" : `${counted.format(n)} days`)

/** The form that orders a status's work list; choosing an order reloads the list. */
const orderForm = (status: string, sort: string, order: string) => {
  const select = h(
    "select",
    { id: "work-order", name: "order" },
    ORDERS.map(([s, o, label]) => h("option", { value: `${s}:${o}`, selected: s === sort && o === order }, label))
  )
  const form = h(
    "form",
    { class: "sort", "aria-label": "Order the claims" },
    h("label", { for: "work-order" }, "Order"),
    select,
    h("button", { type: "submit" }, "Apply order")
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const [s, o] = select.value.split(":")
    navigate(`/console/claims?${new URLSearchParams({ status, sort: s ?? "age", order: o ?? "desc" })}`)
  })
  return form
}

/**
 * Claims per status with what they bill; a chosen status lists its claims as a work list (days in
 * the status, billed amount; ordered by either), each with the move control when allowed.
 */
export const renderClaims = async (main: HTMLElement, params: URLSearchParams) => {
  const data = await getJson("/console/api/claims/counts")
  const counts = list(data, "counts")
  const chosen = params.get("status") ?? ""
  const summary = table(
    "Claims per status (latest claim of each encounter), with what they bill",
    ["Status", "Claims", "Billed"],
    counts.map((c) => {
      const status = str(c, "status")
      const current = status === chosen ? { "aria-current": "true" } : {}
      return [link(`/console/claims?status=${encodeURIComponent(status)}`, statusLabel(status), current), counted.format(num(c, "count")), dollars(num(c, "billed_cents"))]
    }),
    {
      numeric: [1, 2],
      foot: [
        "All statuses",
        counted.format(counts.reduce((n: number, c) => n + num(c, "count"), 0)),
        dollars(counts.reduce((n: number, c) => n + num(c, "billed_cents"), 0))
      ]
    }
  )
  replace(main, h("h1", {}, "Claims by status"), h("div", { class: "split" }, h("div", {}, summary), h("div", { id: "claims-list" })))
  const target = main.querySelector("#claims-list")
  if (chosen === "" || !(target instanceof HTMLElement)) return
  const entry = counts.find((c) => str(c, "status") === chosen)
  const allowed = strings(entry, "allowed_transitions")
  const known = ORDERS.find(([s, o]) => s === params.get("sort") && o === params.get("order"))
  const [sort, order, orderLabel] = known ?? ORDERS[0]
  const query = new URLSearchParams({ status: chosen, sort, order, limit: "25" })
  const token = params.get("page_token")
  if (token !== null && token !== "") query.set("page_token", token)
  const page = await getJson(`/console/api/claims/work?${query}`)
  const items = list(page, "items")
  const writer = canWriteClaims()
  const rows = items.map((item) => [
    encounterLink(item),
    str(item, "patient_name"),
    h("span", { class: "nowrap" }, optStr(item, "date_of_service") ?? "—"),
    dollars(num(item, "total_charge_cents")),
    days(num(item, "days_in_status")),
    dateTime(str(item, "claim_status_changed_at")),
    ...(writer
      ? [
          moveClaimForm(
            str(item, "claim_id"),
            str(item, "external_id"),
            chosen,
            allowed,
            (status) => redraw(`Claim of ${str(item, "external_id")} moved to ${statusLabel(status)}.`),
            { compact: true }
          )
        ]
      : [])
  ])
  const headers = ["External id", "Patient", "Date of service", "Billed", "In this status", "Since", ...(writer ? ["Move to"] : [])]
  replace(
    target,
    h("h2", {}, `Claims in status ${statusLabel(chosen)}`),
    h("p", { class: "help" }, `${counted.format(num(entry, "count"))} claims, ${dollars(num(entry, "billed_cents"))} billed.`),
    orderForm(chosen, sort, order),
    items.length === 0
      ? h("p", { class: "empty" }, "No claims in this status.")
      : table(`Encounters whose claim is ${statusLabel(chosen)}: ${orderLabel.toLowerCase()}`, headers, rows, { numeric: [3, 4] }),
    writer ? null : notice("ok", "Moving a claim needs a key with the scope claims:write."),
    pager("/console/claims", new URLSearchParams({ status: chosen, sort, order }), page, { prev: "← Previous", next: "Next →" })
  )
}
