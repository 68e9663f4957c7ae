import { canWriteClaims, getJson } from "./api.js"
import { h, link, notice, redraw, replace, table } from "./dom.js"
import { dateTime, dollars, list, num, optStr, str, strings, statusLabel } from "./format.js"
import { encounterLink, pager } from "./encounters-view.js"
import { moveClaimForm } from "./move-claim.js"

const counted = new Intl.NumberFormat("en-US")

/** Claims per status; a chosen status lists its claims, each with the move control when allowed. */
export const renderClaims = async (main: HTMLElement, params: URLSearchParams) => {
  const data = await getJson("/console/api/claims/counts")
  const counts = list(data, "counts")
  const chosen = params.get("status") ?? ""
  const summary = table(
    "Claims per status (latest claim of each encounter)",
    ["Status", "Claims"],
    counts.map((c) => {
      const status = str(c, "status")
      const current = status === chosen ? { "aria-current": "true" } : {}
      return [link(`/console/claims?status=${encodeURIComponent(status)}`, statusLabel(status), current), counted.format(num(c, "count"))]
    }),
    { numeric: [1], foot: ["All statuses", counted.format(counts.reduce((n: number, c) => n + num(c, "count"), 0))] }
  )
  replace(
    main,
    h("h1", {}, "Claims by status"),
    h("div", { class: "split" }, h("div", {}, summary), h("div", { id: "claims-list" }))
  )
  const target = main.querySelector("#claims-list")
  if (chosen === "" || !(target instanceof HTMLElement)) return
  const entry = counts.find((c) => str(c, "status") === chosen)
  const allowed = strings(entry, "allowed_transitions")
  const query = new URLSearchParams({ claim_status: chosen, limit: "25" })
  const token = params.get("page_token")
  if (token !== null && token !== "") query.set("page_token", token)
  const page = await getJson(`/console/api/encounters?${query}`)
  const items = list(page, "items")
  const writer = canWriteClaims()
  const rows = items.map((item) => [
    encounterLink(item),
    str(item, "patient_name"),
    optStr(item, "date_of_service") ?? "—",
    dollars(num(item, "total_charge_cents")),
    h("span", { class: "nowrap" }, dateTime(str(item, "claim_status_changed_at"))),
    ...(writer ? [moveClaimForm(str(item, "claim_id"), str(item, "external_id"), allowed, (status) => redraw(`Claim of ${str(item, "external_id")} moved to ${statusLabel(status)}.`), {
          compact: true
        })] : [])
  ])
  const headers = ["External id", "Patient", "Date of service", "Total charge", "In this status since", ...(writer ? ["Move to"] : [])]
  replace(
    target,
    h("h2", {}, `Claims in status ${statusLabel(chosen)}`),
    items.length === 0 ? h("p", { class: "empty" }, "No claims in this status.") : table(`Encounters whose claim is ${statusLabel(chosen)}`, headers, rows, { numeric: [3] }),
    writer ? null : notice("ok", "Moving a claim needs a key with the scope claims:write."),
    pager("/console/claims", new URLSearchParams({ status: chosen }), page)
  )
}
